#pragma once
/// The explicit Runge-Kutta method of order 8 by Dormand and Prince with the step-size control and
/// the 7th-order dense output of Hairer's DOP853 (Hairer, Norsett, Wanner, Solving Ordinary
/// Differential Equations I, 2nd ed., sect. II.10; the coefficients are those published with it).
///
/// Twelve stages a step and one evaluation at the step's end, which is the next step's first stage
/// (12 right-hand sides an accepted step). The error estimate combines the embedded 5th- and
/// 3rd-order differences as DOP853 does,
///   err = |h| e5^2 / sqrt(n (e5^2 + 0.01 e3^2)),   e5, e3: weighted 2-norms of h^-1 times the differences,
/// with weights 1 / (atol + rtol min(max(|y0_i|, |y1_i|), cap_i)), and a step is accepted where
/// err <= 1; the next step is h 0.9 / err^(1/8) within [h / 3, 6 h], not larger after a rejection.
/// The dense output costs three more right-hand sides a step, computed only for steps
/// interpolated in.
///
/// SUNDIALS 6.4 has no 8th-order pair with a dense output of matching order: its Fehlberg 7(8)
/// propagates the 7th-order solution and its Hermite interpolants stop at degree 5 (measured on
/// the double four-bar, docs/performance.md). Like ode89 in MATLAB, this method is for tight
/// tolerances on smooth problems: at rtol 1e-10 it needs far fewer steps than dopri5.

#include <functional>
#include <string>

#include "loopdyn/common/types.hpp"
#include "loopdyn/ode/integrator.hpp"

namespace loopdyn::ode {

class Dop853 {
 public:
  Dop853(Rhs rhs, Scalar t0, const VecX& y0, const Options& options);

  /// One accepted step, never past t_stop.
  StepResult step(Scalar t_stop);
  Scalar time() const { return t_; }
  const VecX& state() const { return y_; }
  /// The 7th-order continuous extension inside the last step (computes its three extra stages once).
  void interpolate(Scalar t, VecX& y);
  /// Continue from (t, y): the next step size is kept, the first stage evaluated anew.
  void reset(Scalar t, const VecX& y);
  Scalar nextStepSize() const { return h_; }
  Statistics statistics() const { return stats_; }

 private:
  static constexpr int kStages = 12;
  /// the stages of the last step: k_[0..11] the method's, k_[12] f at its end, k_[13..15] the dense output's
  static constexpr int kAllStages = 16;

  /// f(t, y) into k: the right-hand side's status (0 ok, > 0 retry smaller, < 0 stop).
  int evaluate(Scalar t, const VecX& y, VecX& k);
  /// The weighted RMS norm's weights for a step from y0 to y1.
  void weights(const VecX& y0, const VecX& y1);
  /// Hairer and Wanner's starting step size (I, sect. II.4) from f at the start.
  Scalar initialStep(Scalar t_stop);
  /// The last step's interpolation coefficients (its extra stages evaluated).
  void prepareDenseOutput();

  Rhs rhs_;
  Scalar rtol_, atol_, max_step_, min_step_;
  VecX cap_;
  std::function<void(const Scalar*, Scalar*)> error_weights_;  ///< Options::error_weights
  Scalar t_ = 0, h_ = 0;
  VecX y_;
  bool first_stage_valid_ = false;  ///< k_[0] holds f(t_, y_)
  // the last accepted step, for the dense output
  Scalar t_old_ = 0, h_old_ = 0;
  VecX y_old_;
  bool interpolable_ = false;  ///< the last call accepted a step (and nothing was reset since)
  bool dense_ready_ = false;  ///< rcont_ holds its interpolation coefficients
  VecX k_[kAllStages];
  VecX y_stage_, y_new_, err5_, err3_, w_, w_end_;
  VecX rcont_[8];
  Statistics stats_;
};

}  // namespace loopdyn::ode
