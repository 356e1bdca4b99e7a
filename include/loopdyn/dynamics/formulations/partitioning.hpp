#pragma once
/// Coordinate partitioning with the projective criterion (paper 003, sects. 2-5).
///
/// The velocity coordinates split into k = n - r independent ones I and r dependent ones D, on r
/// independent rows K of C (QR with column pivoting of C_s^T: the redundant rows drop out, as in
/// the elimination formulation). From C_K v + b_K = 0 and C_K a = Gamma_K,
///   v_D = A v_I + eta,   a_D = A a_I + xi,   A = -C_KD^-1 C_KI, eta = -C_KD^-1 b_K,
///   xi = C_KD^-1 Gamma_K                                                           (eqs. (7)-(10))
/// so a = D^T a_I + [0; xi] with D^T = [I; A] (rows I, rows D). Projecting M a + C^T lambda = F
/// on the tangent subspace (D C_K^T = 0) removes the multipliers:
///   M_d a_I = h_d,  M_d = D M D^T,  h_d = D (F - M [0; xi])                     (eqs. (12)-(14))
/// The integrator carries u = v_I and all of q (end of sect. 2): v follows from (q, t, u) with
/// no constraint solve, and the position drift is removed by the simulation's projection.
/// Velocity coordinates are the body velocities of kinematics/state.hpp (x, y, phi in 2D;
/// x, y, z and the world rotation rates in 3D), the quasi-velocities of absolute coordinates.
///
/// Choosing the set (sect. 4). The best set is the one projectiveCriterion() picks: QR with
/// column pivoting of the tangent projections W of the coordinate unit vectors, which is never
/// singular where a regular set exists. How good a set S is: its quality
///   mu(S) = sigma_min(W_S)  in [0, 1],
/// the smallest singular value of the projections of its unit vectors (cos alpha_i of eq. (23a)
/// for k = 1; zero exactly when S is singular). The volume |det W_S| would be the natural
/// generalisation of the paper's cosines, but one vanishing direction shrinks its k-th root only
/// slowly: on the spatial parallelogram (k = 16) a set whose volume^(1/k) was still 0.45 had one
/// direction nearly singular, and the energy jumped by 1e-3 of its scale there. For the current
/// set mu is cheap: with the tangent basis D^T (identity on I), W_I = M_d^-1/2 N_I^-1 with
/// N_I = diag(M^-1(i,i))^1/2 over I, so mu = lambda_max(N_I M_d N_I)^-1/2 (a k x k eigenproblem).

/// Switching (sect. 5). After every accepted step the current set's volume is compared with the
/// best set's; the set is switched when
///   mu(current) < kSwitchRatio mu(best),  kSwitchRatio = 1/2
/// (for one degree of freedom: cos^2 alpha of the current coordinate below a quarter of the
/// best's). The best set is recomputed only when the current one has fallen below half of the
/// best quality last computed (so a set that stays good costs one k x k eigenproblem per step).
/// The rows K are chosen again with the set, and also when C_KD becomes ill-conditioned (its
/// reciprocal condition estimate below kRowsCondition): which rows are redundant can change
/// along the motion (elimination, formulation.hpp). Rows chosen for their condition alone are
/// taken only when at least kRowsHysteresis times better conditioned than the current ones, and
/// after a re-choice that found none the trigger falls to the current condition over
/// kRowsHysteresis: where every choice of rows is as ill-conditioned (two redundant rows equally
/// good, QR picking one or the other as the drift tips it), the rows do not flip back and forth,
/// each flip restarting the integrator (measured: a stacked 2x2 four-bar whose rows kept a
/// reciprocal condition of 4.4e-8 whichever were chosen re-chose them 427 times in 0.1 s). A switch changes what u means, not the
/// motion: u is rewritten as the new v_I of the same velocities and the integrator restarts.
/// At a singular configuration of the mechanism (rank C below r) every set is singular: A, eta
/// and xi come from a C_KD whose condition grows without bound as the motion nears it. A step may
/// land beside it and leave the motion on a wrong velocity (measured: the modified triple
/// four-bar with adams lost 23% of its energy in one step at t = 2.74 s and then crawled; dopri5
/// happened to step over its passages). A simulation with partitioning therefore stops at the
/// first one its singularity watch finds (singular_watch.hpp, the one watch every formulation
/// shares: passesSingularConfigurations() is false), with its time and rank, as with
/// elimination: `--method projection` continues through them.
///
/// Reactions (sect. 5, eqs. (32)-(38)). In loopdyn's absolute coordinates the rows of C are the
/// joint equations themselves (point coincidences, axis perpendicularities, distances), so the
/// distribution matrix of the physical reactions is B = C_K and f = -lambda_K in the paper's sign
/// (M q'' = h + B^T f; loopdyn writes M a + C^T lambda = F). The paper's closing-condition
/// multipliers (eq. (31)) exist only in relative coordinates; the multipliers reported here are
/// the joint reactions, with those of the redundant rows zero (as elimination does: one of the
/// infinitely many reaction sets, marked non-unique wherever the reaction is not unique). The
/// simulation computes them by scheme (38) on the dependent rows, C_KD^T lambda_K = (F - M a)_D,
/// which reuses the factorisation of C_KD; partitionedReactions() gives all three schemes.

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "loopdyn/dynamics/coordinate_equations.hpp"
#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"

namespace loopdyn {

/// Switch the independent coordinates when the current set's quality falls below this fraction
/// of the best set's (see the header).
inline constexpr Scalar kSwitchRatio = 0.5;
/// C_KD with a reciprocal condition estimate below this triggers a new choice of rows and set.
inline constexpr Scalar kRowsCondition = 1e-6;
/// Rows re-chosen for C_KD's condition must be this many times better conditioned (see the header).
inline constexpr Scalar kRowsHysteresis = 10;

/// One partition of the velocity coordinates and constraint rows.
struct Partition {
  std::vector<int> rows;         ///< K: r independent rows of C, ascending
  std::vector<int> independent;  ///< I: k velocity coordinates, ascending (u = v_I)
  std::vector<int> dependent;    ///< D: the other r, ascending
  Scalar quality = 0;            ///< mu(I) = sigma_min(W_I) where it was chosen (1 if k = 0)
  Scalar condition = 1;          ///< C_KD's reciprocal condition estimate where it was chosen
};

/// What the switching rule remembers between steps.
struct SwitchingMemory {
  Scalar best_quality = 0;                ///< mu of the best set, last computed
  Scalar rows_trigger = kRowsCondition;   ///< C_KD's condition below which rows are re-chosen
};

/// C_KD with a reciprocal condition estimate below this is singular: the evaluation stops.
inline constexpr Scalar kSingularBlock = 1e-13;

/// The linear algebra of one partition, eqs. (7)-(14) and (38), for any velocity coordinates: the
/// bodies' or the joints' (PartitioningFormulation over coordinate_equations.hpp). C is the
/// constraint matrix over those coordinates (the partition's rows K of it are used), `row` the
/// scaling of its rows and `col` of the coordinates (kinematics/scaling.hpp): C_KD is factorised
/// dimensionless, C_KD^-1 = S_D Cs_KD^-1 R_K with R = diag(row), S = diag(col).
class PartitionedEquations {
 public:
  /// v = D^T u + [0; eta], eqs. (7)-(9), from C and b at the positions (u = v_I). False where C_KD
  /// is singular (rcond() below kSingularBlock); v is then unchanged.
  bool velocities(const MatX& C, const VecX& b, const VecX& row, const VecX& col, const Partition& p,
                  Eigen::Ref<const VecX> u, VecX& v);
  /// After velocities, at the state they give: xi = C_KD^-1 Gamma_K and eqs. (10), (12)-(14),
  /// M_d a_I = h_d and a = D^T a_I + [0; xi]. False where M_d is not positive definite.
  bool accelerations(const MatX& M, const VecX& F, const VecX& Gamma, const VecX& row, const VecX& col,
                     const Partition& p, VecX& a, Eigen::Ref<VecX> a_I);
  /// lambda_K by eq. (38) on the dependent coordinates, C_KD^T lambda_K = (F - M a)_D (reusing
  /// C_KD's factorisation), into lambda's rows K (the others zero; size rows of C).
  void dependentRowMultipliers(const MatX& M, const VecX& F, const VecX& a, const VecX& row, const VecX& col,
                               const Partition& p, VecX& lambda) const;

  Scalar rcond() const;            ///< of the last C_KD (1 without rows)
  const MatX& Dt() const { return Dt_; }  ///< D^T = [I; A]
  const MatX& Md() const { return Mt_; }  ///< M_d = D M D^T of the last accelerations

 private:
  int r_ = 0, k_ = 0;
  MatX cd_, ci_, X_, Dt_, MDt_, Mt_;
  VecX p2_, eta_, xi_, at_, r_F_;
  Eigen::PartialPivLU<MatX> cd_lu_;
  Eigen::LLT<MatX> mt_llt_;
};

/// A change of independent coordinates during a simulation.
struct CoordinateSwitch {
  Scalar t = 0;
  std::vector<int> from, to;            ///< independent coordinates before and after
  Scalar quality_from = 0, quality_to = 0;  ///< mu of each at t
  bool rows_changed = false;
};

/// Sect. 5's switching rule after an accepted step at time t, for either coordinate choice. The
/// current set has quality mu = `quality` and C_KD the reciprocal condition `condition`; when it
/// has degraded against memory.best_quality (mu below ratio times it) or C_KD against
/// memory.rows_trigger, choose() gives the best partition here (best_quality becomes its
/// quality), and it is switched to when the set is still degraded against it, or when C_KD was
/// the trigger and its rows are kRowsHysteresis times better conditioned (otherwise the trigger
/// falls below the current condition). Returns the switch made (appended to `switches`,
/// `current` replaced), or nothing.
std::optional<CoordinateSwitch> switchPartition(Scalar t, Scalar quality, Scalar condition, Scalar ratio,
                                                Partition& current, SwitchingMemory& memory,
                                                const std::function<Partition()>& choose,
                                                std::vector<CoordinateSwitch>& switches);
/// The rows' trigger after rows of reciprocal condition `condition` were chosen or kept.
inline Scalar rowsTriggerAfter(Scalar condition) { return std::min(kRowsCondition, condition / kRowsHysteresis); }
/// "{a, b}": the names of the coordinates in `set`.
std::string coordinateSet(const std::vector<std::string>& names, const std::vector<int>& set);
/// The event of switch s (names: the velocity coordinates' names; ratio: the switching ratio,
/// condition: C_KD's reciprocal condition when only the rows were re-chosen).
RunEvent switchEvent(const CoordinateSwitch& s, Scalar ratio, Scalar condition, const std::vector<std::string>& names);

/// How the physical reactions f = -lambda_K are computed (paper 003, sect. 5).
enum class ReactionScheme {
  InverseMass,    ///< (35): (C_K M^-1 C_K^T) lambda_K = C_K M^-1 F - Gamma_K
  Augmented,      ///< (37): [C_K; D M]^T [lambda_K; y] = F - M a, y = 0 (n x n solve)
  DependentRows,  ///< (38): C_KD^T lambda_K = (F - M a)_D, the r independent rows of B^T
};

/// What a partitioning run reports (Formulation::partitionSummary): the independent set at the
/// start (before the first switch) and now, and the number of switches.
inline Formulation::PartitionSummary partitionSummaryOf(const Partition& partition,
                                                        const std::vector<CoordinateSwitch>& switches,
                                                        bool joint_coordinates) {
  return {switches.empty() ? partition.independent : switches.front().from, partition.independent,
          static_cast<int>(switches.size()), joint_coordinates};
}

/// Coordinate partitioning over either coordinate choice (coordinate_equations.hpp): the bodies'
/// velocities (above) or the spanning tree's joint velocities (paper 003's own setting, whose
/// examples are written in relative coordinates; the tree joints hold by construction and only
/// the rows outside the tree are partitioned). The reactions: lambda_K by eq. (38) over the
/// carried coordinates, every other row of the partition zero, and in joint coordinates the tree
/// joints' from the bodies' equations (JointSpaceEquations::treeMultipliers): the reactions of
/// the elimination of the rows outside K.
class PartitioningFormulation final : public Formulation {
 public:
  /// rank: the generic rank of C on the motion (analyzeConstraints; in joint coordinates the tree
  /// joints' rows are counted in it). switch_ratio: kSwitchRatio, or 0 to keep the initial set
  /// (for comparison). relative: in joint coordinates.
  PartitioningFormulation(const Model& model, int rank, Scalar switch_ratio = kSwitchRatio, bool relative = false);
  std::string_view name() const override { return "partitioning"; }
  /// At state x with the partition the criterion recommends there (velocities: w_I).
  Problem solve(const Model& model, DynamicsWorkspace& ws, const State& x) const override;
  std::unique_ptr<Coordinates> coordinates(const Model& model) const override;
  /// The rows of C that are not in K (and not the tree joints' in joint coordinates), in a run.
  std::vector<int> eliminatedEquations(const FormulationData& data) const override;

  int velocityStateSize(const Model&) const override { return k_; }
  bool carriesVelocities() const override { return false; }
  bool velocitiesFollowPositions() const override { return true; }
  bool passesSingularConfigurations() const override { return false; }
  /// x holds the carried positions; fills x's velocities (and x.v_r in joint coordinates), ws.a
  /// (and ws.a_r) and du = a_I.
  Problem evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                   Eigen::Ref<VecX> du, const Evaluation& how) const override;
  /// (M w' - F)^T w = mu^T b (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) const override;
  int generalizedVelocityCount(const Model&) const override { return k_; }
  Eigen::Ref<const VecX> generalizedVelocities(Eigen::Ref<const VecX> u) const override { return u; }

  /// A run's partition, its switches and the buffers.
  struct Data : FormulationData {
    std::unique_ptr<CoordinateEquations> equations;
    /// K: positions in the rows the coordinates keep (CoordinateEquations::rows); I, D: velocity
    /// coordinates (the bodies' or the joints').
    Partition partition;
    SwitchingMemory memory;
    std::vector<CoordinateSwitch> switches;
    PartitionedEquations partitioned;  ///< the last evaluation's (partitionedReactions reads them)
    TangentFactorization tangent;
    MatX M;   ///< the mass matrix the criterion weighs
    VecX mu;  ///< multipliers of the rows kept
  };
  const Partition& partition(const FormulationData& data) const { return dataAs<Data>(data).partition; }
  const std::vector<CoordinateSwitch>& switches(const FormulationData& data) const {
    return dataAs<Data>(data).switches;
  }
  std::optional<PartitionSummary> partitionSummary(const FormulationData& data) const override {
    const Data& d = dataAs<Data>(data);
    return partitionSummaryOf(d.partition, d.switches, layout_.relative);
  }
  /// The last evaluation's partitioned equations (partitionedReactions reads them).
  const PartitionedEquations& equations(const FormulationData& data) const { return dataAs<Data>(data).partitioned; }

 protected:
  std::unique_ptr<FormulationData> makeData(const Model& model) const override;
  Problem begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const override;

 private:
  /// The partition the projective criterion recommends at x's positions (x consistent).
  Partition choosePartition(const Model& model, Data& d, DynamicsWorkspace& ws, const State& x) const;
  Problem evaluateWith(const Partition& p, const Model& model, Data& d, DynamicsWorkspace& ws, State& x,
                       Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du, bool multipliers) const;

  CoordinateLayout layout_;
  int rank_, r_, k_;  ///< the generic rank of C; the rank of the rows kept, r_; k_ = n - r_
  Scalar switch_ratio_;
  std::vector<std::string> names_;  ///< the velocity coordinates' names
};

/// mu(I) of partition p from the mass matrix M and M_d = D M D^T (see the header).
Scalar currentQuality(const Partition& p, const MatX& M, const MatX& Md);

/// lambda (all rows; zero outside K) by `scheme` from the last evaluation with partition p
/// (ws.M, ws.F, ws.a, ws.Gamma, ws.kin.C and the partitioned equations). For Augmented,
/// `tangential` receives y, which vanishes when a solves the projected equations (12).
VecX partitionedReactions(const Model& model, const DynamicsWorkspace& ws, const PartitionedEquations& equations,
                          const Partition& p, ReactionScheme scheme, VecX* tangential = nullptr);

}  // namespace loopdyn
