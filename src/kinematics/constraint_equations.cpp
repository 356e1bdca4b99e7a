#include "loopdyn/kinematics/constraint_equations.hpp"

#include <array>

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {

/// Origin and axes of a marker frame, as jets; an axis is formed only where an equation uses it
/// (a planar revolute joint needs none).
template <bool R, int D>
struct FrameJets {
  const BodyMotion& m;
  int slot;
  const MarkerFrame& f;
  BasicVecJet<R, D> p;

  BasicVecJet<R, D> x() const { return axisJet<R, D>(m, slot, f.orientation.col(0)); }
  BasicVecJet<R, D> y() const { return axisJet<R, D>(m, slot, f.orientation.col(1)); }
  BasicVecJet<R, D> z() const { return axisJet<R, D>(m, slot, f.orientation.col(2)); }
};

template <bool R, int D>
FrameJets<R, D> frameJets(const BodyMotion& m, int slot, const MarkerFrame& f) {
  return {m, slot, f, pointJet<R, D>(m, slot, f.position)};
}

/// a - b written component by component into consecutive outputs, without forming a - b.
template <bool R, int D>
void putDifference(const BasicVecJet<R, D>& a, const BasicVecJet<R, D>& b, std::span<BasicJet<R, D>> out) {
  for (int i = 0; i < D; ++i) {
    BasicJet<R, D>& o = out[static_cast<std::size_t>(i)];
    o.val = a.val(i) - b.val(i);
    o.grad = a.grad.row(i) - b.grad.row(i);
    o.dot = a.dot(i) - b.dot(i);
    o.ddot = a.ddot(i) - b.ddot(i);
    if constexpr (R) o.grad_rate = a.grad_rate.row(i) - b.grad_rate.row(i);
  }
}

template <bool R, int D>
BasicJet<R, D> timeJet(const Profile& profile, Scalar t) {
  const ProfileValue f = profile.evaluate(t);
  return BasicJet<R, D>{f.f, BasicJetRow<D>::Zero(), f.df, f.ddf};
}

}  // namespace

namespace {

/// Paper 001, eq. (30): n^T v_K = 0 with n normal to the edge; Gamma = -d/dt(n^T v_K).
template <bool R, int D>
BasicJet<R, D> knifeEdgeEquation(const FrameJets<R, D>& f1) {
  const BasicVecJet<R, D> n = f1.y();
  const BasicVecJet<R, D>& p = f1.p;
  BasicJet<R, D> row;
  row.grad = n.val.transpose() * p.grad;
  row.dot = n.val.dot(p.dot);
  row.ddot = n.dot.dot(p.dot) + n.val.dot(p.ddot);
  if constexpr (R) row.grad_rate = n.dot.transpose() * p.grad + n.val.transpose() * p.grad_rate;
  return row;
}

/// The rows of a planar joint between the frames f1, f2 (revolute, prismatic, fixed).
template <bool R>
void planarJointEquations(JointType type, const FrameJets<R, 2>& f1, const FrameJets<R, 2>& f2,
                          std::span<BasicJet<R, 2>> out) {
  switch (type) {
    case JointType::Revolute: putDifference(f1.p, f2.p, out); return;
    case JointType::Prismatic:
      out[0] = dot(f1.y(), f2.p - f1.p);
      out[1] = dot(f1.x(), f2.y());
      return;
    case JointType::Fixed:
      putDifference(f1.p, f2.p, out);
      out[2] = dot(f1.x(), f2.y());
      return;
    default: LOOPDYN_ASSERT(false); return;
  }
}

/// The rows of a spatial joint between the frames f1, f2: the markers' separation d = p2 - p1
/// (its gap -d written straight into the rows: putDifference) and the axes' dot products.
template <bool R>
void spatialJointEquations(JointType type, const FrameJets<R, 3>& f1, const FrameJets<R, 3>& f2,
                           std::span<BasicJet<R, 3>> out) {
  switch (type) {
    case JointType::Spherical: putDifference(f1.p, f2.p, out); return;
    case JointType::Revolute: {
      const BasicVec3Jet<R> z1 = f1.z();
      putDifference(f1.p, f2.p, out);
      out[3] = dot(z1, f2.y());
      out[4] = dot(z1, f2.x());
      return;
    }
    case JointType::Cylindrical:
    case JointType::Prismatic: {
      const BasicVec3Jet<R> x1 = f1.x(), z1 = f1.z(), y2 = f2.y(), separation = f2.p - f1.p;
      out[0] = dot(x1, separation);
      out[1] = dot(f1.y(), separation);
      out[2] = dot(z1, y2);
      out[3] = dot(z1, f2.x());
      if (type == JointType::Prismatic) out[4] = dot(x1, y2);
      return;
    }
    case JointType::Universal:
      putDifference(f1.p, f2.p, out);
      out[3] = dot(f1.z(), f2.z());
      return;
    case JointType::Planar: {
      const BasicVec3Jet<R> z1 = f1.z();
      out[0] = dot(z1, f2.p - f1.p);
      out[1] = dot(z1, f2.y());
      out[2] = dot(z1, f2.x());
      return;
    }
    case JointType::Fixed: {
      const BasicVec3Jet<R> z1 = f1.z(), y2 = f2.y();
      putDifference(f1.p, f2.p, out);
      out[3] = dot(z1, y2);
      out[4] = dot(z1, f2.x());
      out[5] = dot(f1.x(), y2);
      return;
    }
    default: LOOPDYN_ASSERT(false); return;
  }
}

}  // namespace

template <bool R, int D>
void jointEquations(const Joint& joint, const BodyMotion& m1, const BodyMotion& m2, std::span<BasicJet<R, D>> out) {
  LOOPDYN_ASSERT(static_cast<int>(out.size()) == joint.rows);
  const FrameJets<R, D> f1 = frameJets<R, D>(m1, 0, joint.first);
  if (joint.type == JointType::KnifeEdge) {
    out[0] = knifeEdgeEquation(f1);
    return;
  }
  const FrameJets<R, D> f2 = frameJets<R, D>(m2, 1, joint.second);
  if (joint.type == JointType::Distance) {
    const Scalar L = joint.length;
    const BasicVecJet<R, D> separation = f2.p - f1.p;
    out[0] = (0.5 / L) * (dot(separation, separation) - BasicJet<R, D>::constant(L * L));
    return;
  }
  if constexpr (D == 2)
    planarJointEquations<R>(joint.type, f1, f2, out);
  else
    spatialJointEquations<R>(joint.type, f1, f2, out);
}

template <bool R, int D>
BasicJet<R, D> driverEquation(const Driver& driver, const BodyMotion& m1, const BodyMotion& m2, Scalar t) {
  const BasicJet<R, D> f = timeJet<R, D>(driver.profile, t);
  const FrameJets<R, D> f1 = frameJets<R, D>(m1, 0, driver.first);
  const FrameJets<R, D> f2 = frameJets<R, D>(m2, 1, driver.second);
  const BasicVecJet<R, D> d = f2.p - f1.p;
  switch (driver.target) {
    case DriverTarget::Distance: return sqrt(dot(d, d)) - f;
    case DriverTarget::JointTranslation: return dot(D == 2 ? f1.x() : f1.z(), d) - f;
    case DriverTarget::JointRotation: {
      if constexpr (D == 2) {
        const Scalar a1 = driver.first.angle, a2 = driver.second.angle;  // unwrapped, as written
        const BasicJet<R, D> theta = (planarAngleJet<R, D>(m2, 1) + BasicJet<R, D>::constant(a2)) -
                                     (planarAngleJet<R, D>(m1, 0) + BasicJet<R, D>::constant(a1));
        return theta - f;
      } else {
        const BasicVec3Jet<R> x2 = f2.x();
        BasicJet<R> residual = atan2(dot(f1.y(), x2), dot(f1.x(), x2)) - f;
        residual.val = wrapAngle(residual.val);
        return residual;
      }
    }
  }
  return {};
}

template <bool R>
void jointEquations(int dimension, const Joint& joint, const BodyMotion& m1, const BodyMotion& m2,
                    std::span<BasicJet<R>> out) {
  if (dimension == 3) {
    jointEquations<R, 3>(joint, m1, m2, out);
    return;
  }
  std::array<BasicJet<R, 2>, 6> planar;
  jointEquations<R, 2>(joint, m1, m2, std::span<BasicJet<R, 2>>(planar.data(), out.size()));
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = widened(planar[k]);
}

template <bool R>
BasicJet<R> driverEquation(const Model& model, const Driver& driver, const BodyMotion& m1, const BodyMotion& m2,
                           Scalar t) {
  if (model.dimension() == 3) return driverEquation<R, 3>(driver, m1, m2, t);
  return widened(driverEquation<R, 2>(driver, m1, m2, t));
}

template void jointEquations<false>(int, const Joint&, const BodyMotion&, const BodyMotion&, std::span<Jet>);
template void jointEquations<true>(int, const Joint&, const BodyMotion&, const BodyMotion&, std::span<RateJet>);
template Jet driverEquation<false>(const Model&, const Driver&, const BodyMotion&, const BodyMotion&, Scalar);
template RateJet driverEquation<true>(const Model&, const Driver&, const BodyMotion&, const BodyMotion&, Scalar);
template void jointEquations<false, 2>(const Joint&, const BodyMotion&, const BodyMotion&, std::span<BasicJet<false, 2>>);
template void jointEquations<true, 2>(const Joint&, const BodyMotion&, const BodyMotion&, std::span<BasicJet<true, 2>>);
template void jointEquations<false, 3>(const Joint&, const BodyMotion&, const BodyMotion&, std::span<BasicJet<false, 3>>);
template void jointEquations<true, 3>(const Joint&, const BodyMotion&, const BodyMotion&, std::span<BasicJet<true, 3>>);
template BasicJet<false, 2> driverEquation<false, 2>(const Driver&, const BodyMotion&, const BodyMotion&, Scalar);
template BasicJet<true, 2> driverEquation<true, 2>(const Driver&, const BodyMotion&, const BodyMotion&, Scalar);
template BasicJet<false, 3> driverEquation<false, 3>(const Driver&, const BodyMotion&, const BodyMotion&, Scalar);
template BasicJet<true, 3> driverEquation<true, 3>(const Driver&, const BodyMotion&, const BodyMotion&, Scalar);

}  // namespace loopdyn
