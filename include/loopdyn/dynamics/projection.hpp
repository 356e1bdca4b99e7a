#pragma once
/// QR projection onto the tangent subspace with continuation (paper 004): the Maggi-Kane
/// equations in minimal velocities, for redundant constraints and through singular configurations.
///
/// In the dimensionless velocities v~ = diag(col)^-1 v (kinematics/scaling.hpp), A = C_s and
/// A^T P = Q1 [R11 R12] (dynamics/tangent_space.hpp; r = the generic rank, K the first r pivoted
/// rows, independent):
///   v~ = T u + Q1 p',         R11^T p'  = -(diag(row) b)_K                 (eqs. (9), (11b))
///   a~ = T u_dot' + Q1 p'',   R11^T p'' =  (diag(row) Gamma)_K             (eq. (10))
///   (T^T M~ T) u_dot' = T^T (F~ - M~ Q1 p''),  M~ = S M S, F~ = S F        (eq. (11a))
/// T (n x f, f = n - r) spans the admissible motions, T = Q2 for independent constraints and
/// [Q1s Q2] for redundant ones (eqs. (25), (28)); u are the generalized velocities.
///
/// Continuation (sect. 2.4). Q2 is not unique: recomputed by QR at every step it jumps (a sign,
/// or an arbitrary rotation for f > 1), and so do the generalized velocities. The paper evolves
/// it with Q_dot = Q Omega, Omega_22 = 0 (Q2 turns as little as possible), Omega_21 from eq. (20).
/// Only the Q2 block matters (Q1 is refactorised anyway), and with Omega_21 = T^T A_dot^T R11^-1
///   T_dot = -Q1 Omega_21^T = -Q1 R11^-T (A_dot T)_K = -A_K^+ A_dot_K T                 (*)
/// (the least change of T that keeps A T = 0). loopdyn integrates (*) with the integrator itself,
/// T in the ODE state next to u, instead of the exponential update of eq. (22): the same equation
/// (15), integrated to the simulation's tolerance rather than with Omega frozen over a step, and
/// usable by every integrator (adams included). Since T^T T_dot = 0, differentiating
/// v~ = T u + Q1 p' gives du/dt = T^T a~ - Omega_21 p' (the last term only with drivers). A_dot T
/// comes from central differences of C along the motion (step 5e-6 L / |v~|). Whenever T has
/// drifted from orthonormal and tangent by more than the projection tolerance, and after every
/// position projection (Newton along Q1, eqs. (12)-(13): sim/simulation.hpp), T is replaced by the
/// closest orthonormal tangent basis (App. A, tangent_space.hpp), u by T^T v~, and the integrator
/// restarts. With continuation off, T is the plain Q2 of a fresh QR after every accepted step.
///
/// Singular configurations (sect. 2.5): where |R_rr| / |R_11| dips inside a step, the step is
/// searched for the closest approach; where the ratio falls below kSingularRatio there, the
/// passage is recorded with the rank, the new admissible motions (null C_s there, orthogonal to
/// the continued T) and the continued T, the admissible motion that carries the motion through.
///
/// Release. Next to a singular configuration the smallest singular value s of R11 (of A_K)
/// vanishes and the solves with R11^T amplify every constraint drift by 1/s: in p'' (the
/// accelerations) and in Omega_21 (the turning of T). As in the lagrange formulation
/// (formulation.hpp), a direction of singular value s is weighted by s^4 / (s^4 + rho^4)
/// (s relative to the largest), rho = the simulation's release (default 10 sqrt(rtol)): the
/// motion in the tracked T is untouched, the constraint force and the turning of T along the
/// vanishing direction are released over a window of relative size rho, and the projection
/// after the step removes the drift this lets through.
///
/// Multipliers (for reactions) are the least-norm solution of C^T lambda = F - M a in the scaled
/// multipliers, the same as the lagrange formulation with release 0: unique reactions agree with
/// every formulation, and non-unique ones follow the least-norm choice.

#include <vector>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"

namespace loopdyn {

struct SingularPassage {
  Scalar t = 0;
  Scalar ratio = 0;      ///< |R_rr| / |R_11| at the closest approach
  int rank_regular = 0;  ///< the generic rank r
  int rank = 0;          ///< the rank at the singular configuration
  MatX continuing;       ///< nv x f: the tracked admissible motions, continued through (velocity units)
  MatX new_motions;      ///< nv x (r - rank): admissible only at the singular configuration
};

class ProjectionFormulation final : public Formulation {
 public:
  /// rank: the generic rank of C on the motion (analyzeConstraints). continuation false: the plain
  /// QR basis after every step (paper 004's "traditional" factorisation, for comparison).
  /// release: rho of the release near singular configurations (see the header; 0: none).
  ProjectionFormulation(const Model& model, int rank, bool continuation = true, Scalar release = 0);
  std::string_view name() const override { return "projection"; }
  /// At a consistent state x, with T the plain Q2 there.
  std::string solve(const Model& model, DynamicsWorkspace& ws, const State& x) const override;

  int velocityStateSize(const Model&) const override { return n_ * f_ + f_; }
  bool carriesVelocities() const override { return false; }
  std::string start(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) override;
  std::string evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                       Eigen::Ref<VecX> du, bool multipliers) const override;
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) override;
  int generalizedVelocityCount(const Model&) const override { return f_; }
  Eigen::Ref<const VecX> generalizedVelocities(Eigen::Ref<const VecX> u) const override { return u.tail(f_); }

  int degreesOfFreedom() const { return f_; }
  const std::vector<SingularPassage>& singularPassages() const { return passages_; }
  std::string startEvent() const override { return start_event_; }
  long basisResets() const { return resets_; }  ///< times T was re-orthogonalised or refactorised

 private:
  /// p <- R11^-T p (columns), or its released form next to a singular configuration.
  void solveTransposed(DynamicsWorkspace& ws, Eigen::Ref<MatX> p) const;
  void recordPassage(const Model& model, DynamicsWorkspace& ws, const Step& step, Scalar t);

  int n_, r_, f_;
  std::string start_event_;
  bool continuation_;
  Scalar release_;
  std::vector<SingularPassage> passages_;
  SingularWatch watch_;
  long resets_ = 0;
};

}  // namespace loopdyn
