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

RelativeDynamics relativeLagrange(const Model& model, const TreeKinematics& tree, Scalar t, const VecX& q_r,
                                  const VecX& v_r) {
  State x;
  tree.absoluteState(q_r, v_r, t, x);
  KinematicsWorkspace ws(model);
  evaluateConstraints(model, ws, x);
  MatX M, J;
  VecX F, F_nc, bias;
  massMatrix(model, ws.motion, M);
  appliedForces(model, ws.motion, t, F, F_nc);
  tree.jacobian(q_r, J);
  tree.absoluteAccelerations(q_r, v_r, VecX::Zero(tree.nv()), bias);  // Jdot v

  // the tree: M_r a = Q_r without constraints (tree_dynamics.hpp)
  const Eigen::LLT<MatX> M_r(J.transpose() * M * J);
  LOOPDYN_CHECK(M_r.info() == Eigen::Success, "the tree's mass matrix J^T M J is not positive definite");
  const VecX Q_r = J.transpose() * (F - M * bias);

  // the constraints left: C_r = C_cut J, gamma_r = Gamma_cut - C_cut Jdot v
  const std::vector<int> rows = constraintRows(model);
  const auto k = static_cast<Eigen::Index>(rows.size());
  MatX C_cut(k, model.nv());
  VecX Gamma_cut(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    C_cut.row(i) = ws.C.row(rows[static_cast<std::size_t>(i)]);
    Gamma_cut(i) = ws.Gamma(rows[static_cast<std::size_t>(i)]);
  }
  const MatX C_r = C_cut * J;
  const VecX gamma_r = Gamma_cut - C_cut * bias;

  RelativeDynamics out;
  out.a_r = M_r.solve(Q_r);
  if (k > 0) {
    // a = M_r^-1 (Q_r - C_r^T mu): (C_r M_r^-1 C_r^T) mu = C_r M_r^-1 Q_r - gamma_r, least norm
    const MatX MinvCt = M_r.solve(C_r.transpose());
    Eigen::CompleteOrthogonalDecomposition<MatX> gram;
    gram.setThreshold(kRankThreshold);
    gram.compute(C_r * MinvCt);
    out.rank = static_cast<int>(gram.rank());
    const VecX mu = gram.solve(C_r * out.a_r - gamma_r);
    out.a_r -= MinvCt * mu;
  }
  tree.absoluteAccelerations(q_r, v_r, out.a_r, out.A);

  // every row's multiplier from the bodies' equations: C^T lambda = F - M A (least norm; the sign
  // of the absolute formulations, formulation.hpp)
  if (model.nc() > 0) {
    Eigen::CompleteOrthogonalDecomposition<MatX> reactions;
    reactions.setThreshold(kRankThreshold);
    reactions.compute(ws.C.transpose());
    out.lambda = reactions.solve(F - M * out.A);
  } else {
    out.lambda.resize(0);
  }
  return out;
}

}  // namespace loopdyn
