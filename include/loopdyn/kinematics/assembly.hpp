#pragma once
/// Assembly: from an approximate configuration to one that satisfies every constraint.
///
/// Positions: Newton iteration on Phi(q, t) = 0 with the minimum-norm least-squares step
/// dq = -C_s^+ Phi_s (complete orthogonal decomposition of the scaled holonomic Jacobian), so that
/// redundant (dependent) equations do not break it. Bodies marked `hold: true`
/// (Model::heldBodies) are not moved: their columns are left out of every step. Velocities: C v + b = 0 including the
/// Pfaffian rows; the velocity coordinates the model prescribes are kept and the others found
/// with the least (scaled) norm; if the prescription itself violates the constraints, the
/// smallest change to all velocities is made and reported.

#include <string>
#include <vector>

#include "loopdyn/kinematics/assembly_misfit.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

struct AssemblyOptions {
  /// Converged when the scaled residual ||Phi_s|| / L is below this (L: characteristic length),
  /// or below the rounding floor of the mechanism's coordinates (positionResidualFloor) if larger.
  Scalar position_tolerance = 1e-12;
  Scalar velocity_tolerance = 1e-12;
  int max_iterations = 50;
  /// Singular values below this fraction of the largest are treated as zero in the steps.
  Scalar rank_threshold = 1e-9;
  /// Prescribed velocities (Model::prescribedVelocities) are kept when consistent.
  bool keep_prescribed_velocities = true;
  /// From kSparseRows equations (model/model.hpp) the steps are sparse minimum-norm solves while
  /// the equations are independent (linalg/sparse_minimum_norm.hpp); false: always dense.
  bool sparse_route = true;
};

struct AssemblyResult {
  State state;
  bool converged = false;
  int iterations = 0;
  Scalar position_residual = 0;  ///< ||Phi_s|| / L at the end
  Scalar velocity_residual = 0;  ///< ||diag(row)(C v + b)|| / L at the end (1/s)
  bool prescribed_velocities_kept = true;
  Scalar velocity_change = 0;    ///< how far the prescribed velocities had to move (scaled)
  std::vector<Scalar> pair_residuals;  ///< per pair, at the end (see pairResiduals)
  /// Why it did not converge (kind None when it did), with the pairs, loop and numbers involved.
  AssemblyFailure failure;
  /// Empty when converged; otherwise failure's sentence (assemblyFailureText).
  std::string message;
};

/// Positions, then velocities. Never throws for numerical failure: see converged/failure.
AssemblyResult assemble(const Model& model, KinematicsWorkspace& ws, const State& guess,
                        const AssemblyOptions& options = {});

/// Positions only (velocities copied from the guess).
AssemblyResult assemblePositions(const Model& model, KinematicsWorkspace& ws, const State& guess,
                                 const AssemblyOptions& options = {});

/// Velocities only, at the guess's positions (assumed assembled).
AssemblyResult assembleVelocities(const Model& model, KinematicsWorkspace& ws, const State& guess,
                                  const AssemblyOptions& options = {});

}  // namespace loopdyn
