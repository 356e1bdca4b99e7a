#pragma once
/// Jets: a quantity together with its exact derivatives along the motion of two bodies.
///
/// For a constraint between bodies 1 and 2, take the path on which both keep their velocities
/// (v, w) constant (in world components) while time advances at unit rate. A jet carries
///   val   the value now,
///   grad  d(val)/d(velocity) as a row over [v1 w1 v2 w2] (12 columns; planar models use the
///         columns vx, vy, wz of each body),
///   dot   the first time derivative along the path, grad * velocities + partial_t,
///   ddot  the second time derivative along the path.
/// Because the generalized acceleration is zero on that path, a holonomic equation Phi gives
/// the row of C = Phi_q (grad), Phi_t = dot - grad*v, and Gamma = -ddot (paper 001, eq. (9)).
/// Each constraint is therefore written once, as a function of marker points and axes.

#include <cmath>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {

inline constexpr int kJetColumns = 12;
using JetRow = Eigen::Matrix<Scalar, 1, kJetColumns>;
using JetBlock = Eigen::Matrix<Scalar, 3, kJetColumns>;

/// A scalar jet.
struct Jet {
  Scalar val = 0;
  JetRow grad = JetRow::Zero();
  Scalar dot = 0;
  Scalar ddot = 0;

  static Jet constant(Scalar c) { return Jet{c, JetRow::Zero(), 0, 0}; }
};

/// A 3-vector jet (world components).
struct Vec3Jet {
  Vec3 val = Vec3::Zero();
  JetBlock grad = JetBlock::Zero();
  Vec3 dot = Vec3::Zero();
  Vec3 ddot = Vec3::Zero();

  Jet operator[](int i) const { return Jet{val(i), grad.row(i), dot(i), ddot(i)}; }
};

inline Jet operator+(const Jet& a, const Jet& b) { return {a.val + b.val, a.grad + b.grad, a.dot + b.dot, a.ddot + b.ddot}; }
inline Jet operator-(const Jet& a, const Jet& b) { return {a.val - b.val, a.grad - b.grad, a.dot - b.dot, a.ddot - b.ddot}; }
inline Jet operator*(Scalar s, const Jet& a) { return {s * a.val, s * a.grad, s * a.dot, s * a.ddot}; }
inline Jet operator*(const Jet& a, const Jet& b) {
  return {a.val * b.val, a.val * b.grad + b.val * a.grad, a.dot * b.val + a.val * b.dot,
          a.ddot * b.val + 2 * a.dot * b.dot + a.val * b.ddot};
}
inline Vec3Jet operator-(const Vec3Jet& a, const Vec3Jet& b) {
  return {a.val - b.val, a.grad - b.grad, a.dot - b.dot, a.ddot - b.ddot};
}

/// a . b
inline Jet dot(const Vec3Jet& a, const Vec3Jet& b) {
  return {a.val.dot(b.val), b.val.transpose() * a.grad + a.val.transpose() * b.grad,
          a.dot.dot(b.val) + a.val.dot(b.dot), a.ddot.dot(b.val) + 2 * a.dot.dot(b.dot) + a.val.dot(b.ddot)};
}

/// atan2(s, c) with derivatives (rho = s^2 + c^2 must be nonzero).
inline Jet atan2(const Jet& s, const Jet& c) {
  const Scalar rho = s.val * s.val + c.val * c.val;
  const Scalar num_dot = c.val * s.dot - s.val * c.dot;  // rho * d(angle)/dt
  const Scalar rho_dot = 2 * (s.val * s.dot + c.val * c.dot);
  return {std::atan2(s.val, c.val), (c.val * s.grad - s.val * c.grad) / rho, num_dot / rho,
          ((c.val * s.ddot - s.val * c.ddot) * rho - num_dot * rho_dot) / (rho * rho)};
}

/// sqrt(a) for a > 0.
inline Jet sqrt(const Jet& a) {
  const Scalar r = std::sqrt(a.val);
  return {r, a.grad / (2 * r), a.dot / (2 * r), a.ddot / (2 * r) - a.dot * a.dot / (4 * r * r * r)};
}

/// The body-fixed point with body coordinates s on the body in slot k (0 or 1).
inline Vec3Jet pointJet(const BodyMotion& m, int slot, const Vec3& s) {
  Vec3Jet p;
  const Vec3 Rs = m.R * s;
  p.val = m.r + Rs;
  if (m.ground) return p;
  p.grad.block<3, 3>(0, 6 * slot).setIdentity();
  p.grad.block<3, 3>(0, 6 * slot + 3) = -skew(Rs);
  p.dot = m.v + m.w.cross(Rs);
  p.ddot = m.w.cross(m.w.cross(Rs));
  return p;
}

/// The body-fixed direction with body components a on the body in slot k.
inline Vec3Jet axisJet(const BodyMotion& m, int slot, const Vec3& a) {
  Vec3Jet u;
  u.val = m.R * a;
  if (m.ground) return u;
  u.grad.block<3, 3>(0, 6 * slot + 3) = -skew(u.val);
  u.dot = m.w.cross(u.val);
  u.ddot = m.w.cross(u.dot);
  return u;
}

/// The planar angle coordinate phi of the body in slot k (unwrapped; planar models only).
inline Jet planarAngleJet(const BodyMotion& m, int slot) {
  Jet a;
  a.val = m.phi;
  if (m.ground) return a;
  a.grad(6 * slot + 5) = 1;
  a.dot = m.w.z();
  return a;
}

}  // namespace loopdyn
