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
/// is exact: C_dot along the motion from the constraints' rate jets (kinematics/jet.hpp), in the
/// same evaluation as C (two shifted evaluations and a central difference before). Whenever T has
/// drifted from orthonormal and tangent by more than the projection tolerance, and after every
/// position projection (Newton along Q1, eqs. (12)-(13): sim/simulation.hpp), T is replaced by the
/// closest orthonormal tangent basis (App. A, tangent_space.hpp), u by T^T v~, and the integrator
/// restarts. With continuation off, T is the plain Q2 of a fresh QR after every accepted step.
///
/// Singular configurations (sect. 2.5) are watched and stepped over by the simulation
/// (sim/simulation.hpp), which records each passage with the rank, the new admissible motions and
/// the continued T. With Evaluation::project (near them) the positions are first moved onto
/// Phi = 0 (Newton steps of least kinetic-metric length, formulation.hpp) and T onto the tangent
/// space there (App. A): the right-hand side is then that of the exact motion, whatever the drift.
///
/// Cheaper products away from singular configurations (issue 21). Everything the right-hand side
/// reads from the QR is a product with Q1 R11^-T: Q1 p'', T_dot, and Q1 p' with drivers. With
/// A_K^T = Q1 R11 (the K columns of A^T P) and G_K = A_K A_K^T = R11^T R11,
///   Q1 R11^-T y = A_K^T G_K^-1 y,
/// so in a mechanism without drivers (b = 0, v~ = T u without C) one evaluation of the constraints
/// and their rates at (q, T u), and the sparse LDL^T of G_K (kinetic_gram.hpp with the metric
/// diag(col)^2 for M^-1) give the same right-hand side: 58k -> 28k instructions on the IFToMM
/// double four-bar, whose QR alone was 21k. K are the independent rows of the last QR (at the
/// last step end: the QR still decides the rank, K, the tangent basis and its re-orthogonalisation
/// after every step). G_K squares A_K's condition number, so this is used only while G_K's
/// pivots stay above kTangentGramRatio of the largest, and never on the constraints near a
/// singular configuration (Evaluation::project); otherwise, and with drivers, the QR as above.
/// Both give the same right-hand side to rounding (tested: at most 6.5e-16 relative apart on
/// random states of the double four-bar, the modified 2x2 four-bar and a ladder).
///
/// Multipliers (for reactions) are the least-norm solution of C^T lambda = F - M a in the scaled
/// multipliers, the same as the lagrange formulation reports: unique reactions agree with
/// every formulation, and non-unique ones follow the least-norm choice.

#include <vector>

#include "loopdyn/dynamics/coordinate_equations.hpp"
#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/dynamics/kinetic_gram.hpp"

namespace loopdyn {

/// The products on G_K (see the header) are used while its smallest pivot is at least this
/// fraction of its largest: cond(G_K) <= 1e4 (cond(A_K) <= 100), so that their rounding error, up
/// to about eps cond(G_K) = 1e-12 relative, stays below the tightest tolerance integrators are
/// asked. (On the ladders of tests/sim the singular windows, where the QR takes over anyway, keep
/// G_K further from singular than that: 1e-3 and 1e-6 gave the same runs.)
inline constexpr Scalar kTangentGramRatio = 1e-4;
/// Below this |R_rr| / |R_11| (only where a motion leaves a singular start) the stored basis is
/// not turned: T's rate divides by the vanishing pivot.
inline constexpr Scalar kFrozenBasisRatio = 1e-3;

/// The continuation's part of du = [T'; w'] (see the header, (*)): X = R11^-T (A' T)_K with A' T
/// (every row of A, scaled) written into AdotT by rateTimes, called only where it is needed;
/// then T' = -Q1 X into du's first n f entries and w' -= X^T p' (du's last f entries already
/// hold T^T a~). `frozen` (right at a singular configuration, on the constraints): T' = 0, and X
/// only for the drivers' term.
template <class RateTimes>
void continuationRates(const TangentFactorization& tf, const VecX& p1, bool frozen, int n, int f,
                       const RateTimes& rateTimes, MatX& AdotT, MatX& X, Eigen::Ref<VecX> du) {
  // (a template, not a std::function: a capturing lambda in one allocates at every call)
  const bool driven = p1.size() > 0 && p1.cwiseAbs().maxCoeff() > 0;
  if (f > 0 && (!frozen || driven)) {
    rateTimes(AdotT);
    tf.pivotedRows(AdotT, X);
    tf.solveTransposedInPlace(X);
    du.tail(f).noalias() -= X.transpose() * p1;
  }
  if (frozen || f == 0)
    du.head(n * f).setZero();
  else {
    Eigen::Map<MatX> Tdot(du.data(), n, f);
    tf.q1Times(X, Tdot);
    Tdot = -Tdot;
  }
}

/// After an accepted step, with tf factorised at its end: the stored basis T (u's first n f
/// entries, n x f) replaced by the closest orthonormal tangent basis when it has drifted from
/// orthonormal and tangent by more than the projection tolerance, or after a projection of the
/// positions (with `continuation`; without, by the plain Q2 after every step), and the generalized
/// velocities (u's last f) rewritten for the same motion. True when u was rewritten.
bool rebaseTangentBasis(const TangentFactorization& tf, const Formulation::Step& step, bool continuation, int n, int f,
                        Eigen::Ref<VecX> u);

/// QR projection over either coordinate choice (coordinate_equations.hpp): the bodies' velocities
/// or the spanning tree's joint velocities (the tangent basis of the scaled C_r, n_r x f instead
/// of n x f, continued along the motion with A' T exact: C' from the equations' rate jets and J' T
/// from the tree joints' world axes and their rates, TreeKinematics::jacobianTimes). At a
/// singular start in joint coordinates, the branch the absolute formulation finds is taken over in
/// joint velocities. The products on G_K above are the absolute coordinates' shortcut (M block-
/// diagonal, C by rows); joint coordinates always use the QR.
class ProjectionFormulation final : public Formulation {
 public:
  /// rank: the generic rank of C on the motion (analyzeConstraints; in joint coordinates the tree
  /// joints' rows are counted in it). continuation false: the plain QR basis after every step
  /// (paper 004's "traditional" factorisation, for comparison). relative: in joint coordinates.
  ProjectionFormulation(const Model& model, int rank, bool continuation = true, bool relative = false);
  std::string_view name() const override { return "projection"; }
  /// At a consistent state x, with T the plain Q2 there.
  Problem solve(const Model& model, DynamicsWorkspace& ws, const State& x) const override;
  std::unique_ptr<Coordinates> coordinates(const Model& model) const override;

  int velocityStateSize(const Model&) const override { return n_ * f_ + f_; }
  bool carriesVelocities() const override { return false; }
  /// x holds the carried positions; fills x's velocities (and x.v_r in joint coordinates), ws.a
  /// (and ws.a_r) and du = [T'; w'].
  Problem evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                   Eigen::Ref<VecX> du, const Evaluation& how) const override;
  Problem velocities(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                     Eigen::Ref<VecX> du) const override;
  /// (M w' - F)^T w = lambda^T b (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) const override;
  int generalizedVelocityCount(const Model&) const override { return f_; }
  Eigen::Ref<const VecX> generalizedVelocities(Eigen::Ref<const VecX> u) const override { return u.tail(f_); }

  int degreesOfFreedom() const { return f_; }

  /// A run's choices (the rows K, the start's branch), counters and buffers.
  struct Data : FormulationData {
    std::unique_ptr<CoordinateEquations> equations;
    std::optional<RunEvent> start_event;
    std::vector<int> independent_rows;  ///< K, ascending (keepIndependentRows)
    KineticGram tangent_gram;           ///< G_K = A_K A_K^T
    long gram_evaluations = 0;          ///< right-hand sides evaluated on G_K
    long resets = 0;                    ///< times T was re-orthogonalised or refactorised
    // the last evaluation's
    TangentFactorization tangent;  ///< of diag(col) C^T diag(row) over the carried velocities
    MatX TS;                       ///< diag(col) T: the basis in velocity units
    MatX T_projected;              ///< T moved onto the tangent space of the projected positions
    MatX AdotT, X, Mt, TtM;
    Eigen::LLT<MatX> mt_llt;
    VecX p1, p2, vt, at, rhs_u, Ma, row_b;
    VecX w;         ///< G_K^-1 times a right-hand side (the particular acceleration, a column of T_dot)
    VecX dv;        ///< a column of T_dot before its scaling (velocity units)
    VecX residual;  ///< F - M a
  };
  std::optional<RunEvent> startEvent(const FormulationData& data) const override {
    return dataAs<Data>(data).start_event;
  }
  long basisResets(const FormulationData& data) const { return dataAs<Data>(data).resets; }
  /// Right-hand sides evaluated on G_K (see the header; before start(), K is not known: the QR).
  long gramEvaluations(const FormulationData& data) const { return dataAs<Data>(data).gram_evaluations; }
  /// The basis in velocity units, diag(col) T, of the last evaluation (n x f).
  const MatX& basis(const DynamicsWorkspace& ws) const { return dataAs<Data>(ws).TS; }

 protected:
  std::unique_ptr<FormulationData> makeData(const Model& model) const override;
  Problem begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const override;

 private:
  /// The right-hand side on G_K (see the header); false where G_K is too ill-conditioned for it
  /// (the caller then evaluates with the QR). Absolute coordinates only.
  bool evaluateOnGram(const Model& model, Data& d, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                      Eigen::Ref<VecX> du, const Evaluation& how) const;
  /// The tangent factorisation of the last C over the carried velocities: the QR of its scaled
  /// transpose.
  void factorizeAt(Data& d, const DynamicsWorkspace& ws) const;
  /// K, ascending, from the factorisation at the last step end.
  static void keepIndependentRows(Data& d);
  /// The carried velocities w = diag(col) (T qdot + Q1 p') at the configuration factorizeAt last
  /// saw, eq. (11b).
  void velocitiesFrom(Data& d, const DynamicsWorkspace& ws, Eigen::Ref<const MatX> T, Eigen::Ref<const VecX> qdot,
                      State& x) const;
  /// Eqs. (10)-(11a) and the continuation's rates (*) after velocitiesFrom: ws.a (and ws.a_r), du.
  Problem accelerations(const Model& model, Data& d, DynamicsWorkspace& ws, State& x, Eigen::Ref<const MatX> T,
                        Eigen::Ref<VecX> du, const Evaluation& how) const;

  CoordinateLayout layout_;
  int rank_, n_, r_, f_;  ///< the generic rank of C; the carried velocities, the rank of C over them, f = n - r
  bool continuation_;
  bool on_gram_;             ///< absolute coordinates without drivers (b = 0): the G_K products
  InverseMass unit_metric_;  ///< diag(col)^2 (InverseMass::scaledIdentity)
};

}  // namespace loopdyn
