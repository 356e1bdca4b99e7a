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
///
/// A RateJet also carries grad_rate = d(grad)/dt along the same path, the row of C_dot = dC/dt
/// along the motion (exact: no finite differences), at about a third more arithmetic; Jet
/// carries none (NoRate takes no room) and is what the right-hand sides use.

#include <cmath>
#include <type_traits>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {

inline constexpr int kJetColumns = 12;
using JetRow = Eigen::Matrix<Scalar, 1, kJetColumns>;
using JetBlock = Eigen::Matrix<Scalar, 3, kJetColumns>;

/// What a jet without rates carries in place of grad_rate: nothing.
struct NoRate {};

/// A scalar jet. With Rates, also
///   grad_rate  d(grad)/dt along the same path: for a holonomic equation the row of C_dot, the
///              rate of C along the motion (the projection's continuation, paper 004, needs
///              C_dot T).
template <bool Rates>
struct BasicJet {
  using RateRow = std::conditional_t<Rates, JetRow, NoRate>;
  Scalar val = 0;
  JetRow grad = JetRow::Zero();
  Scalar dot = 0;
  Scalar ddot = 0;
  [[no_unique_address]] RateRow grad_rate = zeroRate();

  static BasicJet constant(Scalar c) { return BasicJet{c, JetRow::Zero(), 0, 0}; }
  static RateRow zeroRate() {
    if constexpr (Rates) return JetRow::Zero();
    else return {};
  }
};
using Jet = BasicJet<false>;
using RateJet = BasicJet<true>;

/// A 3-vector jet (world components).
template <bool Rates>
struct BasicVec3Jet {
  using RateBlock = std::conditional_t<Rates, JetBlock, NoRate>;
  Vec3 val = Vec3::Zero();
  JetBlock grad = JetBlock::Zero();
  Vec3 dot = Vec3::Zero();
  Vec3 ddot = Vec3::Zero();
  [[no_unique_address]] RateBlock grad_rate = zeroRate();

  static RateBlock zeroRate() {
    if constexpr (Rates) return JetBlock::Zero();
    else return {};
  }
  BasicJet<Rates> operator[](int i) const {
    BasicJet<Rates> out{val(i), grad.row(i), dot(i), ddot(i)};
    if constexpr (Rates) out.grad_rate = grad_rate.row(i);
    return out;
  }
};
using Vec3Jet = BasicVec3Jet<false>;

template <bool R>
BasicJet<R> operator+(const BasicJet<R>& a, const BasicJet<R>& b) {
  BasicJet<R> out{a.val + b.val, a.grad + b.grad, a.dot + b.dot, a.ddot + b.ddot};
  if constexpr (R) out.grad_rate = a.grad_rate + b.grad_rate;
  return out;
}
template <bool R>
BasicJet<R> operator-(const BasicJet<R>& a, const BasicJet<R>& b) {
  BasicJet<R> out{a.val - b.val, a.grad - b.grad, a.dot - b.dot, a.ddot - b.ddot};
  if constexpr (R) out.grad_rate = a.grad_rate - b.grad_rate;
  return out;
}
template <bool R>
BasicJet<R> operator*(Scalar s, const BasicJet<R>& a) {
  BasicJet<R> out{s * a.val, s * a.grad, s * a.dot, s * a.ddot};
  if constexpr (R) out.grad_rate = s * a.grad_rate;
  return out;
}
template <bool R>
BasicJet<R> operator*(const BasicJet<R>& a, const BasicJet<R>& b) {
  BasicJet<R> out{a.val * b.val, a.val * b.grad + b.val * a.grad, a.dot * b.val + a.val * b.dot,
                  a.ddot * b.val + 2 * a.dot * b.dot + a.val * b.ddot};
  if constexpr (R) out.grad_rate = a.dot * b.grad + a.val * b.grad_rate + b.dot * a.grad + b.val * a.grad_rate;
  return out;
}
template <bool R>
BasicVec3Jet<R> operator-(const BasicVec3Jet<R>& a, const BasicVec3Jet<R>& b) {
  BasicVec3Jet<R> out{a.val - b.val, a.grad - b.grad, a.dot - b.dot, a.ddot - b.ddot};
  if constexpr (R) out.grad_rate = a.grad_rate - b.grad_rate;
  return out;
}

/// a . b
template <bool R>
BasicJet<R> dot(const BasicVec3Jet<R>& a, const BasicVec3Jet<R>& b) {
  BasicJet<R> out{a.val.dot(b.val), b.val.transpose() * a.grad + a.val.transpose() * b.grad,
                  a.dot.dot(b.val) + a.val.dot(b.dot), a.ddot.dot(b.val) + 2 * a.dot.dot(b.dot) + a.val.dot(b.ddot)};
  if constexpr (R)
    out.grad_rate = b.dot.transpose() * a.grad + b.val.transpose() * a.grad_rate + a.dot.transpose() * b.grad +
                    a.val.transpose() * b.grad_rate;
  return out;
}

/// atan2(s, c) with derivatives (rho = s^2 + c^2 must be nonzero).
template <bool R>
BasicJet<R> atan2(const BasicJet<R>& s, const BasicJet<R>& c) {
  const Scalar rho = s.val * s.val + c.val * c.val;
  const Scalar num_dot = c.val * s.dot - s.val * c.dot;  // rho * d(angle)/dt
  const Scalar rho_dot = 2 * (s.val * s.dot + c.val * c.dot);
  BasicJet<R> out{std::atan2(s.val, c.val), (c.val * s.grad - s.val * c.grad) / rho, num_dot / rho,
                  ((c.val * s.ddot - s.val * c.ddot) * rho - num_dot * rho_dot) / (rho * rho)};
  if constexpr (R) {
    // d/dt of grad = g / rho with g = c s.grad - s c.grad
    const JetRow g = c.val * s.grad - s.val * c.grad;
    const JetRow g_rate = c.dot * s.grad + c.val * s.grad_rate - s.dot * c.grad - s.val * c.grad_rate;
    out.grad_rate = (g_rate * rho - g * rho_dot) / (rho * rho);
  }
  return out;
}

/// sqrt(a) for a > 0.
template <bool R>
BasicJet<R> sqrt(const BasicJet<R>& a) {
  const Scalar r = std::sqrt(a.val);
  BasicJet<R> out{r, a.grad / (2 * r), a.dot / (2 * r), a.ddot / (2 * r) - a.dot * a.dot / (4 * r * r * r)};
  if constexpr (R) out.grad_rate = a.grad_rate / (2 * r) - a.grad * (a.dot / (4 * r * r * r));  // r' = a' / 2r
  return out;
}

/// The body-fixed point with body coordinates s on the body in slot k (0 or 1).
template <bool R = false>
BasicVec3Jet<R> pointJet(const BodyMotion& m, int slot, const Vec3& s) {
  BasicVec3Jet<R> p;
  const Vec3 Rs = m.R * s;
  p.val = m.r + Rs;
  if (m.ground) return p;
  p.grad.template block<3, 3>(0, 6 * slot).setIdentity();
  p.grad.template block<3, 3>(0, 6 * slot + 3) = -skew(Rs);
  const Vec3 Rs_dot = m.w.cross(Rs);
  p.dot = m.v + Rs_dot;
  p.ddot = m.w.cross(Rs_dot);
  if constexpr (R) p.grad_rate.template block<3, 3>(0, 6 * slot + 3) = -skew(Rs_dot);
  return p;
}

/// The body-fixed direction with body components a on the body in slot k.
template <bool R = false>
BasicVec3Jet<R> axisJet(const BodyMotion& m, int slot, const Vec3& a) {
  BasicVec3Jet<R> u;
  u.val = m.R * a;
  if (m.ground) return u;
  u.grad.template block<3, 3>(0, 6 * slot + 3) = -skew(u.val);
  u.dot = m.w.cross(u.val);
  u.ddot = m.w.cross(u.dot);
  if constexpr (R) u.grad_rate.template block<3, 3>(0, 6 * slot + 3) = -skew(u.dot);
  return u;
}

/// The planar angle coordinate phi of the body in slot k (unwrapped; planar models only); its
/// gradient is constant.
template <bool R = false>
BasicJet<R> planarAngleJet(const BodyMotion& m, int slot) {
  BasicJet<R> a;
  a.val = m.phi;
  if (m.ground) return a;
  a.grad(6 * slot + 5) = 1;
  a.dot = m.w.z();
  return a;
}

}  // namespace loopdyn
