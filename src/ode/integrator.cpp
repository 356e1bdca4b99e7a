#include "loopdyn/ode/integrator.hpp"

#include <arkode/arkode_arkstep.h>
#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <array>

#include "loopdyn/common/check.hpp"
#include "loopdyn/ode/dop853.hpp"

namespace loopdyn::ode {

namespace {

constexpr std::array<std::string_view, 5> kNames{"dopri5", "bs23", "adams", "rk4", "dop853"};

/// What SUNDIALS hands back to the callbacks.
struct Callbacks {
  const Rhs* rhs = nullptr;
  const Integrator* integrator = nullptr;
};

int rhsAdapter(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data) {
  const Rhs& rhs = *static_cast<const Callbacks*>(user_data)->rhs;
  return rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
}

int weightAdapter(N_Vector y, N_Vector weights, void* user_data) {
  static_cast<const Callbacks*>(user_data)->integrator->errorWeights(N_VGetArrayPointer(y),
                                                                      N_VGetArrayPointer(weights));
  return 0;
}

/// SUNDIALS messages are not printed (a library does not print); failures come back as flags and
/// are codes (failedStep).
void silent(int /*error_code*/, const char* /*module*/, const char* /*function*/, char* /*msg*/, void* /*data*/) {}

StepResult failedStep(int flag, Scalar t) {
  StepResult r;
  r.ok = false;
  r.t = t;
  switch (flag) {
    case ARK_TOO_MUCH_WORK: r.failure = StepFailure::TooMuchWork; break;
    case ARK_TOO_MUCH_ACC: r.failure = StepFailure::AccuracyUnreachable; break;
    case ARK_ERR_FAILURE: r.failure = StepFailure::ErrorTestFailures; break;
    case ARK_CONV_FAILURE: r.failure = StepFailure::CorrectorFailures; break;
    case ARK_RHSFUNC_FAIL:
    case ARK_UNREC_RHSFUNC_ERR:
    case ARK_REPTD_RHSFUNC_ERR: r.failure = StepFailure::EquationsFailed; break;
    default:
      r.failure = StepFailure::SolverError;
      r.flag = flag;
      break;
  }
  return r;
}

}  // namespace

const char* stepFailureName(StepFailure failure) {
  switch (failure) {
    case StepFailure::None: return "none";
    case StepFailure::EquationsFailed: return "equations-failed";
    case StepFailure::ErrorTestFailures: return "error-test-failures";
    case StepFailure::CorrectorFailures: return "corrector-failures";
    case StepFailure::TooMuchWork: return "too-much-work";
    case StepFailure::AccuracyUnreachable: return "accuracy-unreachable";
    case StepFailure::ErrorNotFinite: return "error-not-finite";
    case StepFailure::SolverError: return "solver-error";
  }
  return "none";
}

std::string_view methodName(Method method) { return kNames[static_cast<std::size_t>(method)]; }

std::optional<Method> methodFromName(std::string_view name) {
  for (std::size_t k = 0; k < kNames.size(); ++k)
    if (kNames[k] == name) return static_cast<Method>(k);
  return std::nullopt;
}

/// SUNDIALS objects: context, vectors wrapping our memory, the integrator's memory.
struct Integrator::Sundials {
  explicit Sundials(Method m) : method(m) {}
  Method method;
  SUNContext context = nullptr;
  N_Vector y = nullptr, dky = nullptr;
  void* memory = nullptr;
  Callbacks callbacks;
  SUNNonlinearSolver corrector = nullptr;  // adams
  ARKodeButcherTable table = nullptr;      // rk4

  ~Sundials() {
    if (memory != nullptr) {
      void* m = memory;
      switch (method) {
        case Method::Adams: CVodeFree(&m); break;
        case Method::Rk4: ARKStepFree(&m); break;
        default: ERKStepFree(&m); break;
      }
    }
    if (table != nullptr) ARKodeButcherTable_Free(table);
    if (corrector != nullptr) SUNNonlinSolFree(corrector);
    if (y != nullptr) N_VDestroy(y);
    if (dky != nullptr) N_VDestroy(dky);
    if (context != nullptr) SUNContext_Free(&context);
  }
};

Integrator::Integrator(Method method, Rhs rhs, Scalar t0, const VecX& y0, const Options& options)
    : method_(method),
      rhs_(std::move(rhs)),
      t_(t0),
      y_(y0),
      rtol_(options.rtol),
      atol_(options.atol),
      cap_(options.magnitude_cap),
      error_weights_(options.error_weights),
      s_(std::make_unique<Sundials>(method)) {
  LOOPDYN_CHECK(options.rtol > 0 && options.atol > 0, "tolerances must be positive");
  LOOPDYN_CHECK(cap_.size() == 0 || cap_.size() == y0.size(), "magnitude caps: expected ", y0.size(), ", got ",
                cap_.size());
  if (method == Method::Dop853) {
    dop853_ = std::make_unique<Dop853>(rhs_, t0, y0, options);
    return;
  }
  const auto n = static_cast<sunindextype>(y0.size());
  s_->callbacks = {&rhs_, this};
  LOOPDYN_CHECK(SUNContext_Create(nullptr, &s_->context) == 0, "SUNDIALS context could not be created");
  s_->y = N_VMake_Serial(n, y_.data(), s_->context);
  s_->dky = N_VNew_Serial(n, s_->context);
  if (method == Method::Adams) {
    s_->memory = CVodeCreate(CV_ADAMS, s_->context);
    CVodeInit(s_->memory, rhsAdapter, t0, s_->y);
    CVodeSStolerances(s_->memory, options.rtol, options.atol);
    if (cap_.size() > 0 || error_weights_) CVodeWFtolerances(s_->memory, weightAdapter);
    s_->corrector = SUNNonlinSol_FixedPoint(s_->y, 0, s_->context);
    CVodeSetNonlinearSolver(s_->memory, s_->corrector);
    CVodeSetUserData(s_->memory, &s_->callbacks);
    if (options.min_step > 0) CVodeSetMinStep(s_->memory, options.min_step);
    CVodeSetErrHandlerFn(s_->memory, silent, nullptr);
    CVodeSetMaxHnilWarns(s_->memory, -1);
    if (options.max_step > 0) CVodeSetMaxStep(s_->memory, options.max_step);
    return;
  }
  if (method == Method::Rk4) {
    // The classical table through ARKStep (explicit part only). ERKStep 6.4 is not used here: with
    // this table it reuses the last stage (c = 1) as the next step's first one, as if the method
    // were FSAL, and the result is third order (measured: error ratio 8 on halving h, 3 RHS/step).
    LOOPDYN_CHECK(options.fixed_step > 0, "rk4 needs a fixed step size");
    const sunrealtype c[4] = {0, 0.5, 0.5, 1};
    const sunrealtype A[16] = {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0};
    const sunrealtype b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    s_->table = ARKodeButcherTable_Create(4, 4, 0, const_cast<sunrealtype*>(c), const_cast<sunrealtype*>(A),
                                          const_cast<sunrealtype*>(b), nullptr);
    s_->memory = ARKStepCreate(rhsAdapter, nullptr, t0, s_->y, s_->context);
    ARKStepSetUserData(s_->memory, &s_->callbacks);
    ARKStepSetErrHandlerFn(s_->memory, silent, nullptr);
    ARKStepSetTables(s_->memory, 4, 0, nullptr, s_->table);
    ARKStepSetFixedStep(s_->memory, options.fixed_step);
    ARKStepSetMaxNumSteps(s_->memory, -1);
    return;
  }
  s_->memory = ERKStepCreate(rhsAdapter, t0, s_->y, s_->context);
  ERKStepSetUserData(s_->memory, &s_->callbacks);
  if (options.min_step > 0) ERKStepSetMinStep(s_->memory, options.min_step);
  ERKStepSetErrHandlerFn(s_->memory, silent, nullptr);
  ERKStepSetMaxHnilWarns(s_->memory, -1);
  switch (method) {
    case Method::Dopri5: ERKStepSetTableNum(s_->memory, ARKODE_DORMAND_PRINCE_7_4_5); break;
    case Method::Bs23: ERKStepSetTableNum(s_->memory, ARKODE_BOGACKI_SHAMPINE_4_2_3); break;
    default: break;
  }
  ERKStepSStolerances(s_->memory, options.rtol, options.atol);
  if (cap_.size() > 0 || error_weights_) ERKStepWFtolerances(s_->memory, weightAdapter);
  if (options.max_step > 0) ERKStepSetMaxStep(s_->memory, options.max_step);
}

Integrator::~Integrator() = default;

StepResult Integrator::step(Scalar t_stop) {
  if (dop853_) {
    StepResult r = dop853_->step(t_stop);
    t_ = dop853_->time();
    y_ = dop853_->state();
    return r;
  }
  sunrealtype t_reached = t_;
  int flag = 0;
  if (method_ == Method::Adams) {
    CVodeSetStopTime(s_->memory, t_stop);
    flag = CVode(s_->memory, t_stop, s_->y, &t_reached, CV_ONE_STEP);
  } else if (method_ == Method::Rk4) {
    ARKStepSetStopTime(s_->memory, t_stop);
    flag = ARKStepEvolve(s_->memory, t_stop, s_->y, &t_reached, ARK_ONE_STEP);
  } else {
    ERKStepSetStopTime(s_->memory, t_stop);
    flag = ERKStepEvolve(s_->memory, t_stop, s_->y, &t_reached, ARK_ONE_STEP);
  }
  t_ = t_reached;
  if (flag < 0) return failedStep(flag, t_);
  return {};
}

void Integrator::interpolate(Scalar t, VecX& y) const {
  if (dop853_) {
    dop853_->interpolate(t, y);
    return;
  }
  y.resize(y_.size());
  int flag = 0;
  switch (method_) {
    case Method::Adams: flag = CVodeGetDky(s_->memory, t, 0, s_->dky); break;
    case Method::Rk4: flag = ARKStepGetDky(s_->memory, t, 0, s_->dky); break;
    default: flag = ERKStepGetDky(s_->memory, t, 0, s_->dky); break;
  }
  LOOPDYN_CHECK(flag == 0, "dense output requested at t = ", t, " outside the last step");
  y = Eigen::Map<const VecX>(N_VGetArrayPointer(s_->dky), y_.size());
}

void Integrator::reset(Scalar t, const VecX& y) {
  y_ = y;
  t_ = t;
  if (dop853_) {
    dop853_->reset(t, y);
  } else if (method_ == Method::Adams) {
    // CVodeReInit zeroes CVODE's counters: keep what was done so far
    const Statistics before = statistics();
    CVodeReInit(s_->memory, t, s_->y);
    carried_ = before;
  } else if (method_ == Method::Rk4) {
    ARKStepReset(s_->memory, t, s_->y);
  } else {
    ERKStepReset(s_->memory, t, s_->y);
  }
}

void Integrator::errorWeights(const Scalar* y, Scalar* weights) const {
  if (error_weights_) return error_weights_(y, weights);
  for (Eigen::Index i = 0; i < cap_.size(); ++i) weights[i] = 1 / (rtol_ * std::min(std::abs(y[i]), cap_(i)) + atol_);
}

Scalar Integrator::nextStepSize() const {
  if (dop853_) return dop853_->nextStepSize();
  sunrealtype h = 0;
  switch (method_) {
    case Method::Adams: CVodeGetCurrentStep(s_->memory, &h); break;
    case Method::Rk4: ARKStepGetCurrentStep(s_->memory, &h); break;
    default: ERKStepGetCurrentStep(s_->memory, &h); break;
  }
  return h;
}

Statistics Integrator::statistics() const {
  if (dop853_) return dop853_->statistics();
  Statistics st;
  if (method_ == Method::Adams) {
    long fails = 0, conv = 0;
    CVodeGetNumSteps(s_->memory, &st.steps);
    CVodeGetNumRhsEvals(s_->memory, &st.rhs_evaluations);
    CVodeGetNumErrTestFails(s_->memory, &fails);
    CVodeGetNumNonlinSolvConvFails(s_->memory, &conv);
    st.rejected_steps = fails + conv;
    st.steps += carried_.steps;
    st.rejected_steps += carried_.rejected_steps;
    st.rhs_evaluations += carried_.rhs_evaluations;
  } else if (method_ == Method::Rk4) {
    long implicit = 0;
    ARKStepGetNumSteps(s_->memory, &st.steps);
    ARKStepGetNumRhsEvals(s_->memory, &st.rhs_evaluations, &implicit);
  } else {
    ERKStepGetNumSteps(s_->memory, &st.steps);
    ERKStepGetNumRhsEvals(s_->memory, &st.rhs_evaluations);
    ERKStepGetNumErrTestFails(s_->memory, &st.rejected_steps);
  }
  return st;
}

}  // namespace loopdyn::ode
