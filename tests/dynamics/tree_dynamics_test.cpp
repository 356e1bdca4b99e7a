// Forward dynamics of open trees in relative coordinates (issue 15) against the absolute
// formulation's equations: the same body accelerations at random states, every joint type, 2D
// and 3D, joints traversed both ways.

#include "loopdyn/dynamics/tree_dynamics.hpp"

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <random>

#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "support/against_lagrange.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// Body accelerations from the absolute equations M A = F + C^T lambda, C A = Gamma (a KKT solve
/// by complete orthogonal decomposition: a method the relative formulation does not share).
VecX absoluteAccelerations(const Model& model, const State& x) {
  KinematicsWorkspace ws(model);
  evaluateConstraints(model, ws, x);
  MatX M;
  VecX F, F_nc;
  massMatrix(model, ws.motion, M);
  appliedForces(model, ws.motion, x.t, F, F_nc);
  const int n = model.nv(), m = model.nc();
  MatX K = MatX::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = M;
  K.topRightCorner(n, m) = ws.C.dense().transpose();
  K.bottomLeftCorner(m, n) = ws.C.dense();
  VecX rhs(n + m);
  rhs << F, ws.Gamma;
  return Eigen::CompleteOrthogonalDecomposition<MatX>(K).solve(rhs).head(n);
}

TEST(TreeDynamics, OpenTreesAccelerateAsInAbsoluteCoordinates) {
  std::mt19937 rng(18);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Model model = test::randomTree(trial % 2 == 0 ? 2 : 3, 1 + trial % 7, false, rng);
    ASSERT_TRUE(model.topology().cut_joints.empty());
    const TreeKinematics tree(model);
    VecX q, v;
    test::randomJointState(model, tree, rng, q, v);

    VecX a_r, A;
    treeForwardDynamics(model, tree, 0, q, v, a_r);
    tree.absoluteAccelerations(q, v, a_r, A);
    State x;
    tree.absoluteState(q, v, 0, x);
    const VecX expected = absoluteAccelerations(model, x);
    // both solve the same well-conditioned equations: agreement to rounding of the accelerations
    // (up to ~1e2 m/s^2 here), 1e-10 relative
    EXPECT_LT((A - expected).cwiseAbs().maxCoeff(), 1e-10 * (1 + expected.cwiseAbs().maxCoeff())) << "trial " << trial;
    ++checked;
  }
  EXPECT_EQ(checked, 40);
}

TEST(TreeDynamics, ModelsWithLoopsAreRefusedUntilCutJointsAreHandled) {
  const Model model = test::loadModel("four_bar_planar");
  const TreeKinematics tree(model);
  VecX a;
  EXPECT_THROW(treeForwardDynamics(model, tree, 0, VecX::Zero(tree.nq()), VecX::Zero(tree.nv()), a), InvalidArgument);
}

// The composite-rigid-body algorithm and the Newton-Euler backward pass against their definitions
// M_r = J^T M J and Q_r = J^T w, on random trees (2D and 3D, chains and branched, every joint
// type, joints traversed both ways) at random states with random body wrenches: equal to rounding
// (1e-12 of the largest entry: sums of a few dozen products of O(1..10) numbers).
TEST(TreeDynamics, CompositeRigidBodyAndNewtonEulerEqualTheirDefinitions) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<Scalar> u(-2, 2);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Model model = test::randomTree(trial % 2 == 0 ? 2 : 3, 1 + trial % 9, trial % 3 == 0, rng);
    const TreeKinematics tree(model);
    VecX q, v;
    test::randomJointState(model, tree, rng, q, v);
    State x;
    tree.absoluteState(q, v, 0, x);
    KinematicsWorkspace kin(model);
    evaluateConstraints(model, kin, x);
    MatX M, J, M_r;
    massMatrix(model, kin.motion, M);
    tree.jacobian(q, J);
    std::vector<TreeKinematics::LinkAxes> axes;
    worldLinkAxes(tree, q, kin.motion, axes);
    compositeRigidBodyMassMatrix(model, tree, kin.motion, axes, M_r);
    const MatX expected = J.transpose() * M * J;
    ASSERT_EQ(M_r.rows(), tree.nv());
    if (tree.nv() == 0) continue;  // (a single body on a fixed joint)
    ++checked;
    EXPECT_LT((M_r - expected).cwiseAbs().maxCoeff(), 1e-12 * (1 + expected.cwiseAbs().maxCoeff())) << "trial " << trial;
    VecX w(model.nv()), Q_r;
    for (Eigen::Index k = 0; k < w.size(); ++k) w(k) = u(rng);
    subtreeJointForces(model, tree, kin.motion, axes, w, Q_r);
    const VecX expected_Q = J.transpose() * w;
    EXPECT_LT((Q_r - expected_Q).cwiseAbs().maxCoeff(), 1e-12 * (1 + expected_Q.cwiseAbs().maxCoeff())) << "trial " << trial;
  }
  EXPECT_GE(checked, 30);
}

}  // namespace
}  // namespace loopdyn
