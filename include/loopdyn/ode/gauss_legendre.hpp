#pragma once
/// One step of Gauss-Legendre collocation (the implicit Runge-Kutta method of order 2s), solved by
/// fixed-point iteration, with its collocation polynomial as dense output.
///
///   Y_i = y0 + h sum_j a_ij K_j,  K_i = f(t0 + c_i h, Y_i),  y1 = y0 + h sum_j b_j K_j
///
/// with c_i the zeros of the shifted Legendre polynomial P_s(2c - 1), a_ij = int_0^{c_i} l_j and
/// b_j = int_0^1 l_j (l_j the Lagrange polynomials on the nodes; Hairer, Norsett and Wanner,
/// "Solving ODEs I", sect. II.7). Every node lies inside the step: the method never evaluates f at
/// its ends, and with s = 4 the middle gap (c_2, c_3) keeps every node at least 0.17 h away from
/// the step's midpoint. The simulation uses that to step over a singular configuration without
/// evaluating the equations of motion next to it (sim/simulation.hpp).
///
/// Fixed-point iteration converges for h |df/dy| below about 1: for the non-stiff mechanical
/// problems it is used on (h times the largest natural frequency well below 1) each iteration
/// gains roughly one digit.

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/ode/integrator.hpp"

namespace loopdyn::ode {

class GaussLegendreStep {
 public:
  static constexpr int kStages = 4;
  /// Nodes c_i in (0, 1), increasing.
  static const std::array<Scalar, kStages>& nodes();
  /// Half-width of the gap between the two middle nodes, relative to h: (c_3 - c_2) / 2.
  static Scalar middleGapHalfWidth();

  explicit GaussLegendreStep(int size);

  /// One step from (t0, y0) to t0 + h (h may be negative). Iterates until the stage derivatives
  /// change by less than `tolerance` (relative to their size), or stop falling (by less than 10 %
  /// an iteration) below `stall_level` (the rounding level of f reached), at most
  /// `max_iterations` times.
  /// The iteration starts from `guess`'s stage derivatives at the nodes where one is given (e.g. a
  /// step over part of an earlier one: its collocation polynomial's derivative), else from f at
  /// y0 for every stage.
  /// Returns "" on success, otherwise why not (f failed at a node, or no convergence).
  using Derivative = std::function<void(Scalar t, VecX& dy)>;
  std::string step(const Rhs& f, Scalar t0, const VecX& y0, Scalar h, VecX& y1, Scalar tolerance = 1e-14,
                   Scalar stall_level = 1e-9, int max_iterations = 60, const Derivative& guess = {});

  /// The collocation polynomial of the last step at t0 + theta h (theta in [0, 1]): order s there.
  void interpolate(Scalar theta, VecX& y) const;
  /// Its derivative with respect to time there (at the nodes: the stage derivatives).
  void derivative(Scalar theta, VecX& dy) const;
  /// Iterations the last step took.
  int iterations() const { return iterations_; }
  /// Right-hand sides the last step evaluated.
  int evaluations() const { return evaluations_; }

 private:
  std::array<VecX, kStages> K_, K_next_;
  VecX y0_, Y_;
  Scalar h_ = 0;
  int iterations_ = 0, evaluations_ = 0;
};

}  // namespace loopdyn::ode
