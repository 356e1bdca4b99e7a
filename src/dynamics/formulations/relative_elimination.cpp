#include "loopdyn/dynamics/formulations/relative_elimination.hpp"

#include <Eigen/QR>

#include <algorithm>

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {

std::string equationList(const Model& model, const std::vector<int>& rows, const std::vector<int>& positions) {
  std::string names;
  for (const int k : positions)
    names += (names.empty() ? "" : ", ") + model.equations()[static_cast<std::size_t>(rows[static_cast<std::size_t>(k)])].name;
  return names.empty() ? "?" : names;
}

}  // namespace

RelativeEliminationFormulation::RelativeEliminationFormulation(const Model& model, std::vector<int> eliminated,
                                                               bool reselect)
    : JointCoordinateFormulation(model), eliminated_(std::move(eliminated)), reselect_(reselect), equations_(model, tree_) {
  std::sort(eliminated_.begin(), eliminated_.end());
  const std::vector<int>& rows = equations_.rows;
  for (const int row : eliminated_)
    LOOPDYN_CHECK(std::binary_search(rows.begin(), rows.end(), row), "elimination in joint coordinates: ",
                  model.equations()[static_cast<std::size_t>(row)].name,
                  " belongs to a joint of the spanning tree, which joint coordinates satisfy by construction");
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (!std::binary_search(eliminated_.begin(), eliminated_.end(), rows[k])) kept_.push_back(static_cast<int>(k));
}

std::vector<int> RelativeEliminationFormulation::redundantRows(const Model& model, const TreeKinematics& tree,
                                                               const State& x, int rank) {
  DynamicsWorkspace ws(model);
  State xs = x;
  if (!jointState(tree, xs).empty()) return {};  // (the formulation's solve then says why)
  JointSpaceEquations e(model, tree);
  evaluateConstraints(model, ws.kin, xs);
  e.evaluateConstraints(model, tree, ws, xs);
  MatX At;
  e.scaledTransposed(ws.scaling, At);
  std::vector<int> out;
  if (At.cols() == 0) return out;
  const Eigen::ColPivHouseholderQR<MatX> qr(At);
  for (Eigen::Index k = rank; k < At.cols(); ++k) out.push_back(e.rows[static_cast<std::size_t>(qr.colsPermutation().indices()(k))]);
  std::sort(out.begin(), out.end());
  return out;
}

std::string RelativeEliminationFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                    bool multipliers) const {
  JointSpaceEquations& e = equations_;
  e.evaluate(model, tree_, ws, x, baumgarte);
  mass_llt_.compute(e.M);
  if (mass_llt_.info() != Eigen::Success) return "the tree's mass matrix J^T M J is not positive definite";
  // At = L_r^-1 C_r^T diag(row), z0 = L_r^-1 Q_r (kept_rows.hpp)
  const auto k = static_cast<Eigen::Index>(e.rows.size());
  At_.resize(e.C.cols(), k);
  VecX scaled_gamma(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    const Scalar row = ws.scaling.row(e.rows[static_cast<std::size_t>(i)]);
    At_.col(i) = row * e.C.row(i).transpose();
    scaled_gamma(i) = row * e.gamma(i);
  }
  if (k > 0) mass_llt_.matrixL().solveInPlace(At_);
  const VecX z0 = mass_llt_.matrixL().solve(e.Q);

  std::vector<int> kept = kept_;
  if (!solver_.solve(At_, z0, scaled_gamma, kept)) {
    // dependent here: singular (rank below the kept rows), or only the choice went bad
    const KeptRowsSolver::Diagnosis why = KeptRowsSolver::diagnose(At_, kept_);
    if (why.rank < static_cast<int>(kept_.size()))
      return "a singular configuration (or within 1e-6 of one): the constraints left by joint coordinates have rank " +
             std::to_string(why.rank) + " here, below the " + std::to_string(kept_.size()) +
             " equations kept after elimination (dependent: " + equationList(model, e.rows, why.dependent) + ")";
    if (!reselect_ || !solver_.solve(At_, z0, scaled_gamma, why.independent))
      return "the equations kept after elimination are dependent here (" + equationList(model, e.rows, why.dependent) +
             ") although the mechanism is not singular: eliminate other equations";
    kept = why.independent;
  }
  ws.a_r = mass_llt_.matrixU().solve(solver_.z);
  mu_.setZero(k);
  for (std::size_t i = 0; i < kept.size(); ++i)
    mu_(kept[i]) = ws.scaling.row(e.rows[static_cast<std::size_t>(kept[i])]) * solver_.w(static_cast<Eigen::Index>(i));
  tree_.absoluteAccelerations(x.q_r, x.v_r, ws.a_r, ws.a);  // A = J a_r + Jdot v_r
  if (!ws.a_r.allFinite()) return {};  // (the simulation names the bodies)

  // every row's multiplier: mu (the rows eliminated carry none), the tree joints' from the bodies
  if (multipliers) e.treeMultipliers(model, ws, mu_);
  return {};
}

Scalar RelativeEliminationFormulation::constraintPower(const DynamicsWorkspace&, const State&) const {
  return mu_.dot(equations_.b);  // (b of the rows left, at the last evaluation)
}

}  // namespace loopdyn
