#include "loopdyn/sim/inverse_dynamics.hpp"

#include <cmath>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/common/golden_section.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"
#include "run_diagnostics.hpp"

namespace loopdyn {

namespace {

/// The search for an actuation singularity between two times stops where its bracket is this short
/// (s, relative beyond 1 s): about 25 assemblies for a 10 ms gap.
constexpr Scalar kPassageResolution = 1e-7;

/// What one inverse-dynamics run keeps from time to time.
struct InverseRun {
  const Model& model;
  const InverseOptions& options;
  InverseResult result;
  KinematicsWorkspace kin;
  DynamicsWorkspace ws;
  LagrangeFormulation lagrange;
  State x;
  Sample sample;
  State x_before;  // the time before's state and accelerations (the continuity check's other end)
  VecX a_before;
  Scalar ratio_before = 1;   // the time before's |R_rr| / |R_11| (checkRegular)
  Scalar regular_ratio = 1;  // its regular level on the motion (RankReport::generic_ratio)
  bool resolve = false;      // the efforts are chosen (redundant actuation) or checked (bounds)

  InverseRun(const Model& m, const InverseOptions& o, const State& x0) : model(m), options(o), kin(m), ws(m), lagrange(m), x(x0) {
    result.continuity_bound = o.continuity_tolerance;
    resolve = o.resolution.kind == EffortResolution::Kind::Bounded || !effortPreloads(m, x0, o.rank_threshold).empty();
  }

  /// The generic rank of C on the motion through the start (a rank below it later is a singular pose).
  bool checkPrescribed() {
    RankOptions rank;
    rank.rank_threshold = options.rank_threshold;
    const RankReport report = analyzeConstraints(model, kin, x, rank);
    result.generic_rank = report.generic_rank;
    regular_ratio = report.generic_ratio;
    result.freedoms = model.nv() - report.generic_rank;
    if (result.freedoms == 0) return true;
    result.status = InverseStatus::MotionNotPrescribed;
    result.t = x.t;
    return false;
  }

  /// Positions and velocities at t, from the configuration before moved to t along its motion
  /// (q + v h + a h^2/2).
  bool assembleAt(Scalar t) {
    State guess = x;
    guess.t = t;
    if (a_before.size() > 0) {
      const Scalar h = t - x.t;
      displacePositions(model, x.q, h * x.v + h * h / 2 * a_before, guess.q);
    }
    AssemblyOptions assembly = options.assembly;
    assembly.keep_prescribed_velocities = false;  // (the drivers and the constraints decide them)
    AssemblyResult assembled = assemble(model, kin, guess, assembly);
    if (!assembled.converged) {
      result.status = InverseStatus::AssemblyFailed;
      result.assembly = assembled.failure;
      return false;
    }
    x = std::move(assembled.state);
    return true;
  }

  /// C's rank at `at`, and its |R_rr| / |R_11| at the generic rank r (the distance from an
  /// actuation singularity, as the simulation's watch reads it: dynamics/singular_watch.hpp).
  RankReport rankAt(const State& at, Scalar& ratio) {
    RankOptions rank;
    rank.rank_threshold = options.rank_threshold;
    rank.generic_samples = 0;
    const RankReport report = analyzeConstraintsAt(model, kin, at, rank);
    ratio = pivotRatio(report, result.generic_rank);
    return report;
  }

  /// x regular, and no actuation singularity passed since the time before: C's rank at x not below
  /// the generic rank, its ratio not below kSingularRatio of the regular level, and, where the
  /// ratio at either time is below kNearSingular of it, its smallest value between them found by
  /// golden-section search (each point a configuration assembled there) not below it either.
  bool checkRegular() {
    Scalar ratio = 1;
    const RankReport report = rankAt(x, ratio);
    const Scalar passage = kSingularRatio * regular_ratio, near = kNearSingular * regular_ratio;
    if (report.rank < result.generic_rank || ratio < passage)
      return singularAt(x, std::max(result.generic_rank - report.rank, 1));
    const bool first = a_before.size() == 0;
    if (!first && std::min(ratio_before, ratio) < near) {
      Scalar lo = x_before.t, hi = x.t;
      const LineMinimum closest = goldenSectionMinimum([&](Scalar t) { return ratioBetween(t); }, lo, hi, [&](Scalar a, Scalar b) {
        return b - a <= kPassageResolution * std::max<Scalar>(1, std::abs(b));
      });
      if (closest.value < passage) {
        State at;
        predictedAssembly(closest.t, at);
        return singularAt(at, 1);
      }
    }
    ratio_before = ratio;
    return true;
  }

  /// The ratio at time t between the time before and x (a configuration assembled there; 1 when none is).
  Scalar ratioBetween(Scalar t) {
    State at;
    if (!predictedAssembly(t, at)) return 1;
    Scalar ratio = 1;
    rankAt(at, ratio);
    return ratio;
  }

  /// The positions at t from the time before's moved along its motion, assembled.
  bool predictedAssembly(Scalar t, State& at) {
    State guess = x_before;
    guess.t = t;
    const Scalar h = t - x_before.t;
    displacePositions(model, x_before.q, h * x_before.v + h * h / 2 * a_before, guess.q);
    AssemblyResult assembled = assemblePositions(model, kin, guess, options.assembly);
    at = std::move(assembled.state);
    return assembled.converged;
  }

  /// Stops at the singular pose `at`, which lost `lost` of C's rank (or comes within
  /// kSingularRatio of losing one).
  bool singularAt(const State& at, int lost) {
    result.status = InverseStatus::ActuationSingular;
    result.t = at.t;
    result.freedoms = lost;
    findUnboundedEfforts(at, lost);
    return false;
  }

  /// The efforts' directions of growth at the singular pose `at`: apart from the preloads at the
  /// time before, or, at the first time, every self-stress's.
  void findUnboundedEfforts(const State& at, int lost) {
    const bool first = a_before.size() == 0;
    const std::vector<VecX> preloads = first ? std::vector<VecX>{} : effortPreloads(model, x_before, options.rank_threshold);
    result.unbounded_efforts =
        unboundedEfforts(model, at, first ? nullptr : &preloads, result.generic_rank, lost, options.rank_threshold);
    result.unbounded_with_preloads = first && static_cast<int>(result.unbounded_efforts.size()) > lost;
  }

  /// The accelerations, multipliers and reactions at x, and the residuals of the equations solved.
  bool solveAt() {
    const Problem problem = lagrange.solve(model, ws, x);
    if (!problem.empty() || !ws.a.allFinite() || !ws.lambda.allFinite()) {
      result.status = InverseStatus::EvaluationFailed;
      result.problem = problem.empty() ? Problem::of(Problem::Kind::NonFiniteAccelerations) : problem;
      return false;
    }
    if (resolve && !resolveEfforts(model, ws.kin, options.resolution, ws.lambda, options.rank_threshold))
      return effortsOutOfBounds();
    sample.x = x;
    sample.a = ws.a;
    sample.lambda = ws.lambda;
    pairReactions(model, ws.kin.motion, ws.lambda, sample.reactions);
    sample.kinetic = kineticEnergy(model, ws.kin.motion);
    sample.potential = potentialEnergy(model, ws.kin.motion);
    detail::violations(model, ws, x, sample.position_violation, sample.velocity_violation);
    result.max_position_residual = std::max(result.max_position_residual, sample.position_violation);
    result.max_velocity_residual = std::max(result.max_velocity_residual, sample.velocity_violation);
    return checkAccelerations() && checkContinuity();
  }

  /// Stops where the bounds admit no efforts, with the weighted choice without them.
  bool effortsOutOfBounds() {
    result.status = InverseStatus::EffortLimitsExceeded;
    EffortResolution unbounded = options.resolution;
    unbounded.kind = EffortResolution::Kind::Weighted;
    VecX lambda = ws.lambda;
    resolveEfforts(model, ws.kin, unbounded, lambda, options.rank_threshold);
    const std::vector<Eigen::Index> rows = driverRows(model);
    result.limited_efforts.resize(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) result.limited_efforts(static_cast<Eigen::Index>(i)) = -lambda(rows[i]);
    result.effort_lower = options.resolution.lower;
    result.effort_upper = options.resolution.upper;
    return false;
  }

  /// This time's state on one smooth motion with the time before's (kinematics/motion_continuity.hpp).
  bool checkContinuity() {
    const bool first = a_before.size() == 0;
    const ContinuityMiss miss = first ? ContinuityMiss{} : continuityMiss(model, x_before, a_before, x, ws.a);
    x_before = x;
    a_before = ws.a;
    if (first) return true;
    const Scalar floor = kContinuityFloor * model.characteristicLength();
    result.max_continuity_miss = std::max(result.max_continuity_miss, miss.miss / std::max(miss.step, floor));
    if (miss.miss <= options.continuity_tolerance * miss.step + floor) return true;
    result.status = InverseStatus::BranchJump;
    result.jump = miss;
    return false;
  }

  /// ||diag(row)(C a - Gamma)|| / L within the tolerance: the accelerations are the prescribed ones.
  bool checkAccelerations() {
    Scalar miss = 0, size = 0;  // |diag(row) (C a - Gamma)|^2, |diag(row) Gamma|^2
    for (Eigen::Index i = 0; i < model.nc(); ++i) {
      const Scalar e = ws.scaling.row(i) * (ws.kin.C.rowTimes(i, ws.a) - ws.kin.Gamma(i));
      const Scalar g = ws.scaling.row(i) * ws.kin.Gamma(i);
      miss += e * e, size += g * g;
    }
    const Scalar L = model.characteristicLength(), residual = std::sqrt(miss) / L;
    result.max_acceleration_residual = std::max(result.max_acceleration_residual, residual);
    const Scalar bound = options.acceleration_tolerance * std::max<Scalar>(std::sqrt(size) / L, 1);
    if (residual <= bound) return true;
    result.status = InverseStatus::InconsistentMotion;
    result.acceleration_bound = bound;
    return false;
  }
};

}  // namespace

InverseResult inverseDynamics(const Model& model, const State& x0, const std::vector<Scalar>& times,
                              const std::function<void(const Sample&)>& on_sample, const InverseOptions& options) {
  checkStateSize(model, x0);
  for (std::size_t i = 0; i < times.size(); ++i) {
    LOOPDYN_CHECK(std::isfinite(times[i]), "inverse dynamics: time ", i, " is not finite");
    LOOPDYN_CHECK(i == 0 || times[i] > times[i - 1], "inverse dynamics: the times must increase strictly");
  }
  InverseRun run(model, options, x0);
  if (!run.checkPrescribed()) return run.result;
  for (const Scalar t : times) {
    run.result.t_before = run.result.t;
    run.result.t = t;
    if (!run.assembleAt(t) || !run.checkRegular() || !run.solveAt()) return run.result;
    on_sample(run.sample);
    ++run.result.samples;
  }
  return run.result;
}

}  // namespace loopdyn
