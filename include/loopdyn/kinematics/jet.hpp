#pragma once
/// Jets: a quantity together with its exact derivatives along the motion of two bodies.
///
/// For a constraint between bodies 1 and 2, take the path on which both keep their velocities
/// (v, w) constant (in world components) while time advances at unit rate. A jet carries
///   val   the value now,
///   grad  d(val)/d(velocity) as a row over both bodies' velocity columns: [v1 w1 v2 w2] (12
///         columns) in space, [vx1 vy1 wz1 vx2 vy2 wz2] (6) in the plane,
///   dot   the first time derivative along the path, grad * velocities + partial_t,
///   ddot  the second time derivative along the path.
/// Because the generalized acceleration is zero on that path, a holonomic equation Phi gives
/// the row of C = Phi_q (grad), Phi_t = dot - grad*v, and Gamma = -ddot (paper 001, eq. (9)).
/// Each constraint is therefore written once, as a function of marker points and axes.
///
/// The dimension D of a jet is the model's: planar jets carry 2-vectors and 6 columns, so a
/// planar equation costs what the plane needs (the double four-bar's constraint evaluation, with
/// the scatter into C: 6.7k -> 4.6k instructions). They do the spatial jets' arithmetic on the
/// in-plane entries alone (the others are zero there, and adding an exact zero changes no bit):
/// planar models simulate to the same bits as when their equations were spatial jets, and the
/// divide-and-conquer formulations read them widened to 12 columns (`widened`).
///
/// A rate jet (Rates = true) also carries grad_rate = d(grad)/dt along the same path, the row of
/// C_dot = dC/dt along the motion (exact: no finite differences), at about a third more
/// arithmetic; a jet without rates carries none (NoRate takes no room) and is what the right-hand
/// sides use.

#include <cmath>
#include <type_traits>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {

/// Velocity columns of one body in a jet: (vx, vy, wz) in the plane, (v, w) in space.
template <int D>
inline constexpr int kJetBodyColumns = D == 2 ? 3 : 6;
inline constexpr int kJetColumns = 2 * kJetBodyColumns<3>;
template <int D>
using BasicJetRow = Eigen::Matrix<Scalar, 1, 2 * kJetBodyColumns<D>>;
template <int D>
using BasicJetBlock = Eigen::Matrix<Scalar, D, 2 * kJetBodyColumns<D>>;
template <int D>
using JetVec = Eigen::Matrix<Scalar, D, 1>;
using JetRow = BasicJetRow<3>;
using JetBlock = BasicJetBlock<3>;

/// What a jet without rates carries in place of grad_rate: nothing.
struct NoRate {};

/// A scalar jet. With Rates, also
///   grad_rate  d(grad)/dt along the same path: for a holonomic equation the row of C_dot, the
///              rate of C along the motion (the projection's continuation, paper 004, needs
///              C_dot T).
template <bool Rates, int D = 3>
struct BasicJet {
  using Row = BasicJetRow<D>;
  using RateRow = std::conditional_t<Rates, Row, NoRate>;
  Scalar val = 0;
  Row grad = Row::Zero();
  Scalar dot = 0;
  Scalar ddot = 0;
  [[no_unique_address]] RateRow grad_rate = zeroRate();

  static BasicJet constant(Scalar c) { return BasicJet{c, Row::Zero(), 0, 0}; }
  static RateRow zeroRate() {
    if constexpr (Rates) return Row::Zero();
    else return {};
  }
};
using Jet = BasicJet<false>;
using RateJet = BasicJet<true>;

/// A vector jet (world components: 3 in space, the 2 in-plane ones in the plane).
template <bool Rates, int D = 3>
struct BasicVecJet {
  using Block = BasicJetBlock<D>;
  using RateBlock = std::conditional_t<Rates, Block, NoRate>;
  JetVec<D> val = JetVec<D>::Zero();
  Block grad = Block::Zero();
  JetVec<D> dot = JetVec<D>::Zero();
  JetVec<D> ddot = JetVec<D>::Zero();
  [[no_unique_address]] RateBlock grad_rate = zeroRate();

  static RateBlock zeroRate() {
    if constexpr (Rates) return Block::Zero();
    else return {};
  }
  BasicJet<Rates, D> operator[](int i) const {
    BasicJet<Rates, D> out{val(i), grad.row(i), dot(i), ddot(i)};
    if constexpr (Rates) out.grad_rate = grad_rate.row(i);
    return out;
  }
};
template <bool Rates>
using BasicVec3Jet = BasicVecJet<Rates, 3>;
using Vec3Jet = BasicVec3Jet<false>;

template <bool R, int D>
BasicJet<R, D> operator+(const BasicJet<R, D>& a, const BasicJet<R, D>& b) {
  BasicJet<R, D> out{a.val + b.val, a.grad + b.grad, a.dot + b.dot, a.ddot + b.ddot};
  if constexpr (R) out.grad_rate = a.grad_rate + b.grad_rate;
  return out;
}
template <bool R, int D>
BasicJet<R, D> operator-(const BasicJet<R, D>& a, const BasicJet<R, D>& b) {
  BasicJet<R, D> out{a.val - b.val, a.grad - b.grad, a.dot - b.dot, a.ddot - b.ddot};
  if constexpr (R) out.grad_rate = a.grad_rate - b.grad_rate;
  return out;
}
template <bool R, int D>
BasicJet<R, D> operator*(Scalar s, const BasicJet<R, D>& a) {
  BasicJet<R, D> out{s * a.val, s * a.grad, s * a.dot, s * a.ddot};
  if constexpr (R) out.grad_rate = s * a.grad_rate;
  return out;
}
template <bool R, int D>
BasicJet<R, D> operator*(const BasicJet<R, D>& a, const BasicJet<R, D>& b) {
  BasicJet<R, D> out{a.val * b.val, a.val * b.grad + b.val * a.grad, a.dot * b.val + a.val * b.dot,
                     a.ddot * b.val + 2 * a.dot * b.dot + a.val * b.ddot};
  if constexpr (R) out.grad_rate = a.dot * b.grad + a.val * b.grad_rate + b.dot * a.grad + b.val * a.grad_rate;
  return out;
}
template <bool R, int D>
BasicVecJet<R, D> operator-(const BasicVecJet<R, D>& a, const BasicVecJet<R, D>& b) {
  BasicVecJet<R, D> out{a.val - b.val, a.grad - b.grad, a.dot - b.dot, a.ddot - b.ddot};
  if constexpr (R) out.grad_rate = a.grad_rate - b.grad_rate;
  return out;
}

/// a . b
template <bool R, int D>
BasicJet<R, D> dot(const BasicVecJet<R, D>& a, const BasicVecJet<R, D>& b) {
  BasicJet<R, D> out{a.val.dot(b.val), b.val.transpose() * a.grad + a.val.transpose() * b.grad,
                     a.dot.dot(b.val) + a.val.dot(b.dot), a.ddot.dot(b.val) + 2 * a.dot.dot(b.dot) + a.val.dot(b.ddot)};
  if constexpr (R)
    out.grad_rate = b.dot.transpose() * a.grad + b.val.transpose() * a.grad_rate + a.dot.transpose() * b.grad +
                    a.val.transpose() * b.grad_rate;
  return out;
}

/// atan2(s, c) with derivatives (rho = s^2 + c^2 must be nonzero).
template <bool R, int D>
BasicJet<R, D> atan2(const BasicJet<R, D>& s, const BasicJet<R, D>& c) {
  const Scalar rho = s.val * s.val + c.val * c.val;
  const Scalar num_dot = c.val * s.dot - s.val * c.dot;  // rho * d(angle)/dt
  const Scalar rho_dot = 2 * (s.val * s.dot + c.val * c.dot);
  BasicJet<R, D> out{std::atan2(s.val, c.val), (c.val * s.grad - s.val * c.grad) / rho, num_dot / rho,
                     ((c.val * s.ddot - s.val * c.ddot) * rho - num_dot * rho_dot) / (rho * rho)};
  if constexpr (R) {
    // d/dt of grad = g / rho with g = c s.grad - s c.grad
    const BasicJetRow<D> g = c.val * s.grad - s.val * c.grad;
    const BasicJetRow<D> g_rate = c.dot * s.grad + c.val * s.grad_rate - s.dot * c.grad - s.val * c.grad_rate;
    out.grad_rate = (g_rate * rho - g * rho_dot) / (rho * rho);
  }
  return out;
}

/// sqrt(a) for a > 0.
template <bool R, int D>
BasicJet<R, D> sqrt(const BasicJet<R, D>& a) {
  const Scalar r = std::sqrt(a.val);
  BasicJet<R, D> out{r, a.grad / (2 * r), a.dot / (2 * r), a.ddot / (2 * r) - a.dot * a.dot / (4 * r * r * r)};
  if constexpr (R) out.grad_rate = a.grad_rate / (2 * r) - a.grad * (a.dot / (4 * r * r * r));  // r' = a' / 2r
  return out;
}

/// w x u for the angular velocity w of a body: in the plane (w along z, u in the plane), the
/// in-plane components of the spatial cross product, (0 - w_z u_y, w_z u_x) (as the spatial one
/// forms them: at rest +0, not -0).
template <int D>
JetVec<D> turned(const BodyMotion& m, const JetVec<D>& u) {
  if constexpr (D == 2) return JetVec<2>(0.0 - m.w.z() * u.y(), m.w.z() * u.x());
  else return m.w.cross(u);
}

/// R s for body components s: in the plane, the in-plane rotation of s's in-plane components.
template <int D>
JetVec<D> toWorld(const BodyMotion& m, const Vec3& s) {
  if constexpr (D == 2) return m.R.topLeftCorner<2, 2>() * s.head<2>();
  else return m.R * s;
}

/// Writes d(u)/d(w) = -skew(u) (u = R a, a body-fixed vector) into the angular columns of `slot`:
/// in the plane the w_z column alone, (-u_y, u_x).
template <int D>
void putTurnGradient(BasicJetBlock<D>& grad, int slot, const JetVec<D>& u) {
  if constexpr (D == 2) {
    grad(0, 3 * slot + 2) = -u.y();
    grad(1, 3 * slot + 2) = u.x();
  } else {
    grad.template block<3, 3>(0, 6 * slot + 3) = -skew(u);
  }
}

/// The body-fixed point with body coordinates s on the body in slot k (0 or 1).
template <bool R = false, int D = 3>
BasicVecJet<R, D> pointJet(const BodyMotion& m, int slot, const Vec3& s) {
  BasicVecJet<R, D> p;
  const JetVec<D> Rs = toWorld<D>(m, s);
  p.val = m.r.template head<D>() + Rs;
  if (m.ground) return p;
  p.grad.template block<D, D>(0, kJetBodyColumns<D> * slot).setIdentity();
  putTurnGradient<D>(p.grad, slot, Rs);
  const JetVec<D> Rs_dot = turned<D>(m, Rs);
  p.dot = m.v.template head<D>() + Rs_dot;
  p.ddot = turned<D>(m, Rs_dot);
  if constexpr (R) putTurnGradient<D>(p.grad_rate, slot, Rs_dot);
  return p;
}

/// The body-fixed direction with body components a on the body in slot k.
template <bool R = false, int D = 3>
BasicVecJet<R, D> axisJet(const BodyMotion& m, int slot, const Vec3& a) {
  BasicVecJet<R, D> u;
  u.val = toWorld<D>(m, a);
  if (m.ground) return u;
  putTurnGradient<D>(u.grad, slot, u.val);
  u.dot = turned<D>(m, u.val);
  u.ddot = turned<D>(m, u.dot);
  if constexpr (R) putTurnGradient<D>(u.grad_rate, slot, u.dot);
  return u;
}

/// The planar angle coordinate phi of the body in slot k (unwrapped; planar models only); its
/// gradient is constant.
template <bool R = false, int D = 3>
BasicJet<R, D> planarAngleJet(const BodyMotion& m, int slot) {
  BasicJet<R, D> a;
  a.val = m.phi;
  if (m.ground) return a;
  a.grad(kJetBodyColumns<D> * slot + kJetBodyColumns<D> - 1) = 1;
  a.dot = m.w.z();
  return a;
}

/// A planar jet as the spatial jet of the same equation: its columns at (vx, vy, wz) of each
/// body, zero at (vz, wx, wy).
template <bool R>
BasicJet<R> widened(const BasicJet<R, 2>& a) {
  static constexpr int kSpatial[6] = {0, 1, 5, 6, 7, 11};
  BasicJet<R> out{a.val, JetRow::Zero(), a.dot, a.ddot};
  for (int k = 0; k < 6; ++k) out.grad(kSpatial[k]) = a.grad(k);
  if constexpr (R)
    for (int k = 0; k < 6; ++k) out.grad_rate(kSpatial[k]) = a.grad_rate(k);
  return out;
}

}  // namespace loopdyn
