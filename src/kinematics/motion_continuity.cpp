#include "loopdyn/kinematics/motion_continuity.hpp"

#include <algorithm>

namespace loopdyn {

namespace {

/// A body point's position, velocity and acceleration.
struct PointMotion {
  Vec3 p, v, a;
};

/// Body b's linear and angular accelerations (world frame) from the absolute accelerations a.
void bodyAcceleration(const Model& model, const VecX& a, BodyIndex b, Vec3& linear, Vec3& angular) {
  const Eigen::Index k = static_cast<Eigen::Index>(b) * model.vPerBody();
  if (model.dimension() == 2) {
    linear = Vec3(a(k), a(k + 1), 0);
    angular = Vec3(0, 0, a(k + 2));
  } else {
    linear = a.segment<3>(k);
    angular = a.segment<3>(k + 3);
  }
}

/// The point at s (world-frame offset from the origin) of a body moving with m and accelerations:
/// p = r + s, p' = v + w x s, p'' = a + alpha x s + w x (w x s).
PointMotion pointMotion(const BodyMotion& m, const Vec3& linear, const Vec3& angular, const Vec3& s) {
  return {m.r + s, m.v + m.w.cross(s), linear + angular.cross(s) + m.w.cross(m.w.cross(s))};
}

}  // namespace

ContinuityMiss continuityMiss(const Model& model, const State& x0, const VecX& a0, const State& x1, const VecX& a1) {
  const Scalar h = x1.t - x0.t, L = model.characteristicLength();
  ContinuityMiss out;
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const BodyMotion m0 = bodyMotion(model, x0.q, x0.v, b), m1 = bodyMotion(model, x1.q, x1.v, b);
    Vec3 lin0, ang0, lin1, ang1;
    bodyAcceleration(model, a0, b, lin0, ang0);
    bodyAcceleration(model, a1, b, lin1, ang1);
    for (int axis = -1; axis < model.dimension(); ++axis) {  // (-1: the origin)
      const Vec3 s0 = axis < 0 ? Vec3::Zero() : Vec3(L * m0.R.col(axis));
      const Vec3 s1 = axis < 0 ? Vec3::Zero() : Vec3(L * m1.R.col(axis));
      const PointMotion p0 = pointMotion(m0, lin0, ang0, s0), p1 = pointMotion(m1, lin1, ang1, s1);
      const Vec3 step = p1.p - p0.p;
      const Vec3 rule = h / 2 * (p0.v + p1.v) + h * h / 12 * (p0.a - p1.a);
      out.miss = std::max(out.miss, (step - rule).norm());
      out.step = std::max(out.step, step.norm());
    }
  }
  return out;
}

}  // namespace loopdyn
