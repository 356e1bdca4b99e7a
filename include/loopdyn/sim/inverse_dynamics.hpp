#pragma once
/// Inverse dynamics of a prescribed motion (issue 50): the model's drivers -- the actuators, each a
/// rheonomic constraint coordinate(q) - f(t) = 0 whose multiplier is its effort (paper 001,
/// eq. (10)) -- prescribe every freedom, so at each time the positions follow from the constraints
/// (assembly from the time before's positions moved along its velocities and accelerations, then
/// checked to lie on one smooth motion with them: kinematics/motion_continuity.hpp), the velocities from C v + b = 0 and the
/// accelerations from C a = Gamma; the multipliers then solve C^T lambda = F - M a with the least
/// (scaled) norm where the model leaves them free (lagrange's solve, docs/formulations.md). Nothing
/// is integrated: each time's answer is exact to rounding for the profiles given.
///
/// Which efforts and reactions the model determines is the uniqueness analysis of the drivers' and
/// joints' rows (analysis/reaction_uniqueness.hpp): with more actuators than freedoms the efforts
/// of the redundant ones are not unique (the least-norm choice is given, and said to be one).

#include <functional>
#include <vector>

#include "loopdyn/analysis/actuation.hpp"
#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/kinematics/motion_continuity.hpp"
#include "loopdyn/sim/effort_resolution.hpp"
#include "loopdyn/sim/simulation.hpp"

namespace loopdyn {

/// How an inverse-dynamics run ended, as data.
enum class InverseStatus {
  Completed,
  /// The drivers leave freedoms: the motion is not prescribed (InverseResult::freedoms of them).
  MotionNotPrescribed,
  /// At a pose where the drivers' rows lose rank (a parallel robot's type-II singular
  /// configuration): the accelerations are not determined there and the efforts are unbounded
  /// (InverseResult::unbounded_efforts: along which).
  ActuationSingular,
  /// No configuration satisfies the constraints at that time (AssemblyResult::failure).
  AssemblyFailed,
  /// The equations of motion could not be solved there.
  EvaluationFailed,
  /// The prescribed accelerations disagree: no motion meets C a = Gamma to the tolerance
  /// (InverseOptions::acceleration_tolerance), as when redundant actuators' trajectories are not
  /// consistent (a spline through coarse samples: sample finer or give the rates).
  InconsistentMotion,
  /// The configuration assembled at t is not the one the motion from the time before reaches: the
  /// bodies' points break the Hermite rule between the two times (kinematics/motion_continuity.hpp)
  /// by more than InverseOptions::continuity_tolerance of their step -- a jump to another assembly
  /// branch, or samples too coarse to tell (sample finer).
  BranchJump,
  /// No efforts within the bounds of a bounded resolution produce the motion at that time
  /// (sim/effort_resolution.hpp; InverseResult::limited_efforts: the choice without the bounds).
  EffortLimitsExceeded,
};

struct InverseResult {
  InverseStatus status = InverseStatus::Completed;
  bool ok() const { return status == InverseStatus::Completed; }
  int samples = 0;
  Scalar t = 0;       ///< the time it failed at (the last time when completed)
  int freedoms = 0;   ///< MotionNotPrescribed, ActuationSingular: n - rank C there
  int generic_rank = 0;
  /// ActuationSingular: the directions in which the drivers' efforts grow without bound near the
  /// pose (analysis/actuation.hpp, over driverNames), one per freedom lost, apart from the
  /// preloads of redundant actuation at the time before; at a singular first time there is no
  /// regular pose to tell the preloads from them, and every self-stress's efforts are given
  /// (unbounded_with_preloads true when that includes preloads' directions).
  std::vector<VecX> unbounded_efforts;
  bool unbounded_with_preloads = false;
  /// EffortLimitsExceeded: the weighted choice of efforts without the bounds there, and the bounds
  /// (over driverNames).
  VecX limited_efforts, effort_lower, effort_upper;
  AssemblyFailure assembly;  ///< AssemblyFailed
  Problem problem;           ///< EvaluationFailed
  /// The largest ||Phi_s|| / L and ||diag(row)(C v + b)|| / L of the samples, and the largest
  /// ||diag(row)(C a - Gamma)|| / L (1/s^2): the residuals of the equations solved.
  Scalar max_position_residual = 0, max_velocity_residual = 0, max_acceleration_residual = 0;
  Scalar acceleration_bound = 0;  ///< InconsistentMotion: the bound the residual exceeded (1/s^2)
  /// The largest miss of the Hermite rule between consecutive times relative to the points' step
  /// (the continuity check), the largest accepted (InverseOptions::continuity_tolerance), and, for
  /// BranchJump, the time before t and that miss and step (m).
  Scalar max_continuity_miss = 0, continuity_bound = 0;
  Scalar t_before = 0;
  ContinuityMiss jump;
};

struct InverseOptions {
  AssemblyOptions assembly;
  /// The rank threshold of C's rank at each time (analysis/constraint_rank.hpp).
  Scalar rank_threshold = kRankThreshold;
  /// The largest ||diag(row)(C a - Gamma)|| / L accepted, relative to max(||diag(row) Gamma|| / L,
  /// 1 1/s^2): a least-squares a that misses more is not the prescribed motion.
  Scalar acceleration_tolerance = 1e-6;
  /// The largest miss of the Hermite rule between consecutive times accepted, relative to the
  /// points' step (plus kContinuityFloor L for rounding): beyond it the run stops (BranchJump).
  Scalar continuity_tolerance = 0.1;
  /// The choice among a redundant actuation's efforts, and the bounds a bounded one keeps.
  EffortResolution resolution;
};

/// The miss of the continuity check always accepted, in characteristic lengths: the assembly's
/// rounding (its tolerance 1e-12 L) a thousandfold.
inline constexpr Scalar kContinuityFloor = 1e-9;

/// The motion the model's drivers prescribe at `times` (increasing), from the assembled `x0`
/// (its time the first or earlier): each time's state, accelerations, multipliers, reactions and
/// energies to on_sample (Sample: position and velocity violations are the residuals; work is
/// zero). Stops at the first time it cannot answer (InverseResult::status).
InverseResult inverseDynamics(const Model& model, const State& x0, const std::vector<Scalar>& times,
                              const std::function<void(const Sample&)>& on_sample, const InverseOptions& options = {});

}  // namespace loopdyn
