#pragma once
/// QR projection onto the tangent subspace with continuation (paper 004) in joint coordinates
/// (issue 15): the Maggi-Kane equations of projection.hpp, written for the equations that joint
/// coordinates leave (joint_space_equations.hpp):
///   M_r a_r + C_r^T mu = Q_r,   C_r a_r = gamma_r,   C_r v_r + b_r = 0.
/// In the dimensionless joint velocities v~ = diag(col_r)^-1 v_r, with A = diag(row) C_r
/// diag(col_r) and A^T P = Q1 [R11 R12] (tangent_space.hpp; r = the generic rank of C_r, which is
/// the rank of C less the tree joints' rows: those are independent and J spans their null space),
///   v~ = T w + Q1 p',     R11^T p'  = -(diag(row) b_r)_K                      (eqs. (9), (11b))
///   a~ = T w' + Q1 p'',   R11^T p'' =  (diag(row) gamma_r)_K                  (eq. (10))
///   (T^T M~ T) w' = T^T (Q~ - M~ Q1 p''),   M~ = S M_r S,  Q~ = S Q_r,  S = diag(col_r)  (eq. (11a))
/// T (n_r x f) spans the joint motions the remaining constraints admit; it is continued along the
/// motion as in absolute coordinates, T' = -Q1 R11^-T (A' T)_K, with A' T = diag(row) (C' J + C J')
/// diag(col_r) T exact (C' from the equations' rate jets, J' from the tree joints' axes and their
/// rates, TreeKinematics::jacobianTimes), and re-orthogonalised (App. A) when it drifts and after every
/// position projection. The integrator carries q_r and u = [T (column by column); w]: f = n_r - r
/// generalized velocities w, as many as in absolute coordinates, in a basis of n_r rows instead of
/// the bodies' n.
///
/// Singular configurations are passed as by the absolute formulation (the simulation's watch,
/// and projection onto the constraints near them). A motion that starts at one takes the branch
/// the absolute formulation finds (singular_start.hpp), its basis mapped to joint velocities
/// (V = J v_r has one solution v_r for velocities that keep the tree joints).
///
/// Multipliers: the least-norm ones over all rows of C, from the bodies' equations C^T lambda =
/// F - M A (the choice of the absolute formulations, relative_lagrange.hpp).

#include <string>

#include "loopdyn/dynamics/formulations/joint_coordinate_formulation.hpp"
#include "loopdyn/dynamics/joint_space_equations.hpp"
#include "loopdyn/dynamics/tangent_space.hpp"

namespace loopdyn {

class RelativeProjectionFormulation final : public JointCoordinateFormulation {
 public:
  /// rank: the generic rank of the absolute C on the motion (analyzeConstraints). continuation
  /// false: the plain QR basis after every step.
  RelativeProjectionFormulation(const Model& model, int rank, bool continuation = true);
  std::string_view name() const override { return "projection"; }

  int velocityStateSize(const Model&) const override { return n_ * f_ + f_; }
  bool carriesJointVelocities() const override { return false; }  ///< (u: a basis and generalized velocities)
  std::string start(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) override;
  std::optional<RunEvent> startEvent() const override { return start_event_; }
  /// x.q_r holds the joint coordinates; fills x.v_r, x.q, x.v, ws.a, ws.a_r, and du = [T'; w'].
  std::string evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                       Eigen::Ref<VecX> du, const Evaluation& how) const override;
  std::string velocities(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                         Eigen::Ref<VecX> du) const override;
  /// (M_r a_r - Q_r)^T v_r = mu^T b_r (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) override;
  int generalizedVelocityCount(const Model&) const override { return f_; }
  Eigen::Ref<const VecX> generalizedVelocities(Eigen::Ref<const VecX> u) const override { return u.tail(f_); }

  int degreesOfFreedom() const { return f_; }
  long basisResets() const { return resets_; }  ///< times T was re-orthogonalised or refactorised

 protected:
  /// At a consistent state x, with T the plain Q2 there.
  std::string solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, bool multipliers) const override;

 private:
  /// J, C_r and the tangent factorisation at x's positions (ws.kin evaluated there).
  void factorizeAt(const Model& model, DynamicsWorkspace& ws, const State& x) const;
  /// x.v_r = diag(col_r) (T w + Q1 p') and x's body velocities from them, eq. (11b), at the
  /// configuration factorizeAt last saw.
  void velocitiesFrom(const DynamicsWorkspace& ws, Eigen::Ref<const MatX> T, Eigen::Ref<const VecX> w, State& x) const;
  /// A' T~ (T~ = diag(col_r) T, rows scaled) along the motion at x (its v_r and v consistent):
  /// exact, from C's rate jets and J' (TreeKinematics::jacobianTimes).
  void constraintRateTimes(const Model& model, DynamicsWorkspace& ws, const State& x, MatX& AdotT) const;

  int n_, r_, f_;
  bool continuation_;
  std::optional<RunEvent> start_event_;
  long resets_ = 0;
  // buffers (one formulation object per thread)
  mutable JointSpaceEquations equations_;
  mutable VecX mu_;  ///< multipliers of the rows left as constraints (cut joints, drivers, knife edges)
  mutable TangentFactorization tangent_;
  mutable KinematicsWorkspace kin_rates_;  ///< the constraints and their rates at (q, T u): A' T
  mutable MatX T_projected_, TS_, Mt_, AdotT_, X_, JT_, JdotT_;
  mutable TreeKinematics::JacobianTimesScratch jacobian_scratch_;
  mutable VecX p1_, p2_, vt_, at_, rhs_;
  mutable Scalar power_ = 0;  ///< the last evaluation's constraintPower
  mutable Eigen::LLT<MatX> mt_llt_;
};

}  // namespace loopdyn
