#pragma once
/// What every formulation in relative (joint) coordinates shares (issue 15): the integrator
/// carries the spanning tree's joint coordinates q_r (kinematics/coordinates.hpp) and joint
/// velocities u = v_r, so the tree joints hold exactly. The absolute state follows from them by
/// the tree pass; projections onto the remaining constraints are done on the absolute state
/// (formulation.hpp: least change in the kinetic metric, which for velocities that satisfy the
/// tree joints is the least change in M_r = J^T M J) and mapped back to joint coordinates, exact
/// because the tree joints then hold.
///
/// A subclass supplies solveAt: the dynamics at a consistent state.

#include "loopdyn/dynamics/coordinate_equations.hpp"
#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"

namespace loopdyn {

class JointCoordinateFormulation : public Formulation {
 public:
  explicit JointCoordinateFormulation(const Model& model) : tree_(model) {}

  std::unique_ptr<Coordinates> coordinates(const Model& model) const override;
  /// At an absolute state x (its joint coordinates derived from it), with the multipliers.
  std::string solve(const Model& model, DynamicsWorkspace& ws, const State& x) const override;
  int velocityStateSize(const Model&) const override { return tree_.nv(); }
  bool carriesVelocities() const override { return false; }
  bool carriesJointVelocities() const override { return true; }
  /// u = v_r of the assembled state x.
  std::string start(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) override;
  /// x.q_r holds the joint coordinates (Coordinates::toState); fills x.v_r = u, x.q and x.v, and
  /// through solveAt ws.a (the bodies' accelerations), ws.a_r = du, ws.kin, ws.F.
  std::string evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                       Eigen::Ref<VecX> du, const Evaluation& how) const override;
  /// x.v_r = u and x.v = J v_r by the tree pass, without the dynamics. A subclass whose u is not
  /// v_r (momenta, independent velocities) overrides this back to the whole evaluation.
  std::string velocities(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                         Eigen::Ref<VecX> du) const override;
  /// After the simulation projected the positions: the joint velocities projected onto the
  /// constraints there.
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) override;

  const TreeKinematics& tree() const { return tree_; }

 protected:
  /// The dynamics at x (q, v, q_r, v_r consistent): ws.kin evaluated at x, ws.F, ws.F_nc, ws.a,
  /// ws.a_r, and ws.lambda for every row of C when `multipliers`. Returns "" or what went wrong.
  virtual std::string solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, bool multipliers) const = 0;

  TreeKinematics tree_;
};

}  // namespace loopdyn
