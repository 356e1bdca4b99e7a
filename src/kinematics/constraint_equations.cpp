#include "loopdyn/kinematics/constraint_equations.hpp"

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {

/// Origin and axes of a marker frame, as jets; an axis is formed only where an equation uses it
/// (a planar revolute joint needs none).
struct FrameJets {
  const BodyMotion& m;
  int slot;
  const MarkerFrame& f;
  Vec3Jet p;

  Vec3Jet x() const { return axisJet(m, slot, f.orientation.col(0)); }
  Vec3Jet y() const { return axisJet(m, slot, f.orientation.col(1)); }
  Vec3Jet z() const { return axisJet(m, slot, f.orientation.col(2)); }
};

FrameJets frameJets(const BodyMotion& m, int slot, const MarkerFrame& f) {
  return {m, slot, f, pointJet(m, slot, f.position)};
}

/// Writes the components of a vector jet into consecutive outputs.
void put(const Vec3Jet& v, int count, std::span<Jet> out) {
  for (int i = 0; i < count; ++i) out[static_cast<std::size_t>(i)] = v[i];
}

Jet timeJet(const Profile& profile, Scalar t) {
  const ProfileValue f = profile.evaluate(t);
  return Jet{f.f, JetRow::Zero(), f.df, f.ddf};
}

}  // namespace

void jointEquations(int dimension, const Joint& joint, const BodyMotion& m1, const BodyMotion& m2,
                    std::span<Jet> out) {
  LOOPDYN_ASSERT(static_cast<int>(out.size()) == joint.rows);
  const FrameJets f1 = frameJets(m1, 0, joint.first);
  if (joint.type == JointType::KnifeEdge) {
    // paper 001, eq. (30): n^T v_K = 0 with n normal to the edge; Gamma = -d/dt(n^T v_K)
    const Vec3Jet n = f1.y();
    const Vec3Jet& p = f1.p;
    Jet row;
    row.grad = n.val.transpose() * p.grad;
    row.dot = n.val.dot(p.dot);
    row.ddot = n.dot.dot(p.dot) + n.val.dot(p.ddot);
    out[0] = row;
    return;
  }
  const FrameJets f2 = frameJets(m2, 1, joint.second);
  // the markers' separation: d from the first to the second, gap = -d (formed where used)
  const auto d = [&] { return f2.p - f1.p; };
  const auto gap = [&] { return f1.p - f2.p; };
  if (dimension == 2) {
    switch (joint.type) {
      case JointType::Revolute: put(gap(), 2, out); return;
      case JointType::Prismatic:
        out[0] = dot(f1.y(), d());
        out[1] = dot(f1.x(), f2.y());
        return;
      case JointType::Fixed:
        put(gap(), 2, out);
        out[2] = dot(f1.x(), f2.y());
        return;
      case JointType::Distance: break;
      default: LOOPDYN_ASSERT(false); return;
    }
  }
  switch (joint.type) {
    case JointType::Spherical: put(gap(), 3, out); return;
    case JointType::Revolute: {
      const Vec3Jet z1 = f1.z();
      put(gap(), 3, out);
      out[3] = dot(z1, f2.y());
      out[4] = dot(z1, f2.x());
      return;
    }
    case JointType::Cylindrical:
    case JointType::Prismatic: {
      const Vec3Jet x1 = f1.x(), z1 = f1.z(), y2 = f2.y(), separation = d();
      out[0] = dot(x1, separation);
      out[1] = dot(f1.y(), separation);
      out[2] = dot(z1, y2);
      out[3] = dot(z1, f2.x());
      if (joint.type == JointType::Prismatic) out[4] = dot(x1, y2);
      return;
    }
    case JointType::Universal:
      put(gap(), 3, out);
      out[3] = dot(f1.z(), f2.z());
      return;
    case JointType::Planar: {
      const Vec3Jet z1 = f1.z();
      out[0] = dot(z1, d());
      out[1] = dot(z1, f2.y());
      out[2] = dot(z1, f2.x());
      return;
    }
    case JointType::Fixed: {
      const Vec3Jet z1 = f1.z(), y2 = f2.y();
      put(gap(), 3, out);
      out[3] = dot(z1, y2);
      out[4] = dot(z1, f2.x());
      out[5] = dot(f1.x(), y2);
      return;
    }
    case JointType::Distance: {
      const Scalar L = joint.length;
      const Vec3Jet separation = d();
      out[0] = (0.5 / L) * (dot(separation, separation) - Jet::constant(L * L));
      return;
    }
    case JointType::KnifeEdge: return;
  }
}

Jet driverEquation(const Model& model, const Driver& driver, const BodyMotion& m1, const BodyMotion& m2, Scalar t) {
  const Jet f = timeJet(driver.profile, t);
  const FrameJets f1 = frameJets(m1, 0, driver.first);
  const FrameJets f2 = frameJets(m2, 1, driver.second);
  const Vec3Jet d = f2.p - f1.p;
  const bool planar = model.dimension() == 2;
  switch (driver.target) {
    case DriverTarget::Distance: return sqrt(dot(d, d)) - f;
    case DriverTarget::JointTranslation: return dot(planar ? f1.x() : f1.z(), d) - f;
    case DriverTarget::JointRotation: {
      if (planar) {
        const Scalar a1 = driver.first.angle, a2 = driver.second.angle;  // unwrapped, as written
        const Jet theta = (planarAngleJet(m2, 1) + Jet::constant(a2)) - (planarAngleJet(m1, 0) + Jet::constant(a1));
        return theta - f;
      }
      const Vec3Jet x2 = f2.x();
      Jet residual = atan2(dot(f1.y(), x2), dot(f1.x(), x2)) - f;
      residual.val = wrapAngle(residual.val);
      return residual;
    }
  }
  return {};
}

}  // namespace loopdyn
