#include "loopdyn/dynamics/relative_lagrange.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"

namespace loopdyn {

namespace {

/// Rows of C that relative coordinates keep as constraints: every pair except the tree joints.
std::vector<int> constraintRows(const Model& model) {
  std::vector<bool> tree_row(static_cast<std::size_t>(model.nc()), false);
  for (std::size_t j = 0; j < model.joints().size(); ++j) {
    if (model.topology().roles[j] != JointRole::Tree) continue;
    const Joint& joint = model.joints()[j];
    for (int r = joint.row; r < joint.row + joint.rows; ++r) tree_row[static_cast<std::size_t>(r)] = true;
  }
  std::vector<int> rows;
  for (int r = 0; r < model.nc(); ++r)
    if (!tree_row[static_cast<std::size_t>(r)]) rows.push_back(r);
  return rows;
}

}  // namespace

RelativeLagrangeFormulation::RelativeLagrangeFormulation(const Model& model)
    : JointCoordinateFormulation(model), rows_(constraintRows(model)) {}

std::string RelativeLagrangeFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                 bool multipliers) const {
  evaluateConstraints(model, ws.kin, x);
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  stabilizedGamma(model, ws, x, baumgarte);
  MatX J;
  VecX bias;
  tree_.jacobian(x.q_r, J);
  tree_.absoluteAccelerations(x.q_r, x.v_r, VecX::Zero(tree_.nv()), bias);  // Jdot v_r

  // the tree: M_r a = Q_r without constraints (tree_dynamics.hpp)
  const Eigen::LLT<MatX> M_r(J.transpose() * ws.M * J);
  if (M_r.info() != Eigen::Success) return "the tree's mass matrix J^T M J is not positive definite";
  const VecX Q_r = J.transpose() * (ws.F - ws.M * bias);

  // the constraints left: C_r = C_cut J, gamma_r = Gamma_cut - C_cut Jdot v
  const auto k = static_cast<Eigen::Index>(rows_.size());
  MatX C_cut(k, model.nv());
  VecX gamma_r(k);
  ws.b_cut.resize(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    const int row = rows_[static_cast<std::size_t>(i)];
    C_cut.row(i) = ws.kin.C.row(row);
    gamma_r(i) = ws.Gamma(row);
    ws.b_cut(i) = ws.kin.b(row);
  }
  gamma_r.noalias() -= C_cut * bias;
  ws.a_r = M_r.solve(Q_r);
  ws.mu.setZero(k);
  if (k > 0) {
    // a = M_r^-1 (Q_r - C_r^T mu): (C_r M_r^-1 C_r^T) mu = C_r M_r^-1 Q_r - gamma_r, least norm
    const MatX C_r = C_cut * J;
    const MatX MinvCt = M_r.solve(C_r.transpose());
    Eigen::CompleteOrthogonalDecomposition<MatX> gram;
    gram.setThreshold(kRankThreshold);
    gram.compute(C_r * MinvCt);
    ws.mu = gram.solve(C_r * ws.a_r - gamma_r);
    ws.a_r.noalias() -= MinvCt * ws.mu;
  }
  ws.a = bias;
  ws.a.noalias() += J * ws.a_r;
  if (!ws.a_r.allFinite()) return {};  // (the simulation names the bodies)

  // every row's multiplier from the bodies' equations: C^T lambda = F - M A (formulation.hpp)
  if (multipliers) {
    ws.r = ws.F;
    ws.r.noalias() -= ws.M * ws.a;
    leastNormMultipliers(model, ws, ws.r);
  }
  return {};
}

Scalar RelativeLagrangeFormulation::constraintPower(const DynamicsWorkspace& ws, const State&) const {
  return ws.mu.dot(ws.b_cut);
}

}  // namespace loopdyn
