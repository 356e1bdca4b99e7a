// The divide-and-conquer algorithm (issue 16) against the other formulations: open trees at random
// joint states (2D and 3D, every joint type, joints traversed both ways) against relative-
// coordinate lagrange; every bundled model at its assembled state (closed loops, redundant
// constraints, drivers, knife edges) against absolute lagrange: the same body and joint
// accelerations and the same unique reactions.

#include "loopdyn/dynamics/dca.hpp"

#include <gtest/gtest.h>

#include <random>

#include "loopdyn/dynamics/relative_lagrange.hpp"
#include "support/against_lagrange.hpp"

namespace loopdyn {
namespace {

using test::maxAbs;

// Random open trees: the DCA's body and joint accelerations equal relative-coordinate lagrange's
// (dense, J^T M J) to rounding, 1e-10 of the accelerations' size.
TEST(DivideAndConquer, OpenTreesAccelerateAsRelativeLagrange) {
  std::mt19937 rng(16);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Model model = test::randomTree(trial % 2 == 0 ? 2 : 3, 1 + trial % 9, trial % 4 == 1, rng);
    const TreeKinematics tree(model);
    State x;
    test::randomJointState(model, tree, rng, x.q_r, x.v_r);
    tree.absoluteState(x.q_r, x.v_r, 0, x);

    const RelativeLagrangeFormulation lagrange(model);
    const DcaFormulation dca(model);
    DynamicsWorkspace lws(model), dws(model);
    VecX du_l(tree.nv()), du_d(tree.nv());
    State xl = x, xd = x;
    ASSERT_EQ(lagrange.evaluate(model, lws, xl, x.v_r, du_l, Evaluation{}), "");
    ASSERT_EQ(dca.evaluate(model, dws, xd, x.v_r, du_d, Evaluation{}), "");
    EXPECT_LT(maxAbs(dws.a - lws.a), 1e-10 * (1 + maxAbs(lws.a))) << "trial " << trial;
    EXPECT_LT(maxAbs(du_d - du_l), 1e-10 * (1 + maxAbs(du_l))) << "trial " << trial;
    ++checked;
  }
  EXPECT_EQ(checked, 40);
}

// Every bundled model at its assembled state (closed loops, redundant constraints, drivers, knife
// edges, singular starts): the accelerations and unique reactions of absolute lagrange.
TEST(DivideAndConquer, EveryBundledModelMovesAndLoadsItsJointsAsLagrange) {
  int models = 0;
  const int unique_pairs = test::expectLagrangeDynamicsOnEveryBundledModel(
      [](const Model& model) { return std::make_unique<DcaFormulation>(model); }, models);
  EXPECT_GE(models, 23);
  EXPECT_GE(unique_pairs, 30);
}

}  // namespace
}  // namespace loopdyn
