#pragma once
/// Lagrange's equations in relative coordinates (issue 15): the spanning tree's joint coordinates,
/// with the equations of the joints outside the tree (cut joints, distance joints, knife edges) and
/// of the drivers kept as constraints:
///   M_r a_r + C_r^T mu = Q_r,   C_r a_r = gamma_r,
/// where M_r = J^T M J, Q_r = J^T (F - M Jdot v_r), C_r = C_cut J and gamma_r = Gamma_cut - C_cut
/// Jdot v_r (tree_dynamics.hpp for the tree part; C_cut, Gamma_cut: the absolute rows of those
/// pairs). The multipliers mu are the least-norm ones (C_r M_r^-1 C_r^T mu = ..., redundant rows
/// allowed), and the accelerations are unique as in absolute coordinates.
///
/// Reactions: every row's multiplier follows from the bodies' equations F - M A = C^T lambda
/// (A = J a_r + Jdot v_r), with the least-norm choice of the absolute lagrange formulation
/// (leastNormMultipliers): the reactions of the tree joints, which relative coordinates
/// eliminate, are reported as in absolute coordinates -- the unique ones are the same, and so are
/// the non-unique ones, being the same choice (docs/uniqueness.md).
///
/// In a simulation the integrator carries the joint coordinates and velocities (u = v_r), so the
/// tree joints hold exactly; projections onto the remaining constraints are done on the absolute
/// state (formulation.hpp: least change in the kinetic metric, which for velocities that satisfy
/// the tree joints is the least change in M_r) and mapped back to joint coordinates.
///
/// Dense with an explicit J (O(n^2) memory, O(n^3) time): the baseline of the recursive methods.

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"

namespace loopdyn {

class RelativeLagrangeFormulation final : public Formulation {
 public:
  explicit RelativeLagrangeFormulation(const Model& model);
  std::string_view name() const override { return "lagrange"; }
  std::unique_ptr<Coordinates> coordinates(const Model& model) const override;
  /// At an absolute state x (its joint coordinates derived from it), with the multipliers.
  std::string solve(const Model& model, DynamicsWorkspace& ws, const State& x) const override;

  int velocityStateSize(const Model&) const override { return tree_.nv(); }
  bool carriesVelocities() const override { return false; }
  /// u = v_r of the assembled state x.
  std::string start(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) override;
  /// x.q_r holds the joint coordinates (Coordinates::toState); fills x.v_r = u, x.q and x.v,
  /// ws.a (the bodies' accelerations A), ws.a_r = du and ws.lambda when asked.
  std::string evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                       Eigen::Ref<VecX> du, const Evaluation& how) const override;
  /// mu^T b_cut (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;
  /// After the simulation projected the positions: the joint velocities projected onto the
  /// constraints there.
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) override;

  const TreeKinematics& tree() const { return tree_; }

 private:
  /// The dynamics at x (q, v, q_r, v_r consistent).
  std::string solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, bool multipliers) const;

  TreeKinematics tree_;
  std::vector<int> rows_;  ///< rows of C left as constraints
};

}  // namespace loopdyn
