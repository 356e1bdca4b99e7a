#include "loopdyn/dynamics/formulations/relative_lagrange.hpp"

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
    // a = M_r^-1 (Q_r - C_r^T mu): (C_r M_r^-1 C_r^T) mu = C_r M_r^-1 Q_r - gamma_r, least norm.
    // On the square-root factor B = L^-1 C_r^T (M_r = L L^T), B^T B = C_r M_r^-1 C_r^T and
    // mu = B^+ (B^+)^T g: the rank is decided on B, whose conditioning is C_r's, not its square
    // (a regular 27-body ladder whose |R_rr| / |R_11| is 2.2e-5 has a Gram matrix at 5e-10, below
    // kRankThreshold: a row was dropped as redundant and the velocities drifted off the
    // constraints, 0.09 m in 2 s).
    const MatX B = M_r.matrixL().solve(e.C.transpose());
    Eigen::CompleteOrthogonalDecomposition<MatX> cod;
    cod.setThreshold(kRankThreshold);
    cod.compute(B);
    const VecX z = cod.transpose().solve(VecX(e.C * ws.a_r - e.gamma));
    mu_ = cod.solve(z);
    ws.a_r.noalias() -= M_r.matrixU().solve(B * mu_);
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
