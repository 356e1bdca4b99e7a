#include "loopdyn/kinematics/constraint_equations.hpp"

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {

/// Origin and axes of a marker frame, as jets; an axis is formed only where an equation uses it
/// (a planar revolute joint needs none).
template <bool R>
struct FrameJets {
  const BodyMotion& m;
  int slot;
  const MarkerFrame& f;
  BasicVec3Jet<R> p;

  BasicVec3Jet<R> x() const { return axisJet<R>(m, slot, f.orientation.col(0)); }
  BasicVec3Jet<R> y() const { return axisJet<R>(m, slot, f.orientation.col(1)); }
  BasicVec3Jet<R> z() const { return axisJet<R>(m, slot, f.orientation.col(2)); }
};

template <bool R>
FrameJets<R> frameJets(const BodyMotion& m, int slot, const MarkerFrame& f) {
  return {m, slot, f, pointJet<R>(m, slot, f.position)};
}

/// Writes the components of a vector jet into consecutive outputs.
template <bool R>
void put(const BasicVec3Jet<R>& v, int count, std::span<BasicJet<R>> out) {
  for (int i = 0; i < count; ++i) out[static_cast<std::size_t>(i)] = v[i];
}

/// put(a - b, count, out) without forming a - b: the same differences, component by component.
template <bool R>
void putDifference(const BasicVec3Jet<R>& a, const BasicVec3Jet<R>& b, int count, std::span<BasicJet<R>> out) {
  for (int i = 0; i < count; ++i) {
    BasicJet<R>& o = out[static_cast<std::size_t>(i)];
    o.val = a.val(i) - b.val(i);
    o.grad = a.grad.row(i) - b.grad.row(i);
    o.dot = a.dot(i) - b.dot(i);
    o.ddot = a.ddot(i) - b.ddot(i);
    if constexpr (R) o.grad_rate = a.grad_rate.row(i) - b.grad_rate.row(i);
  }
}

template <bool R>
BasicJet<R> timeJet(const Profile& profile, Scalar t) {
  const ProfileValue f = profile.evaluate(t);
  return BasicJet<R>{f.f, JetRow::Zero(), f.df, f.ddf};
}

}  // namespace

template <bool R>
void jointEquations(int dimension, const Joint& joint, const BodyMotion& m1, const BodyMotion& m2,
                    std::span<BasicJet<R>> out) {
  LOOPDYN_ASSERT(static_cast<int>(out.size()) == joint.rows);
  const FrameJets<R> f1 = frameJets<R>(m1, 0, joint.first);
  if (joint.type == JointType::KnifeEdge) {
    // paper 001, eq. (30): n^T v_K = 0 with n normal to the edge; Gamma = -d/dt(n^T v_K)
    const BasicVec3Jet<R> n = f1.y();
    const BasicVec3Jet<R>& p = f1.p;
    BasicJet<R> row;
    row.grad = n.val.transpose() * p.grad;
    row.dot = n.val.dot(p.dot);
    row.ddot = n.dot.dot(p.dot) + n.val.dot(p.ddot);
    if constexpr (R) row.grad_rate = n.dot.transpose() * p.grad + n.val.transpose() * p.grad_rate;
    out[0] = row;
    return;
  }
  const FrameJets<R> f2 = frameJets<R>(m2, 1, joint.second);
  // the markers' separation: d from the first to the second (formed where used); the gap -d is
  // written straight into the rows (putDifference)
  const auto d = [&] { return f2.p - f1.p; };
  if (dimension == 2) {
    switch (joint.type) {
      case JointType::Revolute: putDifference(f1.p, f2.p, 2, out); return;
      case JointType::Prismatic:
        out[0] = dot(f1.y(), d());
        out[1] = dot(f1.x(), f2.y());
        return;
      case JointType::Fixed:
        putDifference(f1.p, f2.p, 2, out);
        out[2] = dot(f1.x(), f2.y());
        return;
      case JointType::Distance: break;
      default: LOOPDYN_ASSERT(false); return;
    }
  }
  switch (joint.type) {
    case JointType::Spherical: putDifference(f1.p, f2.p, 3, out); return;
    case JointType::Revolute: {
      const BasicVec3Jet<R> z1 = f1.z();
      putDifference(f1.p, f2.p, 3, out);
      out[3] = dot(z1, f2.y());
      out[4] = dot(z1, f2.x());
      return;
    }
    case JointType::Cylindrical:
    case JointType::Prismatic: {
      const BasicVec3Jet<R> x1 = f1.x(), z1 = f1.z(), y2 = f2.y(), separation = d();
      out[0] = dot(x1, separation);
      out[1] = dot(f1.y(), separation);
      out[2] = dot(z1, y2);
      out[3] = dot(z1, f2.x());
      if (joint.type == JointType::Prismatic) out[4] = dot(x1, y2);
      return;
    }
    case JointType::Universal:
      putDifference(f1.p, f2.p, 3, out);
      out[3] = dot(f1.z(), f2.z());
      return;
    case JointType::Planar: {
      const BasicVec3Jet<R> z1 = f1.z();
      out[0] = dot(z1, d());
      out[1] = dot(z1, f2.y());
      out[2] = dot(z1, f2.x());
      return;
    }
    case JointType::Fixed: {
      const BasicVec3Jet<R> z1 = f1.z(), y2 = f2.y();
      putDifference(f1.p, f2.p, 3, out);
      out[3] = dot(z1, y2);
      out[4] = dot(z1, f2.x());
      out[5] = dot(f1.x(), y2);
      return;
    }
    case JointType::Distance: {
      const Scalar L = joint.length;
      const BasicVec3Jet<R> separation = d();
      out[0] = (0.5 / L) * (dot(separation, separation) - BasicJet<R>::constant(L * L));
      return;
    }
    case JointType::KnifeEdge: return;
  }
}

template <bool R>
BasicJet<R> driverEquation(const Model& model, const Driver& driver, const BodyMotion& m1, const BodyMotion& m2,
                           Scalar t) {
  const BasicJet<R> f = timeJet<R>(driver.profile, t);
  const FrameJets<R> f1 = frameJets<R>(m1, 0, driver.first);
  const FrameJets<R> f2 = frameJets<R>(m2, 1, driver.second);
  const BasicVec3Jet<R> d = f2.p - f1.p;
  const bool planar = model.dimension() == 2;
  switch (driver.target) {
    case DriverTarget::Distance: return sqrt(dot(d, d)) - f;
    case DriverTarget::JointTranslation: return dot(planar ? f1.x() : f1.z(), d) - f;
    case DriverTarget::JointRotation: {
      if (planar) {
        const Scalar a1 = driver.first.angle, a2 = driver.second.angle;  // unwrapped, as written
        const BasicJet<R> theta = (planarAngleJet<R>(m2, 1) + BasicJet<R>::constant(a2)) -
                                  (planarAngleJet<R>(m1, 0) + BasicJet<R>::constant(a1));
        return theta - f;
      }
      const BasicVec3Jet<R> x2 = f2.x();
      BasicJet<R> residual = atan2(dot(f1.y(), x2), dot(f1.x(), x2)) - f;
      residual.val = wrapAngle(residual.val);
      return residual;
    }
  }
  return {};
}

template void jointEquations<false>(int, const Joint&, const BodyMotion&, const BodyMotion&, std::span<Jet>);
template void jointEquations<true>(int, const Joint&, const BodyMotion&, const BodyMotion&, std::span<RateJet>);
template Jet driverEquation<false>(const Model&, const Driver&, const BodyMotion&, const BodyMotion&, Scalar);
template RateJet driverEquation<true>(const Model&, const Driver&, const BodyMotion&, const BodyMotion&, Scalar);

}  // namespace loopdyn
