// The singularity watch's distance |R_rr| / |R_11| (dynamics/singular_watch.hpp), read from the
// diagonally pivoted elimination of C_s C_s^T, against the Householder QR of C_s^T it stands for.

#include "loopdyn/dynamics/singular_watch.hpp"
#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/analysis/independent_rows.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>

#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

// At every rank r the watch's ratio is the QR's |R_rr| / |R_11|, and the excess (r + 1) with the
// same equation: on random mechanisms in 2D and 3D, with loops and duplicated (redundant) joints,
// at unassembled states. The ratio is the square root of a pivot of C_s C_s^T, which carries
// rounding of about eps |R_11|^2: its error is near 1e-16 / ratio (measured: at most 1.7e-15 over
// 280 ratios between 0.039 and 1; bound 1e-12); a dependent row's ratio is rounding for both
// (the watch's measured up to 1.3e-8 over 52, the QR's below 1e-12; bound 1e-7).
TEST(SingularWatch, RatiosAreTheHouseholderQrs) {
  std::mt19937 rng(29);
  int compared = 0, dependent = 0, unwatched = 0;
  for (const int dimension : {2, 3}) {
    for (int trial = 0; trial < 12; ++trial) {
      test::RandomMechanismOptions options;
      options.bodies = 2 + trial % 5;
      options.loop_closures = trial % 2;
      options.duplicate_joints = trial % 3;
      const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
      if (model.nc() == 0) continue;
      DynamicsWorkspace ws(model);
      const State x = test::stateOf(model);
      evaluateConstraints(model, ws.kin, x);
      TangentFactorization tf;
      tf.compute(ws.kin, ws.scaling, 0);
      const int size = static_cast<int>(std::min(tf.At.rows(), tf.At.cols()));
      for (int r = 1; r <= size; ++r) {
        const std::string where = std::to_string(dimension) + "D trial " + std::to_string(trial) + ", r = " + std::to_string(r);
        SingularWatch watch(r);
        const Scalar ratio = watch.start(model, ws, x), qr = tf.diagonalRatio(r - 1);
        if (r == model.nc() && fullRankEverywhere(model)) {
          // a tree watched for its every row: it has no singular configuration, and is not watched
          EXPECT_EQ(ratio, 1) << where;
          EXPECT_EQ(watch.lastExcessEquation(), -1) << where;
          ++unwatched;
          continue;
        }
        if (qr >= 1e-4) {
          EXPECT_NEAR(ratio, qr, 1e-12) << where;
          ++compared;
        } else if (qr < 1e-12) {
          EXPECT_LT(ratio, 1e-7) << where;
          ++dependent;
        }
        if (r < size && tf.diagonalRatio(r) >= 1e-4) {
          EXPECT_NEAR(watch.lastExcessRatio(), tf.diagonalRatio(r), 1e-12) << where;
          EXPECT_EQ(watch.lastExcessEquation(), tf.pivot(r)) << where;
        }
      }
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(dependent, 5);
  EXPECT_GT(unwatched, 0);  // (some of the random mechanisms are trees)
}

// At the double four-bar's singular (horizontal) pose the rank drops from 14 to 12: the watch's
// ratio at r = 14 is rounding, at r = 12 it is not.
TEST(SingularWatch, SeesTheDoubleFourBarsSingularPose) {
  const Model model = test::loadModel("double_four_bar_singular");
  DynamicsWorkspace ws(model);
  const State x = test::assembledInitialState(model);
  EXPECT_LT(SingularWatch(14).ratioAt(model, ws, x), 1e-7);
  EXPECT_GT(SingularWatch(12).ratioAt(model, ws, x), 1e-2);
}

}  // namespace
}  // namespace loopdyn

namespace loopdyn {
namespace {

// sigma_r / sigma_1 by Lanczos (from kSparseRows rows without redundancy) against the dense
// eigen-decomposition of C_s C_s^T, along the motion of a 48-loop ladder (290 rows) through the
// instant every loop is horizontal (sampled every 10 ms; lagrange, rtol 1e-10). Bound: 1e-5
// relative plus 2e-8. Lanczos stops where its Ritz value moves by less than 1e-12 a step; among
// the 48 loops' nearly equal small eigenvalues it lands inside that cluster, measured within
// 1.03e-6 of the smallest (relative; the plan and the search read sigma to far less); the dense
// sigma_r is the square root of an eigenvalue known to eps sigma_1^2, about 1.5e-8 where it
// vanishes. The samples must span the ratio from its regular level down to 1e-3 or below; with
// four Lanczos steps instead of up to 80 the test fails (4 samples).
TEST(SingularWatch, LanczosSigmaRatioIsTheDenseOneAlongALargeLadder) {
  const Model model = compile(test::fourBarLadderSpec({48, true, false}));
  ASSERT_GE(model.nc(), kSparseRows);
  const State x0 = test::assembledInitialState(model);
  LagrangeFormulation lagrange(model);
  std::vector<State> states;
  const SimulationResult run = simulate(model, lagrange, x0, test::accurateOptions(1.0, 1e-10, 0.01),
                                        [&](const Sample& s, const DynamicsWorkspace&) { states.push_back(s.x); });
  ASSERT_TRUE(run.ok) << run.failure;
  ASSERT_FALSE(run.passages.empty());
  const SingularWatch watch(model.nc());
  DynamicsWorkspace ws(model);
  Scalar lowest = 1, highest = 0;
  for (const State& x : states) {
    const Scalar sparse = watch.singularValueRatioAt(model, ws, x);
    const MatX Cs = ws.scaling.row.asDiagonal() * ws.kin.C.dense() * ws.scaling.col.asDiagonal();
    const VecX l = Eigen::SelfAdjointEigenSolver<MatX>(MatX(Cs * Cs.transpose()), Eigen::EigenvaluesOnly).eigenvalues();
    const Scalar dense = std::sqrt(std::max<Scalar>(0, l(0)) / l(l.size() - 1));
    EXPECT_NEAR(sparse, dense, 1e-5 * dense + 2e-8) << "t = " << x.t;
    lowest = std::min(lowest, dense);
    highest = std::max(highest, dense);
  }
  EXPECT_LT(lowest, 1e-3);
  EXPECT_GT(highest, 1e-2);
}

}  // namespace
}  // namespace loopdyn
