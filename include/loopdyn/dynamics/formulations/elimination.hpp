#pragma once
/// Elimination of redundant constraints (paper 001, sect. 3.1), in either coordinates
/// (coordinate_equations.hpp): of the rows the coordinates keep as constraints, the redundant ones
/// are removed and Gauss's principle runs on the rest, whose multipliers are reported (the
/// eliminated rows' are zero). The kept rows must be independent (kept_rows.hpp's pivot test:
/// absolute on their kinetic Gram matrix G_K = C_K M^-1 C_K^T, kinetic_gram.hpp; joint
/// coordinates on At = L_r^-1 C_r^T diag(row) in the metric M_r = L_r L_r^T, a_r = L_r^-T z).
/// They are chosen by QR with column pivoting of the scaled C^T (analysis/constraint_rank.hpp;
/// redundantRows below) or named by the user. In joint coordinates the tree joints' equations hold
/// by construction and are independent among themselves, so only rows outside the spanning tree
/// can go.
///
/// Which rows are redundant can change along the motion (the spatial four-bar's joint-frame
/// equations O4.rx, B.ry, O2.ry chosen at t = 0 leave A.ry dependent at t = 1.4 s, a regular
/// configuration), and long before the rows kept turn dependent they turn ill-conditioned: the
/// accelerations then amplify the drift off the constraints, and the step size collapses (the
/// Bricard mechanism, models/bricard.yaml: QR eliminates J1.ry at the start, whose kept rows turn
/// dependent at t = 1.37 s; replaced only inside the evaluations that failed, the run took 17 668
/// steps at rtol 1e-10 with dop853 where lagrange takes 383; re-chosen as below, 302 steps, with
/// 7 switches as the best choice's quality stays near 0.02). An automatic choice is therefore
/// re-chosen after an accepted step, as coordinate
/// partitioning re-chooses its coordinates (partitioning.hpp, sect. 5 of paper 003): when the kept
/// rows' quality -- the smallest |R_kk| / |R_11| of their pivoted QR in the kinetic metric, At
/// below -- falls below kSwitchRatio times the best known, QR with column pivoting of all rows
/// chooses again there and the run logs an EventKind::EliminationSwitch. Inside a step an
/// evaluation whose kept rows are dependent uses the rows QR keeps there, for that evaluation. A
/// user's choice is kept (and fails where it turns dependent). At a singular configuration (rank
/// below the number of kept rows) elimination cannot go on and says so, naming the dependent rows
/// (passesSingularConfigurations() is false).
///
/// Reactions: with the eliminated rows' multipliers zero, the rows left are independent, so the
/// kept rows' multipliers are unique, and in joint coordinates C_left^T lambda_left = F - M A
/// (the tree joints' and the kept rows', A = J a_r + Jdot v_r) has one solution: the same
/// reactions as absolute elimination of the same rows.

#include <string>
#include <vector>

#include "loopdyn/dynamics/formulations/velocity_formulation.hpp"

namespace loopdyn {

class EliminationFormulation final : public VelocityFormulation {
 public:
  /// eliminated: rows of C removed from the equations (in joint coordinates rows outside the
  /// spanning tree; throws InvalidArgument naming a tree joint's). reselect: where those leave
  /// dependent equations at a regular configuration, use the rows QR with column pivoting keeps
  /// there instead (for an automatic choice; a user's choice fails). relative: in joint coordinates.
  EliminationFormulation(const Model& model, std::vector<int> eliminated, bool reselect = false, bool relative = false);
  std::string_view name() const override { return "elimination"; }
  /// The rows eliminated at the start.
  std::vector<int> eliminatedEquations() const override { return eliminated_; }
  /// The rows eliminated now in a run (an automatic choice may have switched: its events say when).
  std::vector<int> eliminatedEquations(const FormulationData& data) const override {
    return dataAs<Data>(data).eliminated;
  }
  bool passesSingularConfigurations() const override { return false; }
  /// mu^T b over the kept rows (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;

  /// After the base's (velocities onto the constraints after a projection), for an automatic
  /// choice: the switch of the header when the kept rows have degraded.
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) const override;

  /// A run's choice of rows and their multipliers.
  struct Data : VelocityFormulation::Data {
    std::vector<int> eliminated;  ///< rows of C, ascending
    std::vector<int> kept;        ///< positions in the rows the coordinates keep (CoordinateEquations::rows)
    Scalar best_quality = 0;      ///< the best known quality (the header), automatic choice only
    VecX mu;                      ///< multipliers of the rows kept by the coordinates
  };

 protected:
  std::unique_ptr<FormulationData> makeData(const Model& model) const override;
  Problem begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const override;
  Problem solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, const Evaluation& how) const override;

 private:
  /// The kept rows' quality at x (the header), 0 where the equations cannot be set up there.
  Scalar quality(const Model& model, DynamicsWorkspace& ws, const State& x, const std::vector<int>& kept) const;
  /// Replaces the run's choice by `kept` (positions in the coordinates' rows) and returns the event.
  RunEvent switchTo(const Model& model, Data& d, const std::vector<int>& kept, Scalar quality_from, Scalar t) const;

  std::vector<int> eliminated_;  ///< rows of C at the start, ascending
  std::vector<int> kept_;        ///< positions in the rows the coordinates keep, at the start
  bool reselect_;
};

/// The rows of `equations` that QR with column pivoting of their scaled transpose leaves out at x
/// (an assembled, regular state), for a rank `rank` of those rows; empty where the coordinates
/// cannot describe x (the formulation's solve then says why).
std::vector<int> redundantRows(const Model& model, CoordinateEquations& equations, const State& x, int rank);

}  // namespace loopdyn
