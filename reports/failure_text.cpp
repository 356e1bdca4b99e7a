#include "failure_text.hpp"

#include <sstream>

#include "event_text.hpp"

namespace loopdyn::reports {

namespace {

using Reason = RunFailure::Reason;

/// " (rank 14 -> 12) involving O3, O2": the singular configuration next to the failure, or "".
std::string singularityWords(const RunFailure& f) {
  if (!f.near) return {};
  std::ostringstream os;
  os << " (rank " << f.near->rank_regular << " -> " << f.near->rank << ") involving";
  for (std::size_t k = 0; k < f.near->pairs.size(); ++k) os << (k == 0 ? " " : ", ") << f.near->pairs[k];
  return os.str();
}

/// " near a singular configuration (rank ...) involving ...", or "".
std::string nearWords(const RunFailure& f) {
  return f.near ? " near a singular configuration" + singularityWords(f) : std::string();
}

/// A failed step's account: where the mechanism was, and the right-hand side's problem.
std::string stepEnd(const RunFailure& f) {
  return nearWords(f) + (f.cause.empty() ? std::string() : " (" + problemText(f.cause) + ")");
}

void offBranchStart(std::ostream& os, const RunFailure& f) {
  os << "at " << timeText(f.t) << " the mechanism is at a singular configuration (rank " << f.rank << " of "
     << f.rank_regular << ") and ";
  if (f.at_rest)
    os << "at rest, and its accelerations point between the branches that meet there (misfit " << f.value
       << "): the rigid model does not decide which one the motion takes; give it an initial velocity along the branch "
          "it should follow";
  else
    os << "its initial velocity is tangent to no branch of the motion (misfit " << f.value
       << "): admissible to first order only, it admits no motion of the rigid model, which would stop it with an "
          "impulse the equations of motion do not contain";
}

std::string unheldVelocities(const RunFailure& f) {
  std::ostringstream os;
  os << "the velocities violate the constraints by " << f.value << " (scaled, per unit of speed) after their "
     << "projection, above " << f.limit << " x the projection trigger";
  return os.str();
}

/// A lock-up: how it shows, then what it means.
void lockUp(std::ostream& os, const RunFailure& f) {
  if (f.reason == Reason::LockUp)
    os << "between " << timeText(f.t_from) << " and " << timeText(f.t)
       << " the constraints lock the mechanism: the rank of C rose from " << f.rank_regular << " to "
       << f.rank_regular + 1 << " (" << f.equation << " became independent of the others; |R_rr|/|R_11| = " << f.ratio
       << ")";
  else
    os << "at " << timeText(f.t) << " the constraints begin to lock the mechanism: " << unheldVelocities(f)
       << ", as the rank of C rises from " << f.rank_regular << " (" << f.equation
       << " is independent of the others to |R_rr|/|R_11| = " << f.ratio << ")";
  os << ", so " << f.motions << " motion(s) are admissible where the motion so far had " << f.motions + 1
     << "; a rigid model stops it with an impulse that the equations of motion do not contain (drivers or knife "
        "edges that contradict each other, e.g. steering angles whose wheel axles no longer meet in one point)";
}

/// Why the integrator gave up, and when.
void integratorFailure(std::ostream& os, const ode::StepResult& step) {
  using ode::StepFailure;
  switch (step.failure) {
    case StepFailure::None: break;
    case StepFailure::EquationsFailed: os << "the equations of motion could not be evaluated"; break;
    case StepFailure::ErrorTestFailures: os << "step size too small: repeated error-test failures"; break;
    case StepFailure::CorrectorFailures: os << "step size too small: corrector does not converge"; break;
    case StepFailure::TooMuchWork: os << "too many steps"; break;
    case StepFailure::AccuracyUnreachable: os << "the requested accuracy cannot be reached"; break;
    case StepFailure::ErrorNotFinite: os << "the error estimate is not finite (NaN or infinite)"; break;
    case StepFailure::SolverError: os << "integrator error " << step.flag; break;
  }
  os << " at t = " << step.t << " s";
}

/// The failures of a step or its integrator.
void stepFailure(std::ostream& os, const RunFailure& f) {
  if (f.reason == Reason::IntegratorGaveUp) integratorFailure(os, f.integrator);
  if (f.reason == Reason::TooManySteps) os << "more than " << f.steps << " steps (step size collapsed) at " << timeText(f.t);
  if (f.reason == Reason::StepsCollapsed)
    os << "from " << timeText(f.t_from) << " to " << timeText(f.t) << " the integrator took " << f.steps << " steps of "
       << f.value << " s on average, below " << f.limit << " of the motion's time scale (" << f.scale
       << " s): its error test cannot pass on a right-hand side that is not smooth at rtol " << f.rtol
       << " (the rounding of an ill-conditioned evaluation, or a lock-up forming); a looser rtol, another integrator "
       << "or another method may pass";
  os << stepEnd(f);
}

/// The failed checks: the energy balance and the constraints' drift.
void failedCheck(std::ostream& os, const RunFailure& f) {
  if (f.reason == Reason::EnergyDrift)
    os << "the energy balance drifted by " << f.value << " of the energy scale, above the " << f.limit
       << " a correct run keeps at rtol " << f.rtol << " (largest at " << timeText(f.t)
       << "): the result is not trustworthy";
  else
    os << "the integrated positions violated the constraints by " << f.value << " (scaled) at "
       << (f.at_step_end ? "a step's end" : "a sample") << ", above " << f.limit << " ("
       << (f.at_step_end ? "the smaller of 100 x the projection trigger and " : "") << f.bound
       << " of the characteristic length) at " << timeText(f.t);
}

/// The failures at a singular configuration and of the projection onto the constraints.
void configurationFailure(std::ostream& os, const RunFailure& f) {
  switch (f.reason) {
    case Reason::SingularConfiguration:
      os << "at " << timeText(f.t) << " the mechanism reaches a singular configuration" << singularityWords(f)
         << ", which " << f.formulation
         << " cannot go through: its equations or coordinates turn dependent there (lagrange or projection passes it)";
      return;
    case Reason::RestsAtSingular:
      os << "from " << timeText(f.t_from) << " to " << timeText(f.t) << " the motion stays at a singular configuration"
         << singularityWords(f) << " (" << f.steps
         << " steps without leaving it): a motion that comes to rest there is not decided by the rigid model";
      return;
    case Reason::LeftBranch:
      os << "the motion left its branch at the singular configuration at " << timeText(f.t) << nearWords(f);
      return;
    case Reason::ProjectionFailed:
      os << "at " << timeText(f.t) << " the state could not be projected onto the constraints: " << f.detail
         << nearWords(f);
      return;
    case Reason::NoJointCoordinates:
      os << "at " << timeText(f.t) << " the projected state has no joint coordinates: " << f.detail;
      return;
    default:
      os << "at " << timeText(f.t) << " " << unheldVelocities(f) << ": the constraints no longer admit the motion's velocities";
  }
}

}  // namespace

std::string failureText(const RunFailure& f) {
  std::ostringstream os;
  switch (f.reason) {
    case Reason::None: return {};
    case Reason::Problem: return f.detail;
    case Reason::ProblemAt: return "at " + timeText(f.t) + ": " + problemText(f.problem);
    case Reason::OffBranchStart: offBranchStart(os, f); break;
    case Reason::IntegratorGaveUp:
    case Reason::TooManySteps:
    case Reason::StepsCollapsed: stepFailure(os, f); break;
    case Reason::LockUp:
    case Reason::LockUpForming: lockUp(os, f); break;
    case Reason::EnergyDrift:
    case Reason::PositionsViolated: failedCheck(os, f); break;
    case Reason::SingularConfiguration:
    case Reason::RestsAtSingular:
    case Reason::LeftBranch:
    case Reason::ProjectionFailed:
    case Reason::NoJointCoordinates:
    case Reason::VelocitiesUnheld: configurationFailure(os, f); break;
  }
  return os.str();
}

}  // namespace loopdyn::reports
