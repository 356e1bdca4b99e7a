#pragma once
/// The equations of motion over the velocity coordinates w that an integrator carries, dense, so
/// that a constrained algorithm is written once for both coordinate choices (issue 47):
///   M w' + C^T mu = F,   C w' = Gamma,   C w + b = 0,
/// over the rows of the model's C that these coordinates leave as constraints, with the scales
/// diag(row) of those rows and diag(col) of the coordinates (kinematics/scaling.hpp).
///
///   BodyCoordinateEquations   absolute coordinates: w = v, the bodies' velocities (quasi-
///                             velocities in 3D); every row of C; M, F, C, b, Gamma of
///                             mass_and_forces.hpp and constraint_evaluation.hpp, in ws.
///   JointCoordinateEquations  relative coordinates: w = v_r, the spanning tree's joint velocities;
///                             the rows outside the tree; M_r, Q_r, C_r, b_r, gamma_r of
///                             joint_space_equations.hpp (the tree joints hold by construction).
///
/// Everything physical is still evaluated on the absolute State (kinematics/coordinates.hpp):
/// these equations fill its positions, velocities and accelerations from the carried ones, and
/// every row's multiplier from those of the rows kept. Which algorithm runs on them --
/// partitioning (partitioning.hpp) -- does not know which coordinates it works in.

#include <Eigen/QR>

#include <memory>
#include <string>
#include <vector>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/dynamics/joint_space_equations.hpp"
#include "loopdyn/dynamics/kept_rows.hpp"
#include "loopdyn/dynamics/kinetic_gram.hpp"
#include "loopdyn/kinematics/coordinates.hpp"

namespace loopdyn {

/// What the equations over a coordinate choice are, before any evaluation: the part of them a
/// formulation's description keeps (its run data keeps the equations themselves, with their
/// buffers: formulation.hpp).
struct CoordinateLayout {
  bool relative = false;   ///< joint coordinates
  int size = 0;            ///< n: the velocity coordinates w
  std::vector<int> rows;   ///< the rows of the model's C kept as constraints, ascending
  VecX row;                ///< their scales (row_K)
};

/// The layout of the equations over the bodies' velocities (relative false: every row of C) or
/// the spanning tree's joint velocities (true: the rows outside the tree).
CoordinateLayout coordinateLayout(const Model& model, bool relative);

/// The positions the integrator carries for a coordinate choice (kinematics/coordinates.hpp).
std::unique_ptr<Coordinates> carriedCoordinates(const Model& model, bool relative);

/// The names of the velocity coordinates of a choice, in their order (velocityCoordinateNames or
/// jointCoordinateNames).
std::vector<std::string> velocityNames(const Model& model, bool relative);

class CoordinateEquations {
 public:
  virtual ~CoordinateEquations() = default;

  const CoordinateLayout& layout() const { return layout_; }
  bool relative() const { return layout_.relative; }  ///< joint coordinates
  int size() const { return layout_.size; }           ///< n: the velocity coordinates w
  /// Their names, in their order (velocityNames).
  std::vector<std::string> names(const Model& model) const { return velocityNames(model, relative()); }
  /// The rows of the model's C these equations keep, ascending (every row in absolute coordinates).
  const std::vector<int>& rows() const { return layout_.rows; }
  /// The scales of those rows (row_K) and of the coordinates.
  const VecX& row() const { return layout_.row; }
  virtual const VecX& col(const DynamicsWorkspace& ws) const = 0;
  /// The positions the integrator carries.
  std::unique_ptr<Coordinates> coordinates(const Model& model) const { return carriedCoordinates(model, relative()); }

  /// w inside a state: x.v or x.v_r.
  virtual VecX& velocities(State& x) const = 0;
  virtual const VecX& velocities(const State& x) const = 0;
  /// w' of the last evaluation: ws.a or ws.a_r.
  virtual VecX& accelerations(DynamicsWorkspace& ws) const = 0;
  virtual const VecX& accelerations(const DynamicsWorkspace& ws) const = 0;

  /// The carried positions and velocities of an absolute state x (joint coordinates derived from
  /// x.q and x.v, its tree joints holding: jointState), and x made consistent with them. "" or why
  /// there are none.
  virtual Problem carry(State& x) const = 0;
  /// x's absolute positions from the carried ones at x.t, every velocity set to zero (what the
  /// constraints' velocity terms b need before the velocities are known).
  virtual void toPositions(const Model& model, State& x) const = 0;
  /// Positions onto Phi = 0 (projectPositions: Newton steps of least kinetic-metric length), the
  /// carried positions following. "" or why not.
  virtual Problem projectPositions(const Model& model, DynamicsWorkspace& ws, State& x) const = 0;

  /// ws.kin, C and b at x's positions and time (x consistent).
  void evaluateConstraints(const Model& model, DynamicsWorkspace& ws, const State& x);
  /// C and b from ws.kin, evaluated at x (nothing to do in absolute coordinates).
  virtual void constraintsFromKinematics(const Model& model, DynamicsWorkspace& ws, const State& x) = 0;
  /// x's body velocities (and positions) from the carried ones (nothing to do in absolute coordinates).
  virtual void bodyVelocities(State& x) const = 0;
  /// With w written into x: x's body velocities from them, ws.kin, ws.M, ws.F, ws.F_nc, ws.Gamma,
  /// and M, F, C, b, Gamma over w there (Gamma with Baumgarte's terms when they are on). `rates`:
  /// also C's rate along the motion in ws.kin where rateTimes reads it there.
  virtual void evaluate(const Model& model, DynamicsWorkspace& ws, State& x, const Baumgarte& baumgarte,
                        bool rates = false) = 0;
  /// A' T~ = diag(row) C' diag(col) T along the motion at x (after evaluate with rates), for T~ =
  /// diag(col) T (n x f): the rows kept, exact (the constraints' rate jets; in joint coordinates
  /// also J', TreeKinematics::jacobianTimes).
  virtual void rateTimes(const Model& model, DynamicsWorkspace& ws, const State& x, const MatX& TS, MatX& AdotT) = 0;
  /// ws.lambda, every row's multiplier, for the last evaluation's constraint force: the least
  /// (scaled) norm solution where the rows kept are redundant (absolute: leastNormMultipliers over
  /// every row; joint coordinates: over the rows kept, the tree joints' then from the bodies').
  virtual void leastNormMultipliers(const Model& model, DynamicsWorkspace& ws) = 0;

  // ---- Gauss's principle (paper 001, eq. (11)) in the structure these coordinates have:
  // absolute, the kinetic Gram matrices of kinetic_gram.hpp over the block-diagonal M^-1 and C by
  // rows; joint coordinates, M_r = L L^T and the square-root factor L^-1 C_r^T ----

  /// Every row kept, redundant ones allowed (lagrange): w' (accelerations(ws), and ws.a) and one
  /// solution mu of the rows' multipliers (rows()' order). `factorized`: ws.kin, ws.inverse_mass and
  /// ws.gram_all already hold x's (projectState leaves them so; absolute coordinates reuse them).
  /// settings: Baumgarte's terms, and the generic rank as a ceiling on the rows' rank
  /// (RunSettings::generic_rank; absolute coordinates decide the rank on G, whose threshold on
  /// squared quantities the drift does not reach). "" or why not.
  virtual Problem gaussAllRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                                   const RunSettings& settings, bool factorized, VecX& mu) = 0;
  /// After gaussAllRows: ws.lambda, every row's multiplier, the least (scaled) norm ones where
  /// they are not unique.
  virtual void gaussMultipliers(const Model& model, DynamicsWorkspace& ws) = 0;
  /// What gaussOnRows needs at x (the constraints, the forces, the metric). "" or why not.
  virtual Problem prepareKeptRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                                      const Baumgarte& baumgarte) = 0;
  /// Only the rows `kept` (positions in rows(), ascending; elimination): w', ws.a and their
  /// multipliers in mu (zero on the others). False where they are dependent here (kept_rows.hpp's
  /// pivot test), nothing solved.
  virtual bool gaussOnRows(const Model& model, DynamicsWorkspace& ws, const State& x, const Baumgarte& baumgarte,
                           const std::vector<int>& kept, VecX& mu) = 0;
  /// At = L^-1 C^T diag(row) in the Cholesky factor of M = L L^T, after prepareKeptRows (the
  /// diagnosis of kept rows that failed, KeptRowsSolver::diagnose).
  virtual const MatX& metricScaledTransposed(const Model& model, DynamicsWorkspace& ws) = 0;
  /// What the rows kept are called in messages.
  virtual const char* constraintsName() const = 0;

  /// An orthonormal basis of the carried coordinates' admissible motions (scaled, n x f) from one
  /// of the bodies' (scaled, nv x f: singular_start.hpp's), at x.
  virtual MatX basisFromBodies(const DynamicsWorkspace& ws, const State& x, const MatX& T) const = 0;
  /// M alone, at the positions of the last evaluateConstraints.
  virtual void massMatrix(const Model& model, DynamicsWorkspace& ws, MatX& M) const = 0;
  /// The bodies' accelerations ws.a from w' (joint coordinates: A = J a_r + Jdot v_r).
  virtual void bodyAccelerations(const State& x, DynamicsWorkspace& ws) const = 0;
  /// Every row's multiplier ws.lambda from mu, the multipliers of rows() (in their order), and
  /// the bodies' equations where rows() leaves some out (the tree joints': treeMultipliers).
  virtual void multipliers(const Model& model, DynamicsWorkspace& ws, const VecX& mu) const = 0;

  /// The last evaluation's matrices over w.
  virtual const MatX& M(const DynamicsWorkspace& ws) const = 0;
  virtual const VecX& F(const DynamicsWorkspace& ws) const = 0;
  virtual const MatX& C(const DynamicsWorkspace& ws) const = 0;
  virtual const VecX& b(const DynamicsWorkspace& ws) const = 0;
  virtual const VecX& Gamma(const DynamicsWorkspace& ws) const = 0;
  /// A^T = diag(col) C^T diag(row), the transposed dimensionless matrix of the last evaluation.
  virtual void scaledTransposed(const DynamicsWorkspace& ws, MatX& At) const = 0;

 protected:
  explicit CoordinateEquations(CoordinateLayout layout) : layout_(std::move(layout)) {}

 private:
  CoordinateLayout layout_;
};

/// The bodies' velocity coordinates: absolute coordinates.
class BodyCoordinateEquations final : public CoordinateEquations {
 public:
  explicit BodyCoordinateEquations(const Model& model);
  const VecX& col(const DynamicsWorkspace& ws) const override { return ws.scaling.col; }
  VecX& velocities(State& x) const override { return x.v; }
  const VecX& velocities(const State& x) const override { return x.v; }
  VecX& accelerations(DynamicsWorkspace& ws) const override { return ws.a; }
  const VecX& accelerations(const DynamicsWorkspace& ws) const override { return ws.a; }
  Problem carry(State&) const override { return {}; }
  void toPositions(const Model& model, State& x) const override { x.v.setZero(model.nv()); }
  Problem projectPositions(const Model& model, DynamicsWorkspace& ws, State& x) const override;
  void constraintsFromKinematics(const Model&, DynamicsWorkspace&, const State&) override {}
  void bodyVelocities(State&) const override {}
  void evaluate(const Model& model, DynamicsWorkspace& ws, State& x, const Baumgarte& baumgarte,
                bool rates = false) override;
  void rateTimes(const Model& model, DynamicsWorkspace& ws, const State& x, const MatX& TS, MatX& AdotT) override;
  void leastNormMultipliers(const Model& model, DynamicsWorkspace& ws) override;
  MatX basisFromBodies(const DynamicsWorkspace&, const State&, const MatX& T) const override { return T; }
  Problem gaussAllRows(const Model& model, DynamicsWorkspace& ws, const State& x, const RunSettings& settings,
                           bool factorized, VecX& mu) override;
  void gaussMultipliers(const Model& model, DynamicsWorkspace& ws) override;
  Problem prepareKeptRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                              const Baumgarte& baumgarte) override;
  bool gaussOnRows(const Model& model, DynamicsWorkspace& ws, const State& x, const Baumgarte& baumgarte,
                   const std::vector<int>& kept, VecX& mu) override;
  const MatX& metricScaledTransposed(const Model& model, DynamicsWorkspace& ws) override;
  const char* constraintsName() const override { return "the constraint matrix"; }
  void massMatrix(const Model& model, DynamicsWorkspace& ws, MatX& M) const override;
  void bodyAccelerations(const State&, DynamicsWorkspace&) const override {}
  void multipliers(const Model& model, DynamicsWorkspace& ws, const VecX& mu) const override;
  const MatX& M(const DynamicsWorkspace& ws) const override { return ws.M; }
  const VecX& F(const DynamicsWorkspace& ws) const override { return ws.F; }
  const MatX& C(const DynamicsWorkspace& ws) const override { return ws.kin.C.dense(); }
  const VecX& b(const DynamicsWorkspace& ws) const override { return ws.kin.b; }
  const VecX& Gamma(const DynamicsWorkspace& ws) const override { return ws.Gamma; }
  void scaledTransposed(const DynamicsWorkspace& ws, MatX& At) const override;

 private:
  VecX force_;  ///< F - M a
  KineticGram gram_kept_;  ///< G over the rows gaussOnRows keeps
  MatX At_;                ///< metricScaledTransposed's
};

/// The spanning tree's joint velocities: relative coordinates.
class JointCoordinateEquations final : public CoordinateEquations {
 public:
  explicit JointCoordinateEquations(const Model& model);
  const VecX& col(const DynamicsWorkspace&) const override { return equations_.col; }
  VecX& velocities(State& x) const override { return x.v_r; }
  const VecX& velocities(const State& x) const override { return x.v_r; }
  VecX& accelerations(DynamicsWorkspace& ws) const override { return ws.a_r; }
  const VecX& accelerations(const DynamicsWorkspace& ws) const override { return ws.a_r; }
  Problem carry(State& x) const override;
  void toPositions(const Model& model, State& x) const override;
  Problem projectPositions(const Model& model, DynamicsWorkspace& ws, State& x) const override;
  void constraintsFromKinematics(const Model& model, DynamicsWorkspace& ws, const State& x) override;
  void bodyVelocities(State& x) const override;
  void evaluate(const Model& model, DynamicsWorkspace& ws, State& x, const Baumgarte& baumgarte,
                bool rates = false) override;
  void rateTimes(const Model& model, DynamicsWorkspace& ws, const State& x, const MatX& TS, MatX& AdotT) override;
  void leastNormMultipliers(const Model& model, DynamicsWorkspace& ws) override;
  MatX basisFromBodies(const DynamicsWorkspace& ws, const State& x, const MatX& T) const override;
  Problem gaussAllRows(const Model& model, DynamicsWorkspace& ws, const State& x, const RunSettings& settings,
                           bool factorized, VecX& mu) override;
  void gaussMultipliers(const Model& model, DynamicsWorkspace& ws) override { leastNormMultipliers(model, ws); }
  Problem prepareKeptRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                              const Baumgarte& baumgarte) override;
  bool gaussOnRows(const Model& model, DynamicsWorkspace& ws, const State& x, const Baumgarte& baumgarte,
                   const std::vector<int>& kept, VecX& mu) override;
  const MatX& metricScaledTransposed(const Model&, DynamicsWorkspace&) override { return At_; }
  const char* constraintsName() const override { return "the constraints left by joint coordinates"; }
  void massMatrix(const Model& model, DynamicsWorkspace& ws, MatX& M) const override;
  void bodyAccelerations(const State& x, DynamicsWorkspace& ws) const override;
  void multipliers(const Model& model, DynamicsWorkspace& ws, const VecX& mu) const override;
  const MatX& M(const DynamicsWorkspace&) const override { return equations_.M; }
  const VecX& F(const DynamicsWorkspace&) const override { return equations_.Q; }
  const MatX& C(const DynamicsWorkspace&) const override { return equations_.C; }
  const VecX& b(const DynamicsWorkspace&) const override { return equations_.b; }
  const VecX& Gamma(const DynamicsWorkspace&) const override { return equations_.gamma; }
  void scaledTransposed(const DynamicsWorkspace& ws, MatX& At) const override;

  const TreeKinematics& tree() const { return tree_; }

 private:
  /// cod_ of B_, its rank at kRankThreshold but at most `ceiling` (the rows' generic rank; -1:
  /// none).
  void decideRank(int ceiling);

  TreeKinematics tree_;
  JointSpaceEquations equations_;
  // rateTimes' and leastNormMultipliers' scratch
  KinematicsWorkspace kin_rates_;  ///< the constraints and their rates at x (ws.kin keeps the evaluation's)
  MatX JT_, JdotT_;
  TreeKinematics::JacobianTimesScratch jacobian_scratch_;
  VecX mu_;
  // Gauss's principle's: M_r = L L^T, At = L^-1 C_r^T diag(row), z0 = L^-1 Q_r
  Eigen::LLT<MatX> mass_llt_;
  MatX B_;  ///< L^-1 C_r^T
  Eigen::CompleteOrthogonalDecomposition<MatX> cod_;  ///< of B_
  VecX pivots_;                                        ///< |R_kk| of B_'s pivoted QR (decideRank)
  MatX At_;
  VecX z0_, scaled_gamma_;
  KeptRowsSolver solver_;
};

/// Joint coordinates of an absolute state whose tree joints hold (x.q_r, x.v_r; angles near the
/// x.q_r it had), or why there are none.
Problem jointState(const TreeKinematics& tree, State& x);

/// The equations over the bodies' velocities (relative false) or the joints' (true).
std::unique_ptr<CoordinateEquations> coordinateEquations(const Model& model, bool relative);

}  // namespace loopdyn
