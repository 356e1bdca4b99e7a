#pragma once
/// The choice among a redundant actuation's efforts (issue 50): with more actuators than freedoms,
/// every lambda + sum_k y_k Lambda_k solves C^T lambda = F - M a, the Lambda_k the self-stresses of
/// the mechanism with its actuators locked (C^T Lambda_k = 0: they change no motion; analysis/
/// actuation.hpp) that load the actuators. The efforts tau = -lambda_d (the drivers' rows) move
/// along their drivers' rows P_k, tau = tau_0 + P y, and the joints' reactions with them, so a
/// choice keeps every reaction consistent with the efforts. The standard resolutions:
///
/// - least-norm: min sum_i tau_i^2 (the smallest efforts);
/// - weighted: min sum_i (tau_i / k_i)^2, k_i the motor constants (torque per ampere: the least
///   sum of squared currents, the copper losses);
/// - bounded: the weighted choice within lower_i <= tau_i <= upper_i -- a small strictly convex QP
///   in y (linalg/convex_qp.hpp) -- and the run stops where no choice meets the bounds; with
///   efforts that are unique the bounds are checked.
///
/// Unique efforts and the unique reactions are the same whichever is chosen.

#include <string>
#include <vector>

#include "loopdyn/kinematics/constraint_evaluation.hpp"

namespace loopdyn {

struct EffortResolution {
  enum class Kind { LeastNorm, Weighted, Bounded };
  Kind kind = Kind::LeastNorm;
  /// Over the drivers (driverNames' order), each > 0 (Weighted, Bounded; empty: 1).
  VecX motor_constants;
  /// Bounded: the efforts' bounds over the drivers (-inf / +inf where a driver has none).
  VecX lower, upper;
};

/// The resolution's name: least-norm, weighted, bounded.
std::string effortResolutionName(EffortResolution::Kind kind);

/// lambda (solving C^T lambda = F - M a at the configuration kin is evaluated at) moved along the
/// self-stresses that load the drivers to the resolution's choice. False (lambda unchanged) when
/// no efforts within the bounds produce the motion. Dense SVDs: models of at most kSparseRows
/// equations (larger ones are left as they are, their bounds checked).
bool resolveEfforts(const Model& model, const KinematicsWorkspace& kin, const EffortResolution& resolution,
                    VecX& lambda, Scalar rank_threshold);

}  // namespace loopdyn
