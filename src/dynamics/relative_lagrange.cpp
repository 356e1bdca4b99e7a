#include "loopdyn/dynamics/relative_lagrange.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include "loopdyn/analysis/constraint_rank.hpp"

namespace loopdyn {

RelativeLagrangeFormulation::RelativeLagrangeFormulation(const Model& model)
    : JointCoordinateFormulation(model), equations_(model, tree_) {}

std::string RelativeLagrangeFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                 bool multipliers) const {
  JointSpaceEquations& e = equations_;
  e.evaluate(model, tree_, ws, x, baumgarte);

  // the tree: M_r a = Q_r without constraints (tree_dynamics.hpp)
  const Eigen::LLT<MatX> M_r(e.M);
  if (M_r.info() != Eigen::Success) return "the tree's mass matrix J^T M J is not positive definite";
  ws.a_r = M_r.solve(e.Q);
  const auto k = static_cast<Eigen::Index>(e.rows.size());
  mu_.setZero(k);
  if (k > 0) {
    // a = M_r^-1 (Q_r - C_r^T mu): (C_r M_r^-1 C_r^T) mu = C_r M_r^-1 Q_r - gamma_r, least norm
    const MatX MinvCt = M_r.solve(e.C.transpose());
    Eigen::CompleteOrthogonalDecomposition<MatX> gram;
    gram.setThreshold(kRankThreshold);
    gram.compute(e.C * MinvCt);
    mu_ = gram.solve(e.C * ws.a_r - e.gamma);
    ws.a_r.noalias() -= MinvCt * mu_;
  }
  tree_.absoluteAccelerations(x.q_r, x.v_r, ws.a_r, ws.a);  // A = J a_r + Jdot v_r
  if (!ws.a_r.allFinite()) return {};  // (the simulation names the bodies)

  // every row's multiplier: the rows K's least (scaled) norm where they are redundant (mu's own
  // norm above depends on the units of the rows), the tree joints' from the bodies' equations
  if (multipliers) {
    e.constraintMultipliers(ws.scaling, ws.a_r, nullptr, mu_);
    e.treeMultipliers(model, ws, mu_);
  }
  return {};
}

Scalar RelativeLagrangeFormulation::constraintPower(const DynamicsWorkspace&, const State&) const {
  return mu_.dot(equations_.b);  // (b of the rows left, at the last evaluation)
}

}  // namespace loopdyn
