#pragma once
/// The equations of motion in joint coordinates (issue 15), dense, for the formulations that work
/// on them as the absolute formulations work on the bodies' coordinates (lagrange, elimination
/// and projection in relative coordinates):
///   M_r a_r + C_r^T mu = Q_r,   C_r a_r = gamma_r,   C_r v_r + b_r = 0,
/// with J the body velocities per unit joint velocity (V = J v_r, A = J a_r + Jdot v_r,
/// tree_kinematics.hpp) and
///   M_r = J^T M J,   Q_r = J^T (F - M Jdot v_r),   C_r = C_K J,
///   gamma_r = Gamma_K - C_K Jdot v_r,   b_r = b_K
/// over the rows K of C that joint coordinates leave as constraints: every pair's except the tree
/// joints' (cut joints, distance joints, knife edges, drivers). The tree joints hold by
/// construction and their reactions drop out (Kane's equations, tree_dynamics.hpp).
///
/// Scaling (kinematics/scaling.hpp): the dimensionless matrix is diag(row_K) C_r diag(col_r),
/// with col_r 1 for a joint velocity along a translation and 1/L for one about an axis, so that
/// rank decisions and tangent bases do not depend on the units of length, as in absolute
/// coordinates.
///
/// M_r by the composite-rigid-body algorithm and Q_r by the recursive Newton-Euler backward pass
/// (tree_dynamics.hpp), C_r = (J^T C_K^T)^T row by row: a row of C acts on at most two bodies, as
/// a wrench about the world origin, and its entry for link l is that wrench times l's world axes
/// for every link on the path from those bodies to ground (O(depth) a row; J is not formed); the
/// bias Jdot v_r, and the formulations' A = J a_r + Jdot v_r, by the tree pass
/// (TreeKinematics::absoluteAccelerations). Dense M_r and C_r: the baseline of the recursive
/// methods.

#include <array>
#include <vector>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"

namespace loopdyn {

/// Rows of C that joint coordinates keep as constraints: every pair's except the tree joints'.
std::vector<int> jointSpaceConstraintRows(const Model& model);

struct JointSpaceEquations {
  JointSpaceEquations(const Model& model, const TreeKinematics& tree);

 private:
  std::vector<std::array<BodyIndex, 2>> row_bodies_;  ///< per row of K: the bodies it acts on
  /// Body forces being reduced: F - M Jdot v_r (evaluate), then what the bodies' equations leave
  /// for their link joints (treeMultipliers).
  mutable VecX body_forces_;

 public:
  std::vector<int> rows;  ///< K: the rows of C kept as constraints, ascending
  VecX col;               ///< col_r: the joint velocities' scaling
  std::vector<TreeKinematics::LinkAxes> axes;  ///< per body: its link's world axes (J's columns there)
  VecX bias;              ///< Jdot v_r
  MatX M;                 ///< M_r
  VecX Q;                 ///< Q_r
  MatX C;                 ///< C_r (|K| x n_r)
  VecX gamma;             ///< gamma_r (with Baumgarte's terms when they are on)
  VecX b;                 ///< b_r

  /// Everything above at x (q, v, q_r, v_r consistent), and ws.kin, ws.M, ws.F, ws.F_nc and
  /// ws.Gamma (formulation.hpp's stabilizedGamma) evaluated there.
  void evaluate(const Model& model, const TreeKinematics& tree, DynamicsWorkspace& ws, const State& x,
                const Baumgarte& baumgarte);
  /// The link axes, C and b alone, at x's positions and time (ws.kin evaluated at x): what the
  /// velocities need.
  void evaluateConstraints(const Model& model, const TreeKinematics& tree, DynamicsWorkspace& ws, const State& x);
  /// A_r^T = diag(col_r) C_r^T diag(row_K), the transposed dimensionless matrix, of the last
  /// evaluation (n_r x |K|).
  void scaledTransposed(const ConstraintScaling& scaling, MatX& At) const;

  /// Multipliers mu of the rows K (K's order) that load the joints as the motion a_r needs,
  /// C_r^T mu = Q_r - M_r a_r (of the last evaluation), carried by the rows `carrying` (positions
  /// in K, the others zero; nullptr: all), least norm in the scaled rows where they are redundant.
  void constraintMultipliers(const ConstraintScaling& scaling, const VecX& a_r, const std::vector<int>* carrying,
                             VecX& mu) const;

  /// Every row's multiplier ws.lambda from the rows K's multipliers mu (the formulation's choice
  /// where they are not unique) and the bodies' equations M A = F - C^T lambda (ws.F, ws.M, ws.a
  /// and ws.kin.C at the state): the tree joints' by the Newton-Euler backward pass, leaves to
  /// root -- what a body's equation leaves after the forces of its child joints and of the rows K
  /// is its link joint's force on it, C_jb^T lambda_j (solved in the joint's scaled rows, which
  /// are independent), and C_jp^T lambda_j acts on the parent. O(n); the tree joints' reactions
  /// are then unique wherever the rows K's are.
  void treeMultipliers(const Model& model, DynamicsWorkspace& ws, const VecX& mu) const;
};

}  // namespace loopdyn
