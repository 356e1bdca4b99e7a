#include "loopdyn/sim/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <utility>

#include "run.hpp"
#include "run_diagnostics.hpp"

namespace loopdyn {

using detail::numberText;

Scalar projectionTrigger(ode::Method method) { return method == ode::Method::Adams ? 10 : 1; }

Scalar defaultAbsoluteTolerance(Scalar rtol) { return 1e-2 * rtol; }

Scalar energyTolerance(const SimulationOptions& options) {
  if (options.energy_tolerance > 0) return std::min(options.energy_tolerance, kMaxEnergyDrift);
  if (options.integrator == ode::Method::Rk4) return 1e-3;
  return std::clamp(1e4 * options.ode.rtol, 1e-6, kMaxEnergyDrift);
}

namespace {

/// "" when x is finite and above (positive) or at least (else) zero.
std::string signProblem(Scalar x, bool positive) {
  if (!std::isfinite(x)) return "must be a finite number, got " + numberText(x);
  if (positive ? !(x > 0) : !(x >= 0)) return std::string("must be ") + (positive ? "greater than 0" : "0 or more") + ", got " + numberText(x);
  return {};
}

}  // namespace

std::optional<OptionProblem> simulationOptionsProblem(const SimulationOptions& options, Scalar t0) {
  const auto problem = [](const char* option, std::string message) {
    return message.empty() ? std::nullopt : std::optional<OptionProblem>(OptionProblem{option, std::move(message)});
  };
  const Scalar span = options.t_end - t0;
  const std::pair<const char*, std::string> checks[] = {
      {"t_end", signProblem(span, true)},
      {"sample", signProblem(options.sample_interval, true)},
      {"rtol", signProblem(options.ode.rtol, true)},
      {"atol", signProblem(options.ode.atol, true)},
      {"max_step", signProblem(options.ode.max_step, false)},
      {"step", signProblem(options.ode.fixed_step, options.integrator == ode::Method::Rk4)},
      {"baumgarte_alpha", signProblem(options.baumgarte_alpha, false)},
      {"baumgarte_beta", signProblem(options.baumgarte_beta, false)},
      {"projection_tolerance", signProblem(options.projection_tolerance, false)},
      {"energy_tolerance", signProblem(options.energy_tolerance, false)},
  };
  for (const auto& [option, message] : checks)
    if (auto p = problem(option, message)) return p;
  if (options.ode.rtol < kMinRtol || options.ode.rtol > kMaxRtol)
    return problem("rtol", "must be between " + numberText(kMinRtol) + " (100 machine epsilons) and " +
                               numberText(kMaxRtol) + ", got " + numberText(options.ode.rtol));
  if (span / options.sample_interval > kMaxSamples)
    return problem("sample", "asks for " + numberText(span / options.sample_interval) + " samples, more than " +
                                 numberText(kMaxSamples) + ": sample less often");
  if (options.integrator == ode::Method::Rk4 && span / options.ode.fixed_step > static_cast<Scalar>(options.ode.max_steps))
    return problem("step", "asks for " + numberText(span / options.ode.fixed_step) + " steps, more than " +
                               std::to_string(options.ode.max_steps) + ": take a longer step");
  return std::nullopt;
}

SimulationResult simulate(const Model& model, const Formulation& formulation, const State& x0,
                          const SimulationOptions& options,
                          const std::function<void(const Sample&, const DynamicsWorkspace&)>& on_sample) {
  detail::Run run(model, formulation, x0, options, on_sample);
  return run.go();
}

const char* runStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::Completed: return "completed";
    case RunStatus::StartFailed: return "start-failed";
    case RunStatus::EvaluationFailed: return "evaluation-failed";
    case RunStatus::StepFailed: return "step-failed";
    case RunStatus::ProjectionFailed: return "projection-failed";
    case RunStatus::SingularConfiguration: return "singular-configuration";
    case RunStatus::RestsAtSingular: return "rests-at-singular";
    case RunStatus::StartOffBranch: return "start-off-branch";
    case RunStatus::LeftBranch: return "left-branch";
    case RunStatus::LockUp: return "lock-up";
    case RunStatus::EnergyDrift: return "energy-drift";
    case RunStatus::ConstraintViolation: return "constraint-violation";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, RunStatus status) { return os << runStatusName(status); }

bool isFailedCheck(RunStatus status) {
  return status == RunStatus::LeftBranch || status == RunStatus::LockUp || status == RunStatus::EnergyDrift ||
         status == RunStatus::ConstraintViolation;
}

void SimulationResult::fail(RunStatus why, Scalar t, RunFailure cause) {
  if (!ok) return;
  ok = false;
  status = why;
  failure_time = t;
  failure = std::move(cause);
}

const char* failureReasonName(RunFailure::Reason reason) {
  using R = RunFailure::Reason;
  switch (reason) {
    case R::None: return "none";
    case R::Problem: return "problem";
    case R::ProblemAt: return "problem-at";
    case R::OffBranchStart: return "off-branch-start";
    case R::LeftBranch: return "left-branch";
    case R::IntegratorGaveUp: return "integrator-gave-up";
    case R::TooManySteps: return "too-many-steps";
    case R::StepsCollapsed: return "steps-collapsed";
    case R::LockUp: return "lock-up";
    case R::LockUpForming: return "lock-up-forming";
    case R::SingularConfiguration: return "singular-configuration";
    case R::ProjectionFailed: return "projection-failed";
    case R::NoJointCoordinates: return "no-joint-coordinates";
    case R::VelocitiesUnheld: return "velocities-unheld";
    case R::RestsAtSingular: return "rests-at-singular";
    case R::EnergyDrift: return "energy-drift";
    case R::PositionsViolated: return "positions-violated";
  }
  return "none";
}

std::ostream& operator<<(std::ostream& os, const RunFailure& f) {
  os << failureReasonName(f.reason) << " at t = " << f.t << " s";
  if (!f.detail.empty()) os << ": " << f.detail;
  if (!f.integrator.ok) os << ": " << ode::stepFailureName(f.integrator.failure) << " at t = " << f.integrator.t << " s";
  if (!f.problem.empty()) os << ": " << f.problem;
  if (!f.cause.empty()) os << " (" << f.cause << ")";
  if (f.value != 0 || f.limit != 0) os << ", value " << f.value << ", limit " << f.limit;
  if (!f.equation.empty()) os << ", " << f.equation << " turned independent";
  if (f.near) {
    os << ", rank " << f.near->rank_regular << " -> " << f.near->rank << " (";
    for (std::size_t k = 0; k < f.near->pairs.size(); ++k) os << (k ? ", " : "") << f.near->pairs[k];
    os << ')';
  }
  return os;
}

}  // namespace loopdyn
