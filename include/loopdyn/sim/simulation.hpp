#pragma once
/// A simulation: a formulation (dynamics/formulation.hpp), an integrator (ode/integrator.hpp) and
/// constraint stabilisation, producing samples at exact times.
///
/// ODE state y = (q, u, W): positions (quaternions in 3D, qdot = 1/2 (0, w) * q with w in world
/// axes), the formulation's velocity variables u (the velocities v for the absolute formulations,
/// independent velocities for the minimal-coordinate ones: dynamics/formulation.hpp), and W, the work done on the system by drivers (lambda^T b: rheonomic
/// constraints do work, paper 001, eq. (4)) and by non-conservative applied loads (F_nc . v).
/// E = T + V - W is then constant in the exact solution (energy.balance).
///
/// Stabilisation:
///   projection (default)  after an accepted step whose scaled position or velocity violation
///                         exceeds the tolerance, positions are projected onto Phi = 0 (Newton
///                         with least-norm steps) and velocities onto C v + b = 0 (least change),
///                         quaternions renormalised, and the integrator continues from there;
///   baumgarte             Gamma - 2 alpha (C v + b) - beta^2 Phi in the accelerations;
///   none                  the constraints at acceleration level only (drift grows).
///
/// Singular configurations (paper 004, sect. 2.5) are passed exactly, by every formulation:
///   near one (|R_rr| / |R_11| below kProjectRatio at the last step's end) the right-hand side is
///   evaluated on the constraints, f(P(y)) (dynamics/formulation.hpp explains why: the level sets
///   of Phi bend onto other branches there);
///   approaching one, the time t* where sigma_r / sigma_1 of C_s vanishes is extrapolated from the
///   last two step ends, the integrator is stopped short of it, and the step across is one
///   Gauss-Legendre collocation step (ode/gauss_legendre.hpp) with t* between its two middle
///   nodes, sized so that the ratio at the nearest node is kCrossingRatio (halved, and placed
///   again, when its iteration does not converge). No right-hand side is evaluated closer to the
///   singular configuration, where the computed accelerations carry rounding amplified by 1/d^3
///   (1e-10 relative at d = 1e-2, 1e-4 at d = 1e-4, measured on the IFToMM double four-bar);
///   the step's order (8) keeps its error far below the tolerance;
///   every passage is recorded (rank, new admissible motions, the tangent continued through it) and
///   checked: a motion whose tangent space turns by kBranchChange or more across it has left its
///   branch, and the run fails. The tangent spaces compared are those at the last step ends on
///   either side where |R_rr| / |R_11| >= 1e-2 (right next to a singular configuration the basis
///   is not determined), so the check waits until the motion has moved away. A step across that
///   ends at a singular configuration (a passage the motion touches, coming to rest there) is
///   followed by a departure step like a singular start's.
///
/// What is checked (a failed check ends the run with ok = false and `failure` saying which):
///   the energy balance E = T + V - W drifts by at most energyTolerance(options) of the energy
///   scale; the motion keeps its branch at every singular passage; the constraint violation of the
///   integrated state at the step ends stays below 100 x the projection trigger (the samples
///   between them also carry the dense output's interpolation error, which their projection
///   removes); no right-hand side is non-finite.

#include <functional>
#include <memory>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"
#include "loopdyn/ode/integrator.hpp"

namespace loopdyn {

enum class Stabilization { Projection, Baumgarte, None };

/// Default projection trigger, relative to rtol: 1 for the Runge-Kutta methods, 10 for adams.
/// Every projection restarts adams at order 1, whose first steps drift by about rtol again, so a
/// trigger at rtol projects after nearly every step (measured on the double four-bar, 10 s, rtol
/// 1e-8: 72766 projections and 6 s at 1 x rtol; 23 projections and 0.18 s at 10 x). The
/// Runge-Kutta methods keep their step size across a projection; a looser trigger there only
/// lets more drift through (released directions near singular configurations: the modified
/// double four-bar loses 8e-4 of its energy at 10 x rtol, 3e-8 at 1 x).
Scalar projectionTrigger(ode::Method method);

/// atol where none is given (CLI, Python, SimulationRequest): rtol / 100. A fixed atol above rtol
/// L would make the integrator itself the limit on the constraints' drift: at rtol 1e-12 and atol
/// 1e-10 adams projected after every step and its step size collapsed (the double four-bar,
/// lagrange and projection alike, 10^6 steps).
Scalar defaultAbsoluteTolerance(Scalar rtol);

/// The right-hand side is evaluated on the constraints (f(P(y))) while |R_rr| / |R_11| at the last
/// step's end is below this.
inline constexpr Scalar kProjectRatio = 0.1;
/// A singular configuration is predicted from the last two step ends once the ratio falls below this.
inline constexpr Scalar kPredictRatio = 0.1;
/// The step across a singular configuration keeps sigma_r / sigma_1 of C_s at its nodes above
/// about this.
inline constexpr Scalar kCrossingRatio = 3e-3;

struct SimulationOptions {
  Scalar t_end = 1;
  Scalar sample_interval = 0.01;
  ode::Method integrator = ode::Method::Dopri5;
  ode::Options ode;
  Stabilization stabilization = Stabilization::Projection;
  Scalar baumgarte_alpha = 10, baumgarte_beta = 10;  ///< 1/s
  /// Scaled violation (||Phi_s|| / L, ||diag(row)(C v + b)|| / L) above which a step is
  /// projected; 0: projectionTrigger(integrator) x max(rtol, atol / L).
  Scalar projection_tolerance = 0;
  /// Largest relative drift of the energy balance before the run counts as failed; 0:
  /// energyTolerance(*this).
  Scalar energy_tolerance = 0;
  /// Generic rank of C on the motion (analyzeConstraints); -1: found from the initial state.
  int generic_rank = -1;
  /// The mechanism's regular |R_rr| / |R_11| (RankReport::generic_ratio), for the watch's scale
  /// (dynamics/singular_watch.hpp); 0: found with the generic rank (1 where that is given).
  Scalar regular_ratio = 0;
  /// Multipliers and the pairs' reactions in the samples; without them Sample::lambda and
  /// Sample::reactions are not filled.
  bool multipliers = true;
};

/// The default energy check: 1e4 rtol (errors accumulate over the steps), at least 1e-6, at most
/// kMaxEnergyDrift; 1e-3 for rk4, which has no error control.
Scalar energyTolerance(const SimulationOptions& options);

/// The checks hold at any tolerance: a run whose energy balance drifts by more than this share of
/// its energy scale, or whose positions leave the constraints by more than this share of the
/// characteristic length at a step's end, never counts as completed (`--rtol 1` completed with
/// 70 % of the energy gone).
inline constexpr Scalar kMaxEnergyDrift = 1e-2;
inline constexpr Scalar kMaxStepViolation = 1e-2;

/// The ranges of a simulation's numbers, the same at every door (CLI, Python, facade). rtol below
/// 100 machine epsilons asks for digits a double does not have; above 0.1 for none.
inline constexpr Scalar kMinRtol = 2.220446049250313e-14;
inline constexpr Scalar kMaxRtol = 0.1;
/// Samples of one run (t_end / sample): beyond it the output, not the run, is the problem.
inline constexpr Scalar kMaxSamples = 1e8;

/// The first option (common/errors.hpp: t_end, sample, rtol, atol, max_step, step, baumgarte_alpha,
/// baumgarte_beta, projection_tolerance, energy_tolerance) of `options` out of its range for a run from t0, or nothing. simulate()
/// refuses such options (InvalidArgument); the doors ask first, to name their own spelling.
std::optional<OptionProblem> simulationOptionsProblem(const SimulationOptions& options, Scalar t0);

/// One output sample: the state at an exact sample time, projected onto the constraints, and
/// everything derived from it.
struct Sample {
  State x;
  VecX a, lambda;
  /// Every pair's reaction (kinematics/pair_wrench.hpp) from lambda, with
  /// SimulationOptions::multipliers (otherwise empty).
  std::vector<PairReaction> reactions;
  VecX generalized_velocities;  ///< minimal-coordinate formulations: the independent velocities u
  Scalar kinetic = 0, potential = 0, work = 0;
  /// ||Phi_s|| / L and ||diag(row)(C v + b)|| / L (1/s) of the integrated state before that
  /// projection: the drift the integration let through.
  Scalar position_violation = 0;
  Scalar velocity_violation = 0;
};

/// How a run ended, as data (the words are SimulationResult::failure's and the front ends').
enum class RunStatus {
  Completed,  ///< t_end reached, every check passed
  // the run could not go on (a numerical failure):
  StartFailed,            ///< no start at x0 (no assembly, no joint coordinates, no branch at a singular start)
  EvaluationFailed,       ///< the dynamics could not be evaluated (dependent equations, a singular matrix)
  StepFailed,             ///< the integrator could not make a step (its step size collapsed, max_steps)
  ProjectionFailed,       ///< the state could not be projected onto the constraints
  SingularConfiguration,  ///< a formulation that cannot pass one (elimination, partitioning) reached one
  RestsAtSingular,        ///< the motion stays at a singular configuration: the rigid model does not decide it
  /// At a singular start the initial motion -- its velocity, or at rest its acceleration -- is
  /// tangent to no branch (SingularStart::misfit above kBranchMisfit): with that velocity the rigid
  /// model has no motion (it is admissible to first order only; an impulse would change it), and
  /// from rest it does not decide which branch the motion takes.
  StartOffBranch,
  // a check failed: the computed motion is physically wrong (sim/simulation.hpp's header):
  LeftBranch,           ///< the motion left its branch at a singular passage
  LockUp,               ///< the constraints locked the mechanism (RunEvent LockUp)
  EnergyDrift,          ///< the energy balance drifted beyond energyTolerance
  ConstraintViolation,  ///< the integrated positions violated the constraints beyond 100 x the trigger
};

/// "completed", "step-failed", "energy-drift", ...: the status as a JSON / Python key.
const char* runStatusName(RunStatus status);

std::ostream& operator<<(std::ostream& os, RunStatus status);

/// The singular configuration next to a failure: the rank of C there (counted as at a passage,
/// at kSingularRatio) below the run's, and the pairs whose equations lose their independence.
struct NearSingularity {
  int rank_regular = 0, rank = 0;
  std::vector<std::string> pairs;
};

/// Why a run failed: the numbers and names its account is made of; the words are the front ends'
/// (reports/failure_text.hpp). Each reason says the fields it fills (t always: when, the end of a
/// span; `near` where a singular configuration is next to the failure, or none).
struct RunFailure {
  enum class Reason {
    None,                   ///< the run has not failed
    Problem,                ///< detail: the layer below's account (the assembly's; a formulation's step)
    ProblemAt,              ///< problem at t (a formulation's start, evaluation or step)
    OffBranchStart,         ///< at a singular start: rank (of rank_regular), at_rest, misfit in value
    LeftBranch,             ///< at the passage at t; near
    IntegratorGaveUp,       ///< integrator: why and when the integrator gave up; near; cause
    TooManySteps,           ///< more than steps accepted steps; near; cause
    StepsCollapsed,         ///< t_from .. t: steps of value s on average, below limit of scale s; rtol; near; cause
    LockUp,                 ///< t_from .. t: the rank rose from rank_regular (equation, ratio); motions still admissible
    LockUpForming,          ///< at t: velocities off by value (per unit of speed) above limit x the trigger as the rank rises from rank_regular (equation, ratio); motions
    SingularConfiguration,  ///< at t, near (may be empty): formulation cannot pass it
    ProjectionFailed,       ///< at t: detail (the assembly's); near
    NoJointCoordinates,     ///< at t the projected state has no joint coordinates: detail
    VelocitiesUnheld,       ///< at t: velocities off by value (per unit of speed), above limit x the trigger
    RestsAtSingular,        ///< t_from .. t, steps without leaving; near
    EnergyDrift,            ///< drift value of the energy scale above limit at rtol, largest at t
    PositionsViolated,      ///< value (scaled) at t above limit: at_step_end (with projection: the smaller of 100 x the trigger and bound) or a sample
  };
  Reason reason = Reason::None;
  Scalar t = 0, t_from = 0;
  std::string detail;  ///< the layer below's own words (the assembly's, a joint map's)
  ode::StepResult integrator;  ///< IntegratorGaveUp: the integrator's account (ode/integrator.hpp)
  Problem problem;     ///< ProblemAt: the formulation's account (dynamics/problem.hpp)
  Problem cause;       ///< a failed step: the right-hand side's problem that failed it (empty for none)
  std::optional<NearSingularity> near;
  std::string formulation;  ///< SingularConfiguration: the formulation that cannot pass one
  std::string equation;     ///< lock-ups: the equation that turned independent ("EQ of PAIR", or the pair)
  int rank_regular = 0, rank = 0, motions = 0;
  long steps = 0;
  Scalar value = 0, limit = 0, bound = 0, scale = 0, rtol = 0, ratio = 0;
  bool at_rest = false, at_step_end = false;

  /// A failure the layer below accounts for in its own words (Reason::Problem).
  static RunFailure told(std::string detail, Scalar t = 0) {
    RunFailure failure;
    failure.reason = Reason::Problem;
    failure.t = t;
    failure.detail = std::move(detail);
    return failure;
  }
};

/// "left-branch", "energy-drift", ...: the reason as a key (JSON, Python, a diagnostic).
const char* failureReasonName(RunFailure::Reason reason);

/// "integrator-gave-up at t = 0.81 s: DETAIL (CAUSE), value 1e-3, limit 1e-4, rank 14 -> 12 (O3)":
/// a failure's fields in one line, for a library user's log or a test's message; the front ends'
/// sentences are reports' failureText.
std::ostream& operator<<(std::ostream& os, const RunFailure& failure);

/// True for the statuses of a failed check (the result is wrong, not merely unfinished).
bool isFailedCheck(RunStatus status);

/// Where a run's wall time went (issue 48), in seconds; wall_seconds is their sum. Stages nest:
/// the samples inside an integrator's step are charged to samples alone.
struct RunStageSeconds {
  double start = 0;        ///< the generic rank, the formulation's start, the watch at the start
  double integration = 0;  ///< the integrator's steps (right-hand sides) and the crossings' collocation steps
  double samples = 0;      ///< the samples: the evaluation on the constraints, reactions, on_sample (a CSV row)
  double watch = 0;        ///< the singularity watch, passages, crossing plans, lock-ups
  double projections = 0;  ///< projections onto the constraints, the velocity floor
  double formulation = 0;  ///< the formulation's work after a step (switches, re-choices, its basis)
  double checks = 0;       ///< the end: pending passages, the energy and violation checks
};

struct SimulationResult {
  bool ok = true;  ///< status == Completed
  RunStatus status = RunStatus::Completed;
  Scalar failure_time = 0;  ///< when !ok: the time of the failure (the checks: of the worst sample)
  RunFailure failure;       ///< when !ok: when and why, with the mechanism parts involved
  ode::Statistics statistics;
  long projections = 0;
  long projections_postponed = 0;  ///< projections that did not converge next to a singular configuration
  /// accepted steps after which the integrator restarted (a projection of the state, or the
  /// formulation rewriting its variables: projection's basis)
  long restarts = 0;
  long samples = 0;
  double wall_seconds = 0;
  RunStageSeconds stage_seconds;  ///< wall_seconds by stage
  State final_state;
  Scalar energy_initial = 0;       ///< T + V - W at t = 0
  Scalar energy_drift_max = 0;     ///< max |E(t) - E(0)| over the samples
  Scalar energy_scale = 0;         ///< max(T) + max|V - V(0)| over the samples: for relative drift
  Scalar max_position_violation = 0, max_velocity_violation = 0;  ///< over the samples (see Sample)
  /// The largest scaled position violation at a step's end, before its projection: the drift the
  /// integration leaves (the samples' also holds the dense output's interpolation error).
  Scalar max_step_position_violation = 0;
  std::vector<RunWarning> warnings;  ///< what the user should know although the answer holds (run_event.hpp)
  std::vector<RunEvent> events;  ///< what happened along the way, in time order (dynamics/run_event.hpp)
  std::vector<SingularPassage> passages;  ///< singular configurations passed, in time order
  long crossing_steps = 0;                ///< collocation steps across singular configurations
  int generic_rank = 0;                   ///< the rank used to watch for singular configurations
  /// The formulation's run data at the end (dynamics/formulation.hpp: its choices, switches and
  /// counters), read through the formulation's accessors; null where the run did not start.
  std::shared_ptr<const FormulationData> formulation_data;
  /// Records the run's end: ok = false, status, failure_time and failure (the first failure
  /// stays: a later call does nothing).
  void fail(RunStatus why, Scalar t, RunFailure failure);
};

/// Integrates from x0 (assembled) to options.t_end, calling on_sample at t = 0, dt, 2 dt, ...,
/// t_end, with the formulation's run data in a workspace of its own (Baumgarte's terms from
/// options.stabilization in its settings). The dynamics workspace passed to on_sample holds the evaluation at that sample (for
/// reactions). Never throws for numerical trouble: see SimulationResult::failure; throws
/// InvalidArgument for options out of range (simulationOptionsProblem).
SimulationResult simulate(const Model& model, const Formulation& formulation, const State& x0,
                          const SimulationOptions& options,
                          const std::function<void(const Sample&, const DynamicsWorkspace&)>& on_sample);

}  // namespace loopdyn
