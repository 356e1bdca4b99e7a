#pragma once
/// Coordinate partitioning with the projective criterion in joint coordinates (paper 003, whose
/// examples are written in relative coordinates; issue 15): the equations (7)-(14) of
/// partitioning.hpp (PartitionedEquations) on the equations that joint coordinates leave
/// (joint_space_equations.hpp),
///   v_D = A v_I + eta,   a_D = A a_I + xi,   M_d a_I = h_d,   over C_r, b_r, gamma_r, M_r, Q_r,
/// with the independent coordinates I chosen among the joint velocities by the projective
/// criterion on M_r and C_r (projective_criterion.hpp, its matrix form) and the rows K by QR with
/// column pivoting of diag(col_r) C_r^T diag(row). The integrator carries q_r and u = v_I.
///
/// As in absolute coordinates: the set is switched when its quality falls below kSwitchRatio of
/// the best set's (or C_KD turns ill-conditioned), and the simulation stops at the first singular
/// configuration of the mechanism (the absolute watch, singular_watch.hpp), where every set is
/// singular: `--method projection` passes them.
///
/// Reactions: with the rows outside K carrying none, the rows left (the tree joints' and K) are
/// independent and C_left^T lambda_left = F - M A has one solution (JointSpaceEquations::
/// multipliersWithout): the reactions of the elimination of those rows.

#include <string>
#include <vector>

#include "loopdyn/dynamics/formulations/joint_coordinate_formulation.hpp"
#include "loopdyn/dynamics/joint_space_equations.hpp"
#include "loopdyn/dynamics/formulations/partitioning.hpp"

namespace loopdyn {

class RelativePartitioningFormulation final : public JointCoordinateFormulation {
 public:
  /// rank: the generic rank of the absolute C on the motion (analyzeConstraints). switch_ratio:
  /// kSwitchRatio, or 0 to keep the initial set.
  RelativePartitioningFormulation(const Model& model, int rank, Scalar switch_ratio = kSwitchRatio);
  std::string_view name() const override { return "partitioning"; }
  /// The rows of C outside the spanning tree that are not in K.
  std::vector<int> eliminatedEquations() const override;

  int velocityStateSize(const Model&) const override { return k_; }
  bool carriesJointVelocities() const override { return false; }  ///< (u: independent velocities)
  bool velocitiesFollowPositions() const override { return true; }
  bool passesSingularConfigurations() const override { return false; }
  std::string start(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) override;
  /// x.q_r holds the joint coordinates; fills x.v_r, x.q, x.v, ws.a, ws.a_r and du = a_I.
  std::string evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                       Eigen::Ref<VecX> du, const Evaluation& how) const override;
  /// (u holds the independent velocities: the whole evaluation)
  std::string velocities(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                         Eigen::Ref<VecX> du) const override {
    return Formulation::velocities(model, ws, x, u, du);
  }
  /// (M_r a_r - Q_r)^T v_r = mu^T b_r (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) override;
  int generalizedVelocityCount(const Model&) const override { return k_; }
  Eigen::Ref<const VecX> generalizedVelocities(Eigen::Ref<const VecX> u) const override { return u; }

  /// K: positions in the rows joint coordinates keep (JointSpaceEquations::rows); I, D: joint
  /// velocities.
  const Partition& partition() const { return partition_; }
  const std::vector<CoordinateSwitch>& switches() const { return switches_; }
  std::optional<PartitionSummary> partitionSummary() const override {
    return partitionSummaryOf(partition_, switches_, true);
  }

 protected:
  /// At a consistent state x, with the partition the criterion recommends there.
  std::string solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, bool multipliers) const override;

 private:
  /// The partition the projective criterion recommends at x's positions (q_r consistent).
  Partition choosePartition(const Model& model, DynamicsWorkspace& ws, const State& x) const;
  std::string evaluateWith(const Partition& p, const Model& model, DynamicsWorkspace& ws, State& x,
                           Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du, bool multipliers) const;

  int r_, k_;
  Scalar switch_ratio_;
  Partition partition_;
  Scalar best_quality_ = 0;
  std::vector<CoordinateSwitch> switches_;
  std::vector<std::string> names_;  ///< the joint velocities' names
  // buffers (one formulation object per thread)
  mutable JointSpaceEquations equations_;
  mutable VecX mu_;  ///< multipliers of the rows left as constraints (cut joints, drivers, knife edges)
  mutable PartitionedEquations partitioned_;
  mutable TangentFactorization tangent_;
  VecX row_;  ///< the scaling of the rows joint coordinates keep
  mutable Scalar power_ = 0;
};

}  // namespace loopdyn
