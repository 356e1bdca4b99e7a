#pragma once
/// Lagrange's equations in relative coordinates (issue 15): the spanning tree's joint coordinates,
/// with the equations of the joints outside the tree (cut joints, distance joints, knife edges) and
/// of the drivers kept as constraints:
///   M_r a_r + C_r^T mu = Q_r,   C_r a_r = gamma_r,
/// the joint-space equations of joint_space_equations.hpp (M_r by composite rigid bodies, Q_r by
/// the Newton-Euler backward pass, C_r = C_cut J). The multipliers mu are the least-norm ones
/// (C_r M_r^-1 C_r^T mu = ..., redundant rows allowed), and the accelerations are unique as in
/// absolute coordinates.
///
/// Reactions: every row's multiplier follows from the bodies' equations F - M A = C^T lambda
/// (A = J a_r + Jdot v_r), with the least-norm choice of the absolute lagrange formulation
/// (leastNormMultipliers): the reactions of the tree joints, which relative coordinates
/// eliminate, are reported as in absolute coordinates -- the unique ones are the same, and so are
/// the non-unique ones, being the same choice (docs/uniqueness.md).
///
/// In a simulation the integrator carries the joint coordinates and velocities
/// (joint_coordinate_formulation.hpp).
///
/// Dense (the Gram matrix of C_r and its complete orthogonal decomposition, O(n^3)): the baseline
/// of the recursive methods.

#include "loopdyn/dynamics/formulations/joint_coordinate_formulation.hpp"
#include "loopdyn/dynamics/joint_space_equations.hpp"

namespace loopdyn {

class RelativeLagrangeFormulation final : public JointCoordinateFormulation {
 public:
  explicit RelativeLagrangeFormulation(const Model& model);
  std::string_view name() const override { return "lagrange"; }
  /// mu^T b of the rows left (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;
  /// The last evaluation's multipliers of the rows left as constraints (jointSpaceConstraintRows).
  const VecX& rowsLeftMultipliers() const { return mu_; }

 protected:
  std::string solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, bool multipliers) const override;

 private:
  mutable JointSpaceEquations equations_;  ///< (its buffers: one formulation object per thread)
  mutable VecX mu_;  ///< multipliers of the rows left as constraints (cut joints, drivers, knife edges)
};

}  // namespace loopdyn
