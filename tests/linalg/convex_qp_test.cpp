// The Goldfarb-Idnani quadratic program (linalg/convex_qp.hpp): hand-solved projections, an
// infeasible pair of bounds, and the optimality (KKT) conditions on random problems.

#include "loopdyn/linalg/convex_qp.hpp"

#include <gtest/gtest.h>

#include <random>

namespace loopdyn {
namespace {

// min (x - 1)^2 + (y - 2)^2 with x + y <= 1: the projection of (1, 2) onto the line, (0, 1).
TEST(ConvexQp, ProjectsOntoAnActiveHalfPlane) {
  const MatX G = 2 * MatX::Identity(2, 2);
  const VecX g = (VecX(2) << -2, -4).finished();
  const MatX A = (MatX(2, 1) << -1, -1).finished();
  const VecX b = (VecX(1) << -1).finished();
  const QpSolution s = solveConvexQp(G, g, A, b);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.active, 1);
  EXPECT_LT((s.x - (VecX(2) << 0, 1).finished()).norm(), 1e-14);
  EXPECT_NEAR(s.multipliers(0), 2, 1e-14);  // (G x + g = (-2, -2) = A u)
}

// 1/2 |x - c|^2 in the unit box: c clamped; bounds that exclude each other: no point.
TEST(ConvexQp, ClampsToABoxAndSaysWhenBoundsExcludeEachOther) {
  const VecX c = (VecX(3) << 2, -1, 0.5).finished();
  MatX A(3, 6);
  A << MatX::Identity(3, 3), -MatX::Identity(3, 3);
  const VecX b = (VecX(6) << 0, 0, 0, -1, -1, -1).finished();
  const QpSolution s = solveConvexQp(MatX::Identity(3, 3), -c, A, b);
  ASSERT_TRUE(s.feasible);
  EXPECT_LT((s.x - (VecX(3) << 1, 0, 0.5).finished()).norm(), 1e-14);
  EXPECT_EQ(s.active, 2);
  const MatX A1 = (MatX(1, 2) << 1, -1).finished();  // x >= 1 and -x >= 0
  const VecX b1 = (VecX(2) << 1, 0).finished();
  EXPECT_FALSE(solveConvexQp(MatX::Identity(1, 1), VecX::Zero(1), A1, b1).feasible);
}

// Random problems whose constraints hold at a known point: the solution meets them, its
// multipliers are non-negative, vanish where a constraint is slack, and G x + g = A u.
TEST(ConvexQp, MeetsTheOptimalityConditionsOnRandomProblems) {
  std::mt19937 rng(20261204);
  std::normal_distribution<Scalar> normal;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Index n = 1 + trial % 4, m = 1 + trial % 7;
    MatX L(n, n), A(n, m);
    VecX g(n), x0(n), slack(m);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < n; ++j) L(i, j) = normal(rng);
      g(i) = 3 * normal(rng), x0(i) = normal(rng);
    }
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < m; ++j) A(i, j) = normal(rng);
    for (Eigen::Index j = 0; j < m; ++j) slack(j) = std::abs(normal(rng));
    const MatX G = L * L.transpose() + 0.1 * MatX::Identity(n, n);
    const VecX b = A.transpose() * x0 - slack;  // (x0 meets every constraint)
    const QpSolution s = solveConvexQp(G, g, A, b);
    ASSERT_TRUE(s.feasible) << trial;
    const VecX s_j = A.transpose() * s.x - b;
    EXPECT_GT(s_j.minCoeff(), -1e-9) << trial;
    EXPECT_GT(s.multipliers.minCoeff(), -1e-12) << trial;
    EXPECT_LT(s.multipliers.cwiseProduct(s_j).cwiseAbs().maxCoeff(), 1e-8) << trial;
    EXPECT_LT((G * s.x + g - A * s.multipliers).norm(), 1e-8 * (1 + g.norm())) << trial;
  }
}

}  // namespace
}  // namespace loopdyn
