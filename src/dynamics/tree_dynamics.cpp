#include "loopdyn/dynamics/tree_dynamics.hpp"

#include <Eigen/Cholesky>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"

namespace loopdyn {

void treeForwardDynamics(const Model& model, const TreeKinematics& tree, Scalar t, const VecX& q_r, const VecX& v_r,
                         VecX& a_r) {
  LOOPDYN_CHECK(model.topology().cut_joints.empty() && model.drivers().empty(),
                "relative-coordinate forward dynamics handles open trees only so far: the model has ",
                model.topology().cut_joints.size(), " joints outside its spanning tree and ", model.drivers().size(),
                " drivers");
  State x;
  tree.absoluteState(q_r, v_r, t, x);
  std::vector<BodyMotion> motion;
  for (BodyIndex b = 0; b < model.nb(); ++b) motion.push_back(bodyMotion(model, x.q, x.v, b));
  MatX M, J;
  VecX F, F_nc, bias;
  massMatrix(model, motion, M);
  appliedForces(model, motion, t, F, F_nc);
  tree.jacobian(q_r, J);
  tree.absoluteAccelerations(q_r, v_r, VecX::Zero(tree.nv()), bias);  // Jdot v
  // J^T M J is positive definite for a tree of bodies with mass: every joint motion moves a body
  const Eigen::LLT<MatX> factor(J.transpose() * M * J);
  LOOPDYN_CHECK(factor.info() == Eigen::Success, "the tree's mass matrix J^T M J is not positive definite");
  a_r = factor.solve(J.transpose() * (F - M * bias));
}

}  // namespace loopdyn
