#pragma once
/// Adaptive and fixed-step ODE integration over SUNDIALS, one internal step at a time, with dense
/// output inside the last step and a reset for states changed between steps (projection).
///
///   dopri5  ARKODE explicit Dormand-Prince 5(4), 7 stages, FSAL (like MATLAB's ode45)
///   bs23    ARKODE explicit Bogacki-Shampine 3(2), 4 stages (like ode23)
///   adams   CVODE variable-order Adams-Moulton, orders 1-12, fixed-point corrector (like ode113)
///   dop853  Dormand and Prince's explicit 8(5,3) pair with a 7th-order dense output, 12 stages
///           (like ode89; loopdyn's own, ode/dop853.hpp): for tight tolerances
///   rk4     the classical Runge-Kutta method, 4 stages, fixed step (Options::fixed_step), no
///           error control: for benchmarks and step-size studies
///
/// Error control is SUNDIALS': the weighted RMS norm of the local error estimate with weights
/// 1 / (rtol min(|y_i|, cap_i) + atol) must not exceed 1. The caps (Options::magnitude_cap) are for
/// components whose size means nothing beyond a period: an unwrapped angle of 30 rad is no larger
/// than one of 30 - 8 pi, and a relative tolerance on it would let its error grow with the turns.
/// A caller whose components stand for other quantities (joint coordinates for the bodies' poses)
/// supplies the weights itself (Options::error_weights).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "loopdyn/common/types.hpp"

namespace loopdyn::ode {

enum class Method { Dopri5, Bs23, Adams, Rk4, Dop853 };

std::string_view methodName(Method method);
std::optional<Method> methodFromName(std::string_view name);

struct Options {
  Scalar rtol = 1e-8;
  Scalar atol = 1e-10;
  Scalar max_step = 0;      ///< 0: no limit
  Scalar fixed_step = 0;    ///< rk4's step size
  /// Smallest step before the integrator gives up (a step-size collapse); 0: SUNDIALS' default.
  Scalar min_step = 0;
  /// Accepted steps before a simulation gives up (enforced by the caller's loop).
  long max_steps = 1'000'000;
  /// Per component, the largest magnitude the relative tolerance applies to (empty: none).
  VecX magnitude_cap;
  /// When set, the weights at y replace the formula above (every component, all positive).
  std::function<void(const Scalar* y, Scalar* weights)> error_weights;
};

struct Statistics {
  long steps = 0;            ///< accepted steps
  long rejected_steps = 0;   ///< error-test failures (and corrector failures for adams)
  long rhs_evaluations = 0;
};

/// The right-hand side ydot = f(t, y). Returns 0 on success, a positive value when the step
/// should be retried smaller, a negative value to stop (the integrator reports it).
using Rhs = std::function<int(Scalar t, const Scalar* y, Scalar* ydot)>;

/// Why a step failed (StepResult::failure).
enum class StepFailure {
  None,
  EquationsFailed,      ///< the right-hand side could not be evaluated (it returned failure)
  ErrorTestFailures,    ///< step size too small: repeated error-test failures
  CorrectorFailures,    ///< step size too small: the corrector does not converge (adams)
  TooMuchWork,          ///< SUNDIALS' step limit inside one call
  AccuracyUnreachable,  ///< the requested accuracy cannot be reached
  ErrorNotFinite,       ///< the error estimate is NaN or infinite (dop853)
  SolverError,          ///< another SUNDIALS flag (StepResult::flag)
};

/// "equations-failed", ...: the failure as a key (a library user's log; the front ends' words
/// are reports/failure_text's).
const char* stepFailureName(StepFailure failure);

/// What a call to step() did.
struct StepResult {
  bool ok = true;
  StepFailure failure = StepFailure::None;  ///< on failure: why
  Scalar t = 0;   ///< on failure: the time reached
  int flag = 0;   ///< SolverError: SUNDIALS' flag
};

class Dop853;

class Integrator {
 public:
  Integrator(Method method, Rhs rhs, Scalar t0, const VecX& y0, const Options& options);
  ~Integrator();
  Integrator(const Integrator&) = delete;
  Integrator& operator=(const Integrator&) = delete;

  /// One internal step, never past t_stop.
  StepResult step(Scalar t_stop);
  /// Time and state after the last step (or reset).
  Scalar time() const { return t_; }
  const VecX& state() const { return y_; }
  /// The solution at t inside the last step, from the method's dense output (dop853 evaluates
  /// its three extra stages at the first call after a step).
  void interpolate(Scalar t, VecX& y) const;
  /// Continue from (t, y) instead of the current state (after a projection): the step size is
  /// kept for the Runge-Kutta methods; Adams restarts at order 1.
  void reset(Scalar t, const VecX& y);
  Statistics statistics() const;
  Method method() const { return method_; }
  /// The step size the integrator will try next.
  Scalar nextStepSize() const;
  /// SUNDIALS' error weights for y (see the header); called through the C interface.
  void errorWeights(const Scalar* y, Scalar* weights) const;

 private:
  struct Sundials;
  Method method_;
  Rhs rhs_;
  Scalar t_ = 0;
  VecX y_;
  Statistics carried_;  ///< adams: counts from before the last reset
  Scalar rtol_ = 0, atol_ = 0;
  VecX cap_;
  std::function<void(const Scalar*, Scalar*)> error_weights_;
  std::unique_ptr<Sundials> s_;
  std::unique_ptr<Dop853> dop853_;  ///< the method not taken from SUNDIALS
};

}  // namespace loopdyn::ode
