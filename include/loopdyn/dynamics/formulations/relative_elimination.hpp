#pragma once
/// Elimination of redundant constraints in joint coordinates (issue 15; paper 001, sect. 3.1, as
/// the absolute EliminationFormulation of formulation.hpp). Of the rows that joint coordinates
/// keep as constraints (joint_space_equations.hpp: cut joints, distance joints, knife edges,
/// drivers) the redundant ones are removed, and Gauss's principle runs on the rest (kept_rows.hpp)
/// in the metric of M_r = L_r L_r^T: At = L_r^-1 C_r^T diag(row), z0 = L_r^-1 Q_r, a_r = L_r^-T z.
/// The tree joints' equations hold by construction and are independent among themselves, so
/// only rows outside the spanning tree can be eliminated; as in absolute coordinates they are
/// chosen by QR with column pivoting (of diag(col_r) C_r^T diag(row)) or named by the user, and
/// an automatic choice that turns dependent at a regular configuration is replaced there by QR's.
///
/// Reactions: with the eliminated rows' multipliers zero, the rows left -- the tree joints' and
/// the kept ones -- are independent, so C_left^T lambda_left = F - M A (A = J a_r + Jdot v_r, the
/// bodies' equations) has one solution: the reactions of this elimination, equal to those of the
/// absolute formulation that eliminates the same rows.
///
/// At a singular configuration the kept rows turn dependent and elimination stops, naming them
/// (passesSingularConfigurations() is false, as in absolute coordinates).

#include <vector>

#include "loopdyn/dynamics/formulations/joint_coordinate_formulation.hpp"
#include "loopdyn/dynamics/joint_space_equations.hpp"
#include "loopdyn/dynamics/kept_rows.hpp"

namespace loopdyn {

class RelativeEliminationFormulation final : public JointCoordinateFormulation {
 public:
  /// eliminated: rows of C (outside the spanning tree) removed from the equations. reselect:
  /// where those leave dependent equations at a regular configuration, use the rows QR keeps there
  /// instead (for an automatic choice; a user's choice fails).
  RelativeEliminationFormulation(const Model& model, std::vector<int> eliminated, bool reselect = false);
  std::string_view name() const override { return "elimination"; }
  std::vector<int> eliminatedEquations() const override { return eliminated_; }
  bool passesSingularConfigurations() const override { return false; }
  /// mu^T b_r over the kept rows (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;

  /// The rows QR with column pivoting of diag(col_r) C_r^T diag(row) leaves out at x (an assembled,
  /// regular state with joint coordinates), for C_r of rank `rank`.
  static std::vector<int> redundantRows(const Model& model, const TreeKinematics& tree, const State& x, int rank);

 protected:
  std::string solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, bool multipliers) const override;

 private:
  std::vector<int> eliminated_;  ///< rows of C, ascending
  std::vector<int> kept_;        ///< positions in equations_.rows
  bool reselect_;
  mutable JointSpaceEquations equations_;  ///< (its buffers: one formulation object per thread)
  mutable VecX mu_;  ///< multipliers of the rows left as constraints (cut joints, drivers, knife edges)
  mutable KeptRowsSolver solver_;
  mutable Eigen::LLT<MatX> mass_llt_;
  mutable MatX At_;
};

}  // namespace loopdyn
