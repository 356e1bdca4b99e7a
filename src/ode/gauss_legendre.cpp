#include "loopdyn/ode/gauss_legendre.hpp"

#include <algorithm>
#include <cmath>

namespace loopdyn::ode {

namespace {

constexpr int s = GaussLegendreStep::kStages;

/// The method's tables: nodes, and for each j the coefficients (in powers of theta) of
/// L_j(theta) = int_0^theta l_j, so that a_ij = L_j(c_i) and b_j = L_j(1).
struct Tables {
  std::array<Scalar, s> c{};
  std::array<std::array<Scalar, s + 1>, s> L{};  // L[j][k]: coefficient of theta^k
  std::array<std::array<Scalar, s>, s> a{};
  std::array<Scalar, s> b{};

  Tables() {
    // zeros of P_4 on [-1, 1]: +-sqrt(3/7 -+ 2/7 sqrt(6/5)), mapped to (0, 1)
    const Scalar inner = std::sqrt(3.0 / 7 - 2.0 / 7 * std::sqrt(6.0 / 5));
    const Scalar outer = std::sqrt(3.0 / 7 + 2.0 / 7 * std::sqrt(6.0 / 5));
    c = {(1 - outer) / 2, (1 - inner) / 2, (1 + inner) / 2, (1 + outer) / 2};
    for (int j = 0; j < s; ++j) {
      // l_j(t) = prod_{m != j} (t - c_m) / (c_j - c_m), expanded in powers of t
      std::array<Scalar, s> poly{};
      poly[0] = 1;
      int degree = 0;
      Scalar denominator = 1;
      for (int m = 0; m < s; ++m) {
        if (m == j) continue;
        for (int k = degree + 1; k >= 1; --k) poly[static_cast<std::size_t>(k)] = poly[static_cast<std::size_t>(k - 1)] - c[static_cast<std::size_t>(m)] * poly[static_cast<std::size_t>(k)];
        poly[0] *= -c[static_cast<std::size_t>(m)];
        ++degree;
        denominator *= c[static_cast<std::size_t>(j)] - c[static_cast<std::size_t>(m)];
      }
      L[static_cast<std::size_t>(j)][0] = 0;
      for (int k = 0; k < s; ++k)
        L[static_cast<std::size_t>(j)][static_cast<std::size_t>(k + 1)] = poly[static_cast<std::size_t>(k)] / (denominator * (k + 1));
    }
    for (int j = 0; j < s; ++j) {
      b[static_cast<std::size_t>(j)] = integral(j, 1);
      for (int i = 0; i < s; ++i) a[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = integral(j, c[static_cast<std::size_t>(i)]);
    }
  }

  /// l_j(theta) = L_j'(theta).
  Scalar lagrange(int j, Scalar theta) const {
    Scalar value = 0;
    for (int k = s; k >= 1; --k) value = value * theta + k * L[static_cast<std::size_t>(j)][static_cast<std::size_t>(k)];
    return value;
  }

  Scalar integral(int j, Scalar theta) const {
    Scalar value = 0;
    for (int k = s; k >= 0; --k) value = value * theta + L[static_cast<std::size_t>(j)][static_cast<std::size_t>(k)];
    return value;
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

const std::array<Scalar, GaussLegendreStep::kStages>& GaussLegendreStep::nodes() { return tables().c; }

Scalar GaussLegendreStep::middleGapHalfWidth() { return (tables().c[2] - tables().c[1]) / 2; }

GaussLegendreStep::GaussLegendreStep(int size) : y0_(size), Y_(size) {
  for (VecX& k : K_) k.resize(size);
  for (VecX& k : K_next_) k.resize(size);
}

std::string GaussLegendreStep::step(const Rhs& f, Scalar t0, const VecX& y0, Scalar h, VecX& y1, Scalar tolerance,
                                    Scalar stall_level, int max_iterations, const Derivative& guess) {
  const Tables& T = tables();
  y0_ = y0;
  h_ = h;
  iterations_ = evaluations_ = 0;
  if (guess) {
    for (int i = 0; i < s; ++i) guess(t0 + T.c[static_cast<std::size_t>(i)] * h, K_[static_cast<std::size_t>(i)]);
  } else {
    // start from the derivative at y0 for every stage (a straight line through y0)
    if (f(t0, y0.data(), K_[0].data()) != 0) return "the equations of motion could not be evaluated at the start";
    ++evaluations_;
    for (int i = 1; i < s; ++i) K_[static_cast<std::size_t>(i)] = K_[0];
  }
  Scalar change = 0, previous_change = 0;
  bool stalled = false;
  for (iterations_ = 1; iterations_ <= max_iterations; ++iterations_) {
    previous_change = change;
    change = 0;
    for (int i = 0; i < s; ++i) {
      Y_ = y0;
      for (int j = 0; j < s; ++j) Y_ += (h * T.a[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]) * K_[static_cast<std::size_t>(j)];
      if (f(t0 + T.c[static_cast<std::size_t>(i)] * h, Y_.data(), K_next_[static_cast<std::size_t>(i)].data()) != 0)
        return "the equations of motion could not be evaluated at a collocation node";
      ++evaluations_;
    }
    for (int i = 0; i < s; ++i) {
      const auto k = static_cast<std::size_t>(i);
      change = std::max(change, (K_next_[k] - K_[k]).norm() / (1 + K_next_[k].norm()));
      K_[k].swap(K_next_[k]);
    }
    // converged, or stalled at the rounding level of f (no longer falling)
    stalled = iterations_ > 2 && change < stall_level && change > 0.9 * previous_change;
    if (change <= tolerance || stalled) break;
  }
  if (change > tolerance && !stalled)
    return "the collocation iteration did not converge (change " + std::to_string(change) + " after " +
           std::to_string(max_iterations) + " iterations)";
  interpolate(1, y1);
  return {};
}

void GaussLegendreStep::derivative(Scalar theta, VecX& dy) const {
  const Tables& T = tables();
  dy.setZero(y0_.size());
  for (int j = 0; j < s; ++j) dy += T.lagrange(j, theta) * K_[static_cast<std::size_t>(j)];
}

void GaussLegendreStep::interpolate(Scalar theta, VecX& y) const {
  const Tables& T = tables();
  y = y0_;
  for (int j = 0; j < s; ++j) y += (h_ * T.integral(j, theta)) * K_[static_cast<std::size_t>(j)];
}

}  // namespace loopdyn::ode
