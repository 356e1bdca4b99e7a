#include "loopdyn/sim/inverse_dynamics.hpp"

#include <cmath>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"
#include "run_diagnostics.hpp"

namespace loopdyn {

namespace {

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

  InverseRun(const Model& m, const InverseOptions& o, const State& x0) : model(m), options(o), kin(m), ws(m), lagrange(m), x(x0) {
    result.continuity_bound = o.continuity_tolerance;
  }

  /// The generic rank of C on the motion through the start (a rank below it later is a singular pose).
  bool checkPrescribed() {
    RankOptions rank;
    rank.rank_threshold = options.rank_threshold;
    const RankReport report = analyzeConstraints(model, kin, x, rank);
    result.generic_rank = report.generic_rank;
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

  /// C's rank at x: below the generic rank the drivers do not determine the accelerations.
  bool checkRegular() {
    RankOptions rank;
    rank.rank_threshold = options.rank_threshold;
    rank.generic_samples = 0;
    const RankReport report = analyzeConstraintsAt(model, kin, x, rank);
    if (report.rank >= result.generic_rank) return true;
    result.status = InverseStatus::ActuationSingular;
    result.freedoms = model.nv() - report.rank;
    return false;
  }

  /// The accelerations, multipliers and reactions at x, and the residuals of the equations solved.
  bool solveAt() {
    const Problem problem = lagrange.solve(model, ws, x);
    if (!problem.empty() || !ws.a.allFinite() || !ws.lambda.allFinite()) {
      result.status = InverseStatus::EvaluationFailed;
      result.problem = problem.empty() ? Problem::of(Problem::Kind::NonFiniteAccelerations) : problem;
      return false;
    }
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
