#pragma once
/// Forward dynamics in absolute coordinates: accelerations a and multipliers lambda from
///   [M C^T; C 0] [a; lambda] = [F; Gamma]                              (paper 001, eq. (11))
/// for a constraint matrix C that may be rank-deficient (redundant constraints).
///
/// Both formulations here work in mass-normalised coordinates z = L^T a (M = L L^T, Cholesky)
/// with the scaled multipliers lambda_s = diag(row)^-1 lambda (kinematics/scaling.hpp): with
/// A = diag(row) C L^-T the problem is Gauss's principle, min |z - z0|^2 subject to A z = Gamma_s,
/// z0 = L^-1 F; the constraint force is C^T lambda = L (z0 - z).
///
///   lagrange     z = z0 + A^T w, lambda_s = -w, w = (A A^T)^+ (Gamma_s - A z0) (a complete
///                orthogonal decomposition of A^T): the accelerations are the unique ones, and of
///                the infinitely many multiplier vectors the one of least (scaled) norm is
///                returned. That choice decides every non-unique reaction.
///                Release rho > 0 (`loopdyn simulate` default 10 sqrt(rtol), sim/simulation.hpp):
///                w = sum_k g_k e_k e_k^T r / s_k^2 over the eigenpairs (s_k^2, e_k) of A A^T,
///                g_k = kappa_k^4 / (kappa_k^4 + rho^4), kappa_k = |C_s^T e_k| / max_j |C_s^T e_j|
///                the KINEMATIC size of the direction on the dimensionless C_s (scaling.hpp).
///                Directions far from singular (kappa >> rho) are enforced as before (relative
///                change (rho/kappa)^4); those that vanish at a singular configuration are
///                released smoothly, and the drift they let through is removed by the
///                projection. The free motion (null(A)) never changes. Why: least-norm
///                multipliers amplify a constraint drift by 1/kappa near a singular
///                configuration. Measured (10 s, dopri5, relative energy drift): with rho = 0 the
///                modified double, triple and 2x2 four-bars (paper 004) are captured at their
///                horizontal pose at rtol 1e-8 (23-38% of the energy lost in one step) and
///                collapse the step size at 1e-10; with the default they pass (2e-8..1e-7 at
///                rtol 1e-8, 3e-10..4e-9 at 1e-10). kappa, unlike s, does not depend on the
///                masses: a first version released by s and, on the spatial four-bar whose light
///                rods spin, released a regular direction (drift 8e-4).
///   elimination  only the rows `kept` are used (paper 001, sect. 3.1): (A_K A_K^T) lambda_K =
///                A_K z0 - Gamma_K by Cholesky; the eliminated multipliers are zero. The kept rows
///                must be independent; they are chosen by QR with column pivoting of C^T
///                (analysis/constraint_rank.hpp) or named by the user. Which rows are redundant
///                can change along the motion (the spatial four-bar's joint-frame equations
///                O4.rx, B.ry, O2.ry chosen at t = 0 leave A.ry dependent at t = 1.4 s, a regular
///                configuration): an automatic choice is then replaced, for that evaluation, by
///                the rows QR keeps there. At a singular configuration (rank below the number of
///                kept rows) elimination cannot go on and says so.
///
/// Baumgarte stabilisation (optional) replaces Gamma by Gamma - 2 alpha (C v + b) - beta^2 Phi.

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/SVD>

#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Everything one dynamics evaluation needs, sized once for a model. One per thread.
struct DynamicsWorkspace {
  explicit DynamicsWorkspace(const Model& model);

  KinematicsWorkspace kin;
  MatX M;        ///< nv x nv
  VecX F, F_nc;  ///< applied generalized forces; their non-conservative part
  VecX a;        ///< accelerations, nv
  VecX lambda;   ///< multipliers, m + h (zero for eliminated rows)
  VecX Gamma;    ///< the Gamma used (with Baumgarte terms if any)

  // scratch
  ConstraintScaling scaling;
  Eigen::LLT<MatX> mass_llt;
  MatX At;  ///< L^-1 C^T diag(row), nv x rows used
  VecX z0, z, r;
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;
  Eigen::SelfAdjointEigenSolver<MatX> gram_eigen;
  Eigen::LLT<MatX> gram_llt;
  MatX gram;
  MatX At_K;   ///< the kept columns of At (elimination)
  VecX rhs_K;
  MatX Cs_t;    ///< C_s^T = diag(col) C^T diag(row)
  VecX kappa;  ///< kinematic size of each Gram eigendirection
  VecX w;

  // minimal-coordinate formulations (partitioning.hpp, projection.hpp)
  TangentFactorization tangent;
  KinematicsWorkspace kin_shifted;  ///< constraints at q (+) e v, for the rate of A
  State x_shifted;
  MatX TS, AdotT, X, Mt;
  Eigen::LLT<MatX> mt_llt;
  Eigen::JacobiSVD<MatX> r11_svd;
  bool r11_released = false;
  VecX p1, p2, vt, at, rhs_u;
  MatX Dt;  ///< D^T = [I; A] (partitioning), nv x k
  MatX cd;  ///< C_KD scaled, r x r
  MatX ci;  ///< diag(row_K) C_KI, r x k
  Eigen::PartialPivLU<MatX> cd_lu;
  VecX eta, xi;
};

struct Baumgarte {
  Scalar alpha = 0;  ///< 1/s; 0 with beta = 0: off
  Scalar beta = 0;   ///< 1/s
};

class Formulation {
 public:
  virtual ~Formulation() = default;
  virtual std::string_view name() const = 0;
  /// Fills ws.a, ws.lambda (and ws.kin, ws.M, ws.F, ws.F_nc) at state x. Returns "" on success,
  /// otherwise what went wrong, naming the equations involved.
  virtual std::string solve(const Model& model, DynamicsWorkspace& ws, const State& x) const = 0;
  /// Rows of C whose multipliers the formulation sets to zero by construction.
  virtual std::vector<int> eliminatedEquations() const { return {}; }

  // ---- the velocity variables u the integrator carries (sim/simulation.hpp) ----
  // Absolute formulations carry the velocities themselves, u = v. The minimal-coordinate
  // formulations (partitioning.hpp, projection.hpp) carry independent velocities, and what they
  // track along the path, so that v = v(q, t, u) satisfies C v + b = 0 by construction.

  /// Size of u.
  virtual int velocityStateSize(const Model& model) const { return model.nv(); }
  /// True when u = v (the simulation then projects velocities onto C v + b = 0 itself).
  virtual bool carriesVelocities() const { return true; }
  /// Sets up the formulation's own choices at the assembled state x and writes u for it.
  virtual std::string start(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u);
  /// What start chose that the log should show ("" if nothing), e.g. the branch at a singular start.
  virtual std::string startEvent() const { return {}; }
  /// From positions x.q at x.t and u: fills x.v, ws.a and du/dt, and ws.lambda when `multipliers`
  /// (a minimal formulation skips them inside the integration, where only their power is needed).
  virtual std::string evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                               Eigen::Ref<VecX> du, bool multipliers) const;
  /// Power of the constraint forces at the last evaluation: lambda^T b = (M a - F)^T v (the work
  /// drivers do; C^T lambda = F - M a and C v = -b).
  virtual Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const;
  /// True when v = v(q, t, u) solves C_K v + b_K = 0 exactly on independent rows K (partitioning):
  /// what the other rows then violate follows from the positions' violation, amplified next to a
  /// singular configuration, and only projecting the positions reduces it, so the simulation
  /// projects on the positions' violation alone. (Measured: the spatial parallelogram's
  /// near-singular pose at 2.64 s, positions at 0.2 of the tolerance and the redundant row's
  /// velocity violation at 130 times it, where Newton cannot improve the positions further.)
  virtual bool velocitiesFollowPositions() const { return false; }
  /// Called after every accepted step (and after the simulation projected the positions, with
  /// `projected`) at the state x, whose velocities came from u. May re-choose what u means and
  /// rewrite u for the same motion; returns what it did ("" if nothing), and the simulation then
  /// restarts the integrator from the new u. `at(t, x, u)` interpolates inside the step [t0, x.t].
  struct Step {
    Scalar t0 = 0;
    bool projected = false;
    Scalar tolerance = 0;  ///< the simulation's projection trigger (scaled violation)
    std::function<void(Scalar t, State& x, VecX& u)> at;
  };
  struct StepOutcome {
    bool restart = false;  ///< u was rewritten
    std::string event;     ///< what happened, for the log ("" if nothing worth reporting)
    std::string failure;   ///< why the formulation cannot go on ("" if it can): the simulation stops
  };
  virtual StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                                Eigen::Ref<VecX> u);
  /// The generalized velocities inside u (empty for absolute formulations): an output column group.
  virtual int generalizedVelocityCount(const Model&) const { return 0; }
  virtual Eigen::Ref<const VecX> generalizedVelocities(Eigen::Ref<const VecX> u) const { return u.head(0); }

  Baumgarte baumgarte;
};


class LagrangeFormulation final : public Formulation {
 public:
  /// release: rho of the kinematic release filter (see the header); 0 (default): the plain least-norm
  /// solution by a complete orthogonal decomposition.
  explicit LagrangeFormulation(Scalar release = 0) : release_(release) {}
  std::string_view name() const override { return "lagrange"; }
  std::string solve(const Model& model, DynamicsWorkspace& ws, const State& x) const override;

 private:
  Scalar release_;
};

class EliminationFormulation final : public Formulation {
 public:
  /// eliminated: rows of C removed from the equations (their multipliers are reported as zero).
  /// reselect: where those leave dependent equations at a regular configuration, use the rows
  /// QR with column pivoting keeps there instead (for an automatic choice; a user's choice fails).
  EliminationFormulation(const Model& model, std::vector<int> eliminated, bool reselect = false);
  std::string_view name() const override { return "elimination"; }
  std::string solve(const Model& model, DynamicsWorkspace& ws, const State& x) const override;
  std::vector<int> eliminatedEquations() const override { return eliminated_; }

 private:
  std::vector<int> eliminated_, kept_;
  bool reselect_;
};

/// Rows of C by equation name ("C.y", "W4"); throws InvalidArgument naming an unknown one.
std::vector<int> equationRows(const Model& model, const std::vector<std::string>& names);

}  // namespace loopdyn
