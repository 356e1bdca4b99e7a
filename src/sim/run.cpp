#include "run.hpp"

#include "loopdyn/analysis/independent_rows.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/joint_error_weights.hpp"
#include "run_diagnostics.hpp"

namespace loopdyn::detail {

namespace {

/// A failure the formulation accounts for at time t.
RunFailure problemAt(Scalar t, Problem problem) {
  RunFailure failure;
  failure.reason = RunFailure::Reason::ProblemAt;
  failure.t = t;
  failure.problem = std::move(problem);
  return failure;
}

/// A failure the layer below (the assembly, a joint map) accounts for in its words, at time t.
RunFailure failureAt(RunFailure::Reason reason, Scalar t, std::string detail) {
  RunFailure failure;
  failure.reason = reason;
  failure.t = t;
  failure.detail = std::move(detail);
  return failure;
}

}  // namespace

namespace {

/// A projection that does not converge is retried after the next step while the violation stays
/// below this multiple of the projection tolerance; beyond it the run fails.
constexpr Scalar kPostponeFactor = 100;
/// Steps in a row whose velocities a projection left above kPostponeFactor times the trigger
/// before the run stops (Run::learnVelocityFloor).
constexpr int kMaxUnheldSteps = 50;

/// Steps shorter on average than this fraction of the motion's time scale (motionTimeScale) have
/// collapsed; kMaxCollapsedSteps of them without a restart of the integrator between them end the
/// run (stepsCollapsed; adams restarted after every step is slow by design and warns instead: the
/// AdamsRestarts warning). Measured: hdca with adams
/// on a mechanism ill-conditioned everywhere (tests/data/reproducers/partitioning_rows_ill_
/// conditioned_everywhere.yaml) stepped 2.7e-8 s (1.4e-7 of its time scale) with half its steps
/// rejected from t = 1 ms on: 630 804 steps and 49 s for 5 ms, 10^6 steps before max_steps ended
/// it; dopri5 finds the lock-up forming at 10 ms in 203 steps. A run that needs such steps for
/// long would reach max_steps before covering a hundredth of its time scale anyway.
constexpr Scalar kCollapsedStep = 1e-6;
constexpr long kMaxCollapsedSteps = 5000;

/// A run on adams whose restarts exceed this share of its steps (and kRestartWarningSteps) warns:
/// each restart drops adams to order 1 and a small step (measured: projection with continuation
/// off rebases its basis after every step, 153 966 steps for 1 s of the modified 2x2 four-bar).
constexpr Scalar kRestartWarningShare = 0.5;
constexpr long kRestartWarningSteps = 1000;

/// At most this many events are kept (a switching set could otherwise fill memory).
constexpr std::size_t kMaxEvents = 1000;

/// The error weights of a run in joint coordinates (issue 46): an absolute run's, pulled back to
/// the joint coordinates and, where u holds them, the joint velocities
/// (kinematics/joint_error_weights.hpp); the other entries (momenta, a basis, generalized
/// velocities, the driver work) by the integrator's own formula. A function of y alone.
std::function<void(const Scalar*, Scalar*)> jointCoordinateWeights(const Model& model, const TreeKinematics& tree,
                                                                   const Formulation& formulation,
                                                                   const DynamicsWorkspace& ws, int nu,
                                                                   const ode::Options& ode) {
  struct Buffers {
    JointErrorWeights weights;
    State x;
    VecX q_r, v_r;
    std::vector<BodyMotion> motion;
  };
  const int nq = tree.nq(), n = nq + nu + 1;
  auto buffers = std::make_shared<Buffers>(
      Buffers{JointErrorWeights(tree, ode.rtol, ode.atol, n, model.nq() + model.nv() + 1), State{}, VecX(nq),
              VecX::Zero(tree.nv()), std::vector<BodyMotion>(static_cast<std::size_t>(model.nb()))});
  return [&model, &tree, &formulation, &ws, buffers, nq, nu, n, ode](const Scalar* y, Scalar* w) {
    for (int i = 0; i < n; ++i) w[i] = 1 / (ode.atol + ode.rtol * std::min(std::abs(y[i]), ode.magnitude_cap(i)));
    Buffers& b = *buffers;
    const bool velocities = formulation.carriesJointVelocities(formulation.data(ws));
    b.q_r = Eigen::Map<const VecX>(y, nq);
    if (velocities) b.v_r = Eigen::Map<const VecX>(y + nq, nu);
    tree.absoluteState(b.q_r, b.v_r, 0, b.x);  // (without joint velocities: at rest)
    for (BodyIndex body = 0; body < model.nb(); ++body)
      b.motion[static_cast<std::size_t>(body)] = bodyMotion(model, b.x.q, b.x.v, body);
    b.weights.compute(b.x, b.q_r, b.motion, w, velocities ? w + nq : nullptr);
    if (!velocities) b.v_r.setZero();
  };
}

}  // namespace

Run::Run(const Model& model_, const Formulation& formulation_, const State& x0_, const SimulationOptions& options_,
         const OnSample& on_sample_)
    : model(model_), formulation(formulation_), x0(x0_), options(options_), on_sample(on_sample_), ws(model_),
      watch_ws(model_), check(model_) {
  energy_drift_time = step_violation_time = sample_violation_time = t_near = x0.t;
}

SimulationResult Run::go() {
  if (const std::optional<OptionProblem> problem = simulationOptionsProblem(options, x0.t))
    throw InvalidArgument(problem->option + ": " + problem->message);
  if (options.stabilization == Stabilization::Baumgarte)
    settings.baumgarte = Baumgarte{options.baumgarte_alpha, options.baumgarte_beta};
  // (the integrator lets each position err by about rtol |q| + atol: the scaled violation drifts by
  // max(rtol, atol / L) a step, and a trigger below that would project after every step)
  tolerance = options.projection_tolerance > 0
                  ? options.projection_tolerance
                  : projectionTrigger(options.integrator) *
                        std::max(options.ode.rtol, options.ode.atol / model.characteristicLength());
  chooseRank();
  defineRightHandSides();
  if (start()) {
    startStepping();
    clock.enter(Stage::Integration);  // (the stepping's own glue is charged to the integration)
    while (result.ok && integrator->time() < options.t_end) step();
    finish();
  }
  result.formulation_data = ws.formulation_data;
  return std::move(result);
}

void Run::chooseRank() {
  Scalar regular_ratio = options.regular_ratio;
  rank = options.generic_rank;
  if (rank < 0) {
    const RankReport report = analyzeConstraints(model, check, x0);
    rank = report.generic_rank;
    if (regular_ratio <= 0) regular_ratio = report.generic_ratio;
  }
  result.generic_rank = rank;
  settings.generic_rank = rank;
  settings.ratio_scale = ratioScale(regular_ratio);
  if (const Scalar drift = std::max(options.ode.rtol, options.ode.atol / model.characteristicLength());
      options.stabilization == Stabilization::Projection && tolerance < drift) {
    RunWarning warning;
    warning.kind = RunWarning::Kind::ProjectionBelowDrift;
    warning.value = tolerance;
    warning.bound = drift;
    warning.adams = options.integrator == ode::Method::Adams;
    result.warnings.push_back(warning);
  }
}

void Run::defineRightHandSides() {
  coordinates = formulation.coordinates(model);
  nq = coordinates->size();
  nu = formulation.velocityStateSize(model);
  du.resize(nu);
  rhs = [this](Scalar t, const Scalar* yt, Scalar* ydot) -> int {
    // (the right-hand side reads the positions as they are: their rates keep quaternions unit to
    // first order, and normalising here would change the equations the integrator solves)
    coordinates->toState(t, Eigen::Map<const VecX>(yt, nq), xr, false);
    const Problem problem = formulation.evaluate(model, ws, xr, Eigen::Map<const VecX>(yt + nq, nu),
                                                 Eigen::Map<VecX>(ydot + nq, nu), rhs_how);
    if (!problem.empty()) {
      rhs_problem = problem;
      return -1;  // the formulation cannot go on here (a singular configuration): stop
    }
    if (!ws.a.allFinite()) {
      rhs_problem = Problem::of(Problem::Kind::NonFiniteAccelerations);
      rhs_problem.names = bodiesWithNonFinite(model, ws.a);
      return 1;  // recoverable: the integrator retries with a smaller step
    }
    coordinates->rates(xr, ydot);
    ydot[nq + nu] = ws.F_nc.dot(xr.v) + formulation.constraintPower(ws, xr);
    return 0;
  };
  // the collocation step across a singular configuration evaluates on the constraints
  projected_rhs = [this](Scalar t, const Scalar* yt, Scalar* ydot) -> int {
    const Evaluation saved = rhs_how;
    rhs_how.project = true;
    const int status = rhs(t, yt, ydot);
    rhs_how = saved;
    return status;
  };
}

// x.v from the formulation's velocity variables u at x's positions, ws.kin evaluated there: u
// itself for formulations that carry v (constraints only), else through the formulation's map
Problem Run::velocitiesAt(State& x, Eigen::Ref<const VecX> uv) {
  if (!formulation.carriesVelocities()) {
    Problem problem = formulation.velocities(model, ws, x, uv, du);
    evaluateConstraints(model, ws.kin, x);  // (a right-hand side need not evaluate them: the HDCA's does not)
    return problem;
  }
  x.v = uv;
  evaluateConstraints(model, ws.kin, x);
  return {};
}

// samples: the integrated state at t (interpolated) for its drift, then projected onto the
// constraints with the dynamics evaluated there
// (inside the step across a singular configuration the sample's state is the collocation's,
// not the integrator's: its drift says nothing about the integration and is not counted)
void Run::emit(Scalar t, const VecX& ye, bool in_crossing) {
  const Timer timer(clock, Stage::Samples);
  positions(t, ye, sample.x);
  Problem problem = velocitiesAt(sample.x, ye.segment(nq, nu));
  violations(model, ws, sample.x, sample.position_violation, sample.velocity_violation);
  positions(t, ye, sample.x);
  // (a formulation that carries v evaluated ws.kin at x and u above, where its projection starts)
  if (problem.empty())
    problem = formulation.evaluate(model, ws, sample.x, ye.segment(nq, nu), du,
                                   Evaluation{options.multipliers, true, formulation.carriesVelocities()});
  if (!problem.empty()) result.fail(RunStatus::EvaluationFailed, t, problemAt(t, problem));
  sample.a = ws.a;
  sample.lambda = ws.lambda;
  // the pairs' wrenches from every row's multiplier (tree joints' by the Newton-Euler pass, cut
  // joints' and drivers' from the formulation's solve) at the evaluated motion
  if (options.multipliers) pairReactions(model, ws.kin.motion, ws.lambda, sample.reactions);
  sample.generalized_velocities = formulation.generalizedVelocities(ye.segment(nq, nu));
  sample.kinetic = kineticEnergy(model, ws.kin.motion);
  sample.potential = potentialEnergy(model, ws.kin.motion);
  sample.work = ye(nq + nu);
  const Scalar E = sample.kinetic + sample.potential - sample.work;
  if (result.samples == 0) {
    result.energy_initial = E;
    energy_V0 = sample.potential;
  }
  if (std::abs(E - result.energy_initial) > result.energy_drift_max) {
    result.energy_drift_max = std::abs(E - result.energy_initial);
    energy_drift_time = sample.x.t;
  }
  if (!in_crossing) {
    if (sample.position_violation > result.max_position_violation) sample_violation_time = sample.x.t;
    result.max_position_violation = std::max(result.max_position_violation, sample.position_violation);
    result.max_velocity_violation = std::max(result.max_velocity_violation, sample.velocity_violation);
  }
  energy_max_T = std::max(energy_max_T, sample.kinetic);
  energy_dV = std::max(energy_dV, std::abs(sample.potential - energy_V0));
  ++result.samples;
  on_sample(sample, ws);
}

/// The initial ODE state, the formulation's start and the integrator; false when the run cannot start.
bool Run::start() {
  y0.resize(nq + nu + 1);
  Problem start_problem;
  try {
    State x_initial = x0;
    coordinates->fromState(x_initial, y0.head(nq));
  } catch (const InvalidArgument& e) {
    start_problem = Problem::of(Problem::Kind::NoInitialJointCoordinates);
    start_problem.detail = e.what();
  }
  y0(nq + nu) = 0;
  if (const Problem problem =
          start_problem.empty() ? formulation.start(model, ws, x0, y0.segment(nq, nu), settings) : start_problem;
      !problem.empty()) {
    result.fail(RunStatus::StartFailed, x0.t, problemAt(x0.t, problem));
    result.final_state = x0;
    return false;
  }
  if (std::optional<RunEvent> event = formulation.startEvent(formulation.data(ws))) result.events.push_back(std::move(*event));
  for (RunWarning& warning : formulation.costWarnings(model)) result.warnings.push_back(std::move(warning));
  // planar angles are unwrapped: their error is measured relative to at most pi (ode/integrator.hpp)
  ode::Options ode_options = options.ode;
  ode_options.magnitude_cap = VecX::Constant(y0.size(), std::numeric_limits<Scalar>::infinity());
  for (const int angle : coordinates->angles()) ode_options.magnitude_cap(angle) = std::numbers::pi;
  if (const TreeKinematics* tree = coordinates->tree())
    ode_options.error_weights = jointCoordinateWeights(model, *tree, formulation, ws, nu, ode_options);
  integrator.emplace(options.integrator, rhs, x0.t, y0, ode_options);
  window_t0 = x0.t;
  collocation.emplace(static_cast<int>(y0.size()));
  dt = options.sample_interval;
  last = std::max(1L, static_cast<long>(std::ceil((options.t_end - x0.t) / dt - 1e-9)));
  return true;
}

/// The watch at the start (an off-branch start fails), the evaluation mode, the first sample
/// and the step state.
void Run::startStepping() {
  watch.emplace(rank, settings.ratio_scale);
  ratio_start = watch->start(model, watch_ws, x0);
  if (ratio_start < kCrossingRatio) {
    if (std::optional<RunFailure> off = offBranchStart(model, watch_ws, x0, rank))
      result.fail(RunStatus::StartOffBranch, x0.t, std::move(*off));
  }
  // (a start already above the generic rank is on a locked branch of its own: nothing locks later)
  watch_lockup = watch->lastExcessRatio() < kSingularRatio;
  if (ratio_start < kProjectRatio) setProjectMode(true, x0.t);
  if (ratio_start < kCrossingRatio) {
    // a start at a singular configuration: the first step leaves it by collocation too, its
    // nodes away from the start, sized by the motion's time scale (how long it takes to move L)
    plan = departurePlan(model, x0);
  }
  // (the integrator's state, not y0: a start near a singular configuration switched the mode,
  // and the HDCA's variables with it, momenta to joint velocities -- read as momenta, a ladder of
  // 97 loops or more, whose regular ratio is below kProjectRatio, started with 1.8x its kinetic
  // energy and a velocity violation of 27)
  emit(x0.t, integrator->state());
  next = 1;
  projection.keep_prescribed_velocities = false;
  projection.position_tolerance = projection.velocity_tolerance = std::max(1e-14, 1e-3 * tolerance);
  u.resize(nu);
  p_end.resize(nq);
  step_info.tolerance = tolerance;
  positions(x0.t, y0, x_start);
  x_start.v = x0.v;
  hermite.setEnd(model, 0, x_start);
  y_start = y0;
  last_regular = x_start;
  regular_before = ratio_start >= kRegularRatio;
  ratio_before = ratio_start;
}

// a change of evaluation mode: the formulation may rewrite u, and the integrator restarts (its
// stored derivatives, dopri5's first stage among them, belong to the other mode; for the
// projection formulation the tangent basis' rate differs between them)
void Run::setProjectMode(bool project, Scalar t) {
  VecX y_now = integrator->state();
  if (project != rhs_how.project) {
    rhs_how.project = project;
    State x_mode;
    positions(t, y_now, x_mode);
    if (const Problem problem = formulation.evaluationModeChanged(model, ws, x_mode, project, y_now.segment(nq, nu));
        !problem.empty())
      result.fail(RunStatus::EvaluationFailed, t, problemAt(t, problem));
  }
  restartIntegrator(t, y_now);
}

Scalar Run::singularValueRatio(const State& x) {
  for (std::size_t i = 0; i < sigma_kept.size(); ++i)
    if (const KeptSigma& k = sigma_kept[i]; k.value >= 0 && x.t == k.at.t && x.q == k.at.q) {
      sigma_next = 1 - static_cast<int>(i);  // (the one read last is kept longest)
      return k.value;
    }
  const Scalar sigma = watch->singularValueRatioAt(model, watch_ws, x);
  keepSigma(x, sigma);
  return sigma;
}

void Run::keepSigma(const State& x, Scalar value) {
  KeptSigma& k = sigma_kept[static_cast<std::size_t>(sigma_next)];
  sigma_next = 1 - sigma_next;
  k.at.t = x.t;
  k.at.q = x.q;
  k.value = value;
}

void Run::judgePassages(const State& x_after) {
  if (pending.empty()) return;
  const MatX after = tangentBasisAt(model, watch_ws, x_after, rank);
  for (PendingPassage& p : pending) {
    const MatX before = tangentBasisAt(model, watch_ws, p.before, rank);
    // (its ratio is the Householder QR's at the closest approach, the watch's resolves 1e-8; or
    // a large model's sigma_r / sigma_1 there)
    SingularPassage passage = describePassage(model, watch_ws, p.x, rank, before, after, watch->scale());
    passage.at_rest = p.at_rest;
    RunEvent event;
    event.kind = EventKind::SingularPassage;
    event.t = p.x.t;
    event.ratio = passage.ratio;
    event.sigma_ratio = passage.ratio_is_sigma;
    event.rank = passage.rank;
    event.rank_regular = passage.rank_regular;
    event.new_motions = static_cast<int>(passage.new_motions.cols());
    event.branch_change = passage.branch_change;
    event.at_rest = passage.at_rest;
    event.stepped_across = p.crossing;
    event.left_branch = passage.branch_change >= kBranchChange;
    if (event.left_branch && passage.at_rest) {
      RunWarning warning;
      warning.kind = RunWarning::Kind::RestLeftBranch;
      warning.t = p.x.t;
      result.warnings.push_back(warning);
    } else if (event.left_branch) {
      RunFailure failure;
      failure.reason = RunFailure::Reason::LeftBranch;
      failure.t = p.x.t;
      failure.near = nearSingularity(model, p.x, rank);
      result.fail(RunStatus::LeftBranch, p.x.t, std::move(failure));
    }
    if (result.events.size() < kMaxEvents) result.events.push_back(std::move(event));
    result.passages.push_back(std::move(passage));
    if (!result.ok) break;
  }
  pending.clear();
}

void Run::watchStep(Scalar t0, bool crossing) {
  step_info.t0 = t0;
  step_info.projected = false;
  step_info.on_constraints = crossing || rhs_how.project;
  approaches = watch->afterStep(model, watch_ws, step_info, xp,
                                crossing ? plan.t_star : std::numeric_limits<Scalar>::quiet_NaN());
  // where the watch reads sigma_r / sigma_1 itself, the crossing plan's sigma at the step's end is
  // the ratio it just read there (not a second Lanczos run)
  if (watchedBySingularValues(model, rank)) keepSigma(xp, watch->lastRatio());
}

/// One step of the run and what follows it: across a singular configuration (a plan is due) or
/// ordinary, then the watch, passages, stabilisation and the next plan.
void Run::step() {
  const Scalar t0 = integrator->time();
  const bool crossing = plan.active && plan.t_start() <= t0 + 1e-3 * plan.h;
  if (crossing ? !crossSingularConfiguration(t0) : !ordinaryStep(t0)) return;
  if (!result.ok) return;
  // the step's end state (after the samples: a formulation with a state of its own, the
  // projection's continued basis, must leave the step at its end)
  positions(integrator->time(), integrator->state(), xp);
  coordinates->positionsOf(xp, p_end);
  u = integrator->state().segment(nq, nu);
  velocitiesAt(xp, u);  // (a problem there shows in the next step's evaluations)
  hermite.setEnd(model, 1, xp);
  if (!watchTheStep(t0, crossing)) return;
  bool restart = false;
  {
    const Timer timer(clock, Stage::Projections);
    if (!stabilize(crossing, restart)) return;
  }
  const Formulation::StepOutcome outcome = [&] {
    const Timer timer(clock, Stage::Formulation);
    return formulation.afterStep(model, ws, step_info, xp, u);
  }();
  if (!outcome.failure.empty()) {
    result.fail(RunStatus::EvaluationFailed, xp.t, problemAt(xp.t, outcome.failure));
    return;
  }
  if (outcome.event && result.events.size() < kMaxEvents) {
    result.events.push_back(*outcome.event);
    result.events.back().t = xp.t;
  }
  restart = restart || outcome.restart;
  if (step_info.projected && velocity_projection) {
    const Timer timer(clock, Stage::Projections);
    if (!learnVelocityFloor()) return;
  }
  if (restart) {
    ++result.restarts;
    y.resize(nq + nu + 1);
    y << p_end, u, integrator->state()(nq + nu);
    restartIntegrator(integrator->time(), y);
  }
  const Timer timer(clock, Stage::Watch);
  planNextStep(t0, crossing);
}

/// The watch over the step just taken: its ratios, a lock-up, the singular configurations it
/// approached, the passages judged at a regular configuration. False when the run ends there.
bool Run::watchTheStep(Scalar t0, bool crossing) {
  const Timer timer(clock, Stage::Watch);
  if (!crossing) watchStep(t0, false);
  if (lockedUp(t0)) return false;
  recordApproaches(crossing);
  if (!result.ok) return false;
  if (watch->lastRatio() >= kRegularRatio) {
    judgePassages(xp);
    last_regular = xp;
    regular_before = true;
  }
  return result.ok;
}

/// Across the singular configuration the plan predicts: one collocation step, no evaluation next
/// to it, and the samples inside. False when no collocation step converges (ordinary steps on the
/// constraints go on) or the run failed.
bool Run::crossSingularConfiguration(Scalar t0) {
  VecX y_end;
  std::string problem;
  const Scalar h_design = plan.h;
  // (longer tries within the accurate step, or the design's where that is longer)
  const Scalar h_accurate = std::max(h_design, accurateCrossingStep(motionTimeScale(model, x_start), options.ode.rtol));
  for (const Scalar stretch : kCrossingStretches) {
    plan.h = std::min(stretch * h_design, h_accurate);
    h_crossing = std::min(crossingStepFrom(t0, plan, kMaxCrossingStretch * plan.h), options.t_end - t0);
    problem = collocation->step(projected_rhs, t0, integrator->state(), h_crossing, y_end, 1e-14, kCrossingStall);
    if (problem.empty()) break;
  }
  if (problem.empty() && t0 + h_crossing < options.t_end) {
    // A step that ends next to a singular configuration leaves it like a singular start: by a
    // collocation step whose nodes lie away from it (below). The plan's linear extrapolation
    // of the ratio puts t* halfway to a passage the motion touches instead of crossing (it
    // comes to rest at the singular pose: ratio ~ (t* - t)^2), so the step centred there
    // ends right at it (measured: the modified double four-bar released from its horizontal
    // pose, ratio 3e-10 at the step's end; ordinary steps then crawled, 2000 steps of 1 us).
    State x_end;
    positions(t0 + h_crossing, y_end, x_end);
    depart = watch->ratioAt(model, watch_ws, x_end) < kSingularRatio;
  }
  if (!problem.empty()) {
    // no collocation step converges: the motion lingers next to the singular configuration
    // (it comes to rest there, where the rounding it carries is small); ordinary steps on
    // the constraints go on, and a step-size collapse would say so
    plan = CrossingPlan{};
    setProjectMode(true, t0);
    return false;
  }
  ++result.crossing_steps;
  ++steps;
  const VecX y_begin = integrator->state();
  restartIntegrator(t0 + h_crossing, y_end);
  crossing_t0 = t0;
  step_info.at = [this](Scalar t, State& x, VecX& ui) {
    collocation->interpolate((t - crossing_t0) / h_crossing, yi);
    positions(t, yi, x);
    ui = yi.segment(nq, nu);
  };
  step_info.positions = [this](Scalar t, State& x) {
    collocation->interpolate((t - crossing_t0) / h_crossing, yi);
    positions(t, yi, x);
  };
  step_info.long_step = false;
  emitCrossingSamples(t0, y_begin, y_end);
  plan = CrossingPlan{};
  return true;
}

// samples inside the step across: by collocation again from the end of the step that no singular
// configuration separates from the sample (found by the watch on the step's collocation
// polynomial; the plan's t* is only predicted: at a passage the motion touches, linear
// extrapolation puts it halfway, measured 23 ms early in a step of 113 ms, and a sample
// reached through the passage left the constraints by 1e-8 and lost 50 % of its kinetic
// energy when projected back there); none for a formulation that cannot pass (it stops at
// the passage, below)
void Run::emitCrossingSamples(Scalar t0, const VecX& y_begin, const VecX& y_end) {
  positions(integrator->time(), integrator->state(), xp);
  watchStep(t0, true);
  // (a departure step starts at the singular configuration: its plan's t* is t0)
  const bool departing = plan.t_star <= t0 + 1e-12 * plan.h;
  const auto singularBefore = [&](Scalar ts) {
    if (departing || approaches.empty()) return plan.t_star <= ts;
    return std::any_of(approaches.begin(), approaches.end(), [&](const SingularWatch::Approach& p) { return p.t <= ts; });
  };
  ode::GaussLegendreStep partial(static_cast<int>(y0.size()));
  // (a formulation that cannot pass stops at the first singular configuration inside, below:
  // its samples end there; a step that only came near one keeps them all)
  Scalar samples_until = integrator->time();
  if (!formulation.passesSingularConfigurations())
    for (const SingularWatch::Approach& a : approaches) samples_until = std::min(samples_until, a.t);
  while (result.ok && next <= last && sampleTime(next) <= samples_until + 1e-12 * std::abs(options.t_end)) {
    const Scalar ts = std::min(sampleTime(next), integrator->time());
    VecX ys = y_end;
    std::string partial_problem;
    if (ts < integrator->time()) {
      // (a sample next to the singular configuration evaluates near it: its rounding is the sample's alone;
      // its iteration starts from the crossing step's collocation polynomial, order 4 there)
      const auto crossing_derivative = [&](Scalar t, VecX& dy) { collocation->derivative((t - t0) / h_crossing, dy); };
      partial_problem = !singularBefore(ts)
                            ? partial.step(projected_rhs, t0, y_begin, ts - t0, ys, 1e-14, kSampleStall, 60,
                                           crossing_derivative)
                            : partial.step(projected_rhs, integrator->time(), y_end, ts - integrator->time(), ys, 1e-14,
                                           kSampleStall, 60, crossing_derivative);
    }
    if (!partial_problem.empty()) collocation->interpolate((ts - t0) / h_crossing, ys);  // order 4 there
    emit(sampleTime(next), ys, ts < integrator->time());
    ++next;
  }
}

/// An ordinary step of the integrator (to the plan's start or the guard at the most) and its
/// samples; false when it failed.
bool Run::ordinaryStep(Scalar t0) {
  const ode::StepResult step = integrator->step(std::min(options.t_end, plan.active ? plan.t_stop(t0) : t_guard));
  RunFailure failure;
  if (!step.ok) {
    failure.reason = RunFailure::Reason::IntegratorGaveUp;
    failure.integrator = step;
  } else if (++steps > options.ode.max_steps) {
    failure.reason = RunFailure::Reason::TooManySteps;
    failure.steps = options.ode.max_steps;
  } else if (stepsCollapsed()) {
    failure = collapse();
  }
  if (failure.reason != RunFailure::Reason::None) {
    positions(integrator->time(), integrator->state(), xp);
    // (a step fails where its right-hand side did, or where its error control gave up)
    failure.t = integrator->time();
    failure.near = nearSingularity(model, xp, rank);
    failure.cause = rhs_problem;
    result.fail(rhs_problem.empty() ? RunStatus::StepFailed : RunStatus::EvaluationFailed, failure.t,
                std::move(failure));
    return false;
  }
  setOrdinaryStepReaders(t0);
  while (result.ok && next <= last && sampleTime(next) <= integrator->time() + 1e-12 * std::abs(options.t_end)) {
    integrator->interpolate(std::min(sampleTime(next), integrator->time()), y);
    emit(sampleTime(next), y);
    ++next;
  }
  return true;
}

/// Whether the steps have collapsed (kCollapsedStep, kMaxCollapsedSteps): the error test keeps
/// failing on a right-hand side that is not smooth at the tolerance asked.
bool Run::stepsCollapsed() {
  if (++window_steps < kMaxCollapsedSteps) return false;
  const Scalar span = integrator->time() - window_t0;
  if (span < static_cast<Scalar>(kMaxCollapsedSteps) * kCollapsedStep * motionTimeScale(model, x_start)) return true;
  window_steps = 0;
  window_t0 = integrator->time();
  return false;
}

RunFailure Run::collapse() const {
  RunFailure failure;
  failure.reason = RunFailure::Reason::StepsCollapsed;
  failure.t_from = window_t0;
  failure.steps = window_steps;
  failure.value = (integrator->time() - window_t0) / static_cast<Scalar>(window_steps);
  failure.limit = kCollapsedStep;
  failure.scale = motionTimeScale(model, x_start);
  failure.rtol = options.ode.rtol;
  return failure;
}

void Run::restartIntegrator(Scalar t, const VecX& y_now) {
  integrator->reset(t, y_now);
  window_steps = 0;
  window_t0 = t;
}

/// How the watch reads the step just taken: states from the integrator's dense output, positions
/// from the cubic through its ends unless the step is long.
void Run::setOrdinaryStepReaders(Scalar t0) {
  step_info.at = [this](Scalar t, State& x, VecX& ui) {
    integrator->interpolate(t, yi);
    positions(t, yi, x);
    ui = yi.segment(nq, nu);
  };
  // (a step long against the motion's time scale reads its positions from the integrator's
  // dense output: the cubic through the ends left a passage unseen 32 ms before the end of a
  // 0.36 s dop853 step at rtol 1e-6, the double four-bar's time scale being 0.23 s)
  step_info.long_step = integrator->time() - t0 > kHermiteStep * motionTimeScale(model, x_start);
  step_info.positions = [this](Scalar t, State& x) {
    if (step_info.long_step) {
      integrator->interpolate(t, yi);
      positions(t, yi, x);
      return;
    }
    x.t = t;
    hermite.at(t, x.q);
    if (model.dimension() == 3)
      for (int b = 0; b < model.nb(); ++b) x.q.segment<4>(7 * b + 3).normalize();
  };
}

/// The rank rose above the generic rank at the step's end: fewer motions are admissible than
/// along the motion so far, and a rigid model stops the excess with an impulse the equations do
/// not contain. True (the run failed, the event recorded) when it did.
bool Run::lockedUp(Scalar t0) {
  if (!watch_lockup || watch->lastExcessRatio() < kSingularRatio) return false;
  RunFailure failure;
  failure.reason = RunFailure::Reason::LockUp;
  failure.t_from = t0;
  failLockUp(t0, std::move(failure));
  return true;
}

std::string Run::excessEquationName() const {
  const auto& equation = model.equations()[static_cast<std::size_t>(watch->lastExcessEquation())];
  const std::string& pair = model.pairs()[static_cast<std::size_t>(equation.pair)].name;
  return equation.name == pair ? pair : equation.name + " of " + pair;
}

void Run::failLockUp(Scalar t0, RunFailure failure) {
  failure.t = xp.t;
  failure.rank_regular = rank;
  failure.equation = excessEquationName();
  failure.ratio = watch->lastExcessRatio();
  failure.motions = model.nv() - rank - 1;
  RunEvent event;
  event.kind = EventKind::LockUp;
  event.t = xp.t;
  event.t_from = t0;
  event.rank_regular = rank;
  event.rank = rank + 1;
  event.equation = watch->lastExcessEquation();
  event.ratio = watch->lastExcessRatio();
  event.new_motions = model.nv() - rank - 1;
  if (result.events.size() < kMaxEvents) result.events.push_back(std::move(event));
  result.fail(RunStatus::LockUp, xp.t, std::move(failure));
}

/// The singular configurations the watch found inside the step, pending their branch check (a
/// formulation that cannot pass one fails there).
void Run::recordApproaches(bool crossing) {
  for (const SingularWatch::Approach& approach : approaches) {
    PendingPassage p;
    VecX us;
    step_info.at(approach.t, p.x, us);
    if (!formulation.passesSingularConfigurations()) {
      RunFailure failure;
      failure.reason = RunFailure::Reason::SingularConfiguration;
      failure.t = approach.t;
      failure.near = nearSingularity(model, p.x, rank);
      failure.formulation = std::string(formulation.name());
      result.fail(RunStatus::SingularConfiguration, approach.t, std::move(failure));
      return;
    }
    p.ratio = approach.ratio;
    p.crossing = crossing;
    // at rest there, the rigid model does not decide the branch the motion leaves on (the
    // velocities alone: the dynamics at the singular configuration, which this does not need, are
    // a dense pivoted factorisation for lagrange -- 0.3 s on the 256-loop ladder)
    State xv = p.x;
    velocitiesAt(xv, us);
    p.at_rest = kineticEnergy(model, ws.kin.motion) <= kRestFraction * energy_max_T;
    p.before = regular_before ? last_regular : x_start;
    pending.push_back(std::move(p));
  }
}

/// Projection stabilisation after a step whose end drifted beyond the trigger: positions onto
/// Phi = 0 (Newton with least-norm steps: along the range of C^T, paper 004 eqs. (12)-(13)); next
/// to a singular configuration Newton converges only linearly, so a result below the trigger is
/// accepted. Then velocities onto C v + b = 0 there: by the simulation for absolute formulations,
/// by the formulation (afterStep) for the others. Sets `restart` when the state moved; false when
/// the run failed.
bool Run::stabilize(bool crossing, bool& restart) {
  if (options.stabilization != Stabilization::Projection) return true;
  // (the constraints at the step's end; the dynamics are not needed for the check)
  evaluateConstraints(model, ws.kin, xp);
  Scalar position = 0, velocity = 0;
  violations(model, ws, xp, position, velocity);
  if (!crossing && position > result.max_step_position_violation) {
    result.max_step_position_violation = position;
    step_violation_time = xp.t;
  }
  const Scalar speed = ws.scaling.col.cwiseProduct(xp.v).norm() / model.characteristicLength();
  // (formulation.hpp: velocitiesFollowPositions)
  const bool velocity_trigger = !formulation.velocitiesFollowPositions() &&
                                velocity > std::max(tolerance, velocity_floor) * std::max<Scalar>(1, speed);
  // Joint coordinates leave a step across a singular configuration on the constraints, whatever
  // their drift: the next ordinary steps evaluate where the collocation ended, next to the
  // singular configuration, where the drift bends the accelerations most (formulation.hpp).
  // Measured on the IFToMM double four-bar, 10 s through 10 passages at rtol 1e-8, every body's
  // position against projection/dop853 at rtol 1e-13 (dopri5 / dop853 / adams; against the exact
  // motion, docs/simulation.md "What --rtol and --atol control"): relative lagrange 1.7e-7 / 5.2e-8 /
  // 2.8e-6 -> 3.6e-8 / 1.0e-8 / 2.4e-7, relative projection 1.0e-6 / 1.5e-5 / 5.8e-5 -> 8.0e-8 /
  // 1.2e-6 / 4.6e-6, dca 9.0e-8 / 2.5e-7 / 5.9e-7 -> 2.6e-8 / 4.6e-9 / 3.0e-7; in absolute
  // coordinates it made lagrange and projection less accurate (adams 3.1e-6 -> 3.9e-5): not there.
  const bool after_crossing = crossing && coordinates->tree() != nullptr;
  if (position <= tolerance && !velocity_trigger && !after_crossing) return true;
  velocity_projection = position <= tolerance && velocity_trigger;
  AssemblyResult projected = assemblePositions(model, check, xp, projection);
  if ((projected.converged || projected.position_residual <= 0.1 * tolerance) && formulation.carriesVelocities())
    projected = assembleVelocities(model, check, projected.state, projection);
  else if (projected.position_residual <= 0.1 * tolerance)
    projected.converged = true;
  if (!projected.converged && position <= kPostponeFactor * tolerance &&
      velocity <= kPostponeFactor * tolerance * std::max<Scalar>(1, speed)) {
    ++result.projections_postponed;  // keep the (still small) violation and try again after the next step
  } else if (!projected.converged) {
    RunFailure failure = failureAt(RunFailure::Reason::ProjectionFailed, xp.t, projected.message);
    failure.near = nearSingularity(model, xp, rank);
    result.fail(RunStatus::ProjectionFailed, xp.t, std::move(failure));
    return false;
  } else {
    xp = projected.state;
    if (formulation.carriesVelocities()) u = xp.v;
    step_info.projected = restart = true;
    ++result.projections;
  }
  if (step_info.projected) {
    try {
      coordinates->fromState(xp, p_end);  // (joint coordinates: re-derived from the moved bodies)
    } catch (const InvalidArgument& e) {
      result.fail(RunStatus::ProjectionFailed, xp.t, failureAt(RunFailure::Reason::NoJointCoordinates, xp.t, e.what()));
      return false;
    }
  }
  return true;
}

/// After a projection for the velocities alone: where the formulation's velocities, taken onto
/// the constraints, still violate them above the trigger, that is the floor its velocity map
/// holds them to (measured: the HDCA on the Bricard mechanism at rtol 1e-12 derives velocities
/// from its momenta to 1.5e-11 scaled near rest; a trigger of 1e-11 projected after every step,
/// each restarting adams, 317 000 projections by t = 5.5 s), and the trigger rises above it --
/// only at a regular configuration and up to kPostponeFactor times the trigger: next to a
/// singular configuration or a lock-up the velocities cannot be projected well, and a floor
/// learned there (1e4 times the trigger, measured) would let them drift for the rest of the run.
/// Beyond that the constraints do not admit the velocities: after kMaxUnheldSteps such steps in a
/// row the run stops (false), naming the next row's |R_rr| / |R_11| where it is rising towards a
/// lock-up (issue 45: dca with adams on the car with inconsistent steering projected after each
/// of 10^6 steps, 38 s, before its lock-up; now it stops at t = 0.505 s, the next row at 4.6e-6;
/// a few such steps before the watch names the lock-up are left alone).
bool Run::learnVelocityFloor() {
  velocity_projection = false;
  if (watch->lastRatio() < kRegularRatio || !velocitiesAt(xp, u).empty()) return true;  // (the next step says why)
  Scalar position = 0, velocity = 0;
  violations(model, ws, xp, position, velocity);
  const Scalar speed = ws.scaling.col.cwiseProduct(xp.v).norm() / model.characteristicLength();
  const Scalar per_speed = velocity / std::max<Scalar>(1, speed);
  if (per_speed <= std::max(tolerance, velocity_floor)) {
    unheld_steps = 0;
    return true;
  }
  if (2 * per_speed <= kPostponeFactor * tolerance) {
    velocity_floor = 2 * per_speed;
    unheld_steps = 0;
    return true;
  }
  if (++unheld_steps < kMaxUnheldSteps) return true;
  RunFailure failure;
  failure.reason = RunFailure::Reason::VelocitiesUnheld;
  failure.t = xp.t;
  failure.value = per_speed;
  failure.limit = kPostponeFactor;
  if (watch_lockup && watch->lastExcessRatio() > 0 && watch->lastExcessEquation() >= 0) {
    // the rank rising: the lock-up the watch would name at kSingularRatio, begun
    failure.reason = RunFailure::Reason::LockUpForming;
    failLockUp(xp.t, std::move(failure));
    return false;
  }
  result.fail(RunStatus::ConstraintViolation, xp.t, std::move(failure));
  return false;
}

/// The next singular configuration: predicted from the ratio at the last two step ends (near one,
/// the singular value ratio, which is smooth); a motion that stays at one fails; the guard for
/// the next ordinary step; the evaluation mode; the next step's start.
void Run::planNextStep(Scalar t0, bool crossing) {
  const Scalar ratio = watch->lastRatio();
  steps_near = ratio < kCrossingRatio ? steps_near + 1 : 0;
  if (steps_near > kMaxStepsNear) {
    RunFailure failure;
    failure.reason = RunFailure::Reason::RestsAtSingular;
    failure.t_from = t_near;
    failure.t = integrator->time();
    failure.steps = steps_near;
    failure.near = nearSingularity(model, xp, rank);
    result.fail(RunStatus::RestsAtSingular, t_near, std::move(failure));
    return;
  }
  if (steps_near == 1) t_near = integrator->time();
  // (not across a step that crossed one: its ends lie on either side of the singular
  // configuration, and their secant extrapolates a phantom one -- measured: dop853 at rtol 1e-6
  // on the double four-bar planned a 0.84 s collocation step across nothing after the passage at
  // 5.113 s and lost 1.2e-4 of its energy in it)
  if (ratio < kPredictRatio && !crossing) {
    const Scalar sigma_previous = singularValueRatio(x_start);
    const Scalar sigma = singularValueRatio(xp);
    updateCrossingPlan(plan, x_start.t, sigma_previous, integrator->time(), sigma, integrator->nextStepSize(),
                       motionTimeScale(model, xp), options.ode.rtol);
  } else {
    plan.active = false;
  }
  if (depart) {
    plan = departurePlan(model, xp);
    depart = false;
  }
  if (plan.active && plan.t_star - 0.5 * plan.h >= options.t_end) plan.active = false;
  // A falling ratio: the next ordinary step stops halfway to where the last step's secant reaches
  // zero, so that no step jumps across a singular configuration before its plan (below
  // kPredictRatio) is made. Long steps do otherwise (measured: dop853 at rtol 1e-8 on the
  // double four-bar stepped over one of its 10 crossings, from |R_rr| / |R_11| above 0.1 on one
  // side to past it, and carried 5e-5 m of error away from the 4-loop ladder's).
  t_guard = std::numeric_limits<Scalar>::infinity();
  if (!plan.active && !depart && ratio < ratio_before && integrator->time() > t0)
    t_guard = integrator->time() + 0.5 * ratio * (integrator->time() - t0) / (ratio_before - ratio);
  ratio_before = ratio;
  if (const bool project = ratio < kProjectRatio; project != rhs_how.project) setProjectMode(project, integrator->time());
  if (!result.ok) return;
  positions(integrator->time(), integrator->state(), x_start);
  x_start.v = xp.v;  // (projected with the positions where the step was projected)
  hermite.setEnd(model, 0, x_start);
}

/// The end of the run: passages the motion had not yet moved away from (judged at its end), the
/// statistics, the final state and the checks.
void Run::finish() {
  clock.enter(Stage::Checks);
  if (result.ok) judgePassages(xp);
  LOOPDYN_CHECK(!result.ok || next > last, "a completed run emitted ", next, " of its ", last + 1, " samples");
  result.statistics = integrator->statistics();
  result.statistics.steps += result.crossing_steps;
  if (options.integrator == ode::Method::Adams && result.statistics.steps >= kRestartWarningSteps &&
      static_cast<Scalar>(result.restarts) > kRestartWarningShare * static_cast<Scalar>(result.statistics.steps)) {
    RunWarning warning;
    warning.kind = RunWarning::Kind::AdamsRestarts;
    warning.count = result.restarts;
    warning.steps = result.statistics.steps;
    warning.projections = result.projections;
    result.warnings.push_back(warning);
  }
  if (velocity_floor > 0) {
    RunWarning warning;
    warning.kind = RunWarning::Kind::VelocityFloor;
    warning.name = std::string(formulation.name());
    warning.value = velocity_floor / 2;
    warning.bound = tolerance;
    warning.raised = velocity_floor;
    result.warnings.push_back(warning);
  }
  positions(integrator->time(), integrator->state(), result.final_state);
  u = integrator->state().segment(nq, nu);
  formulation.evaluate(model, ws, result.final_state, u, du, Evaluation{false, true});
  checkEnergyAndViolation();
  clock.enter(Stage::Checks);
  const auto& seconds = clock.seconds();
  result.stage_seconds = {seconds[0], seconds[1], seconds[2], seconds[3], seconds[4], seconds[5], seconds[6]};
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
}

/// The checks that say whether the result is physically right (see the header): the energy
/// balance against its scale, the constraints' drift.
void Run::checkEnergyAndViolation() {
  // (at least the work gravity does over the characteristic length: a mechanism held at rest has no
  // other energy scale, and its rounding-level drift is not a relative error of 1)
  Scalar gravity_scale = 0;
  for (const Body& body : model.bodies()) gravity_scale += body.mass * model.gravity().norm() * model.characteristicLength();
  result.energy_scale = std::max(energy_max_T + energy_dV, gravity_scale);
  if (result.ok)
    if (auto blind = energyBlindSpot(energy_max_T + energy_dV, gravity_scale, energyTolerance(options)))
      result.warnings.push_back(std::move(*blind));
  const Scalar drift = result.energy_scale > 0 ? result.energy_drift_max / result.energy_scale : result.energy_drift_max;
  if (result.ok && drift > energyTolerance(options)) {
    RunFailure failure;
    failure.reason = RunFailure::Reason::EnergyDrift;
    failure.t = energy_drift_time;
    failure.value = drift;
    failure.limit = energyTolerance(options);
    failure.rtol = options.ode.rtol;
    result.fail(RunStatus::EnergyDrift, energy_drift_time, std::move(failure));
  }
  // (at the step ends with projection: between them the samples' violation also holds the
  // interpolation error of the integrator's dense output, up to 140 x the trigger for a fully
  // driven Stewart platform whose step ends stay below it; without projection, at the samples)
  const bool projecting = options.stabilization == Stabilization::Projection;
  const Scalar violation_limit = projecting ? std::min(kPostponeFactor * tolerance, kMaxStepViolation) : kMaxStepViolation;
  const Scalar violation = projecting ? result.max_step_position_violation : result.max_position_violation;
  if (result.ok && violation > violation_limit) {
    RunFailure failure;
    failure.reason = RunFailure::Reason::PositionsViolated;
    failure.t = projecting ? step_violation_time : sample_violation_time;
    failure.value = violation;
    failure.limit = violation_limit;
    failure.bound = kMaxStepViolation;
    failure.at_step_end = projecting;
    result.fail(RunStatus::ConstraintViolation, failure.t, std::move(failure));
  }
}

}  // namespace loopdyn::detail
