// R's diagonal and the pivots of the Householder QR with column pivoting without Q
// (pivoted_qr_diagonal.hpp), against Eigen's ColPivHouseholderQR and against what a pivoted QR
// must satisfy, on random full-rank and rank-deficient matrices and on the constraint matrices of
// random redundant mechanisms, as the singular watch factorises them (tangent_space.hpp).

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <algorithm>
#include <random>

#include "loopdyn/dynamics/pivoted_qr_diagonal.hpp"
#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// A (rows x cols) of the given rank, with singular values spread over `spread` decades.
MatX randomMatrix(std::mt19937& rng, int rows, int cols, int rank, Scalar spread) {
  std::normal_distribution<Scalar> normal;
  const auto gaussian = [&](int r, int c) { return MatX(MatX::NullaryExpr(r, c, [&] { return normal(rng); })); };
  const Eigen::HouseholderQR<MatX> U(gaussian(rows, rank)), V(gaussian(cols, rank));
  VecX sigma(rank);
  for (int k = 0; k < rank; ++k) sigma(k) = std::pow(10.0, -spread * k / std::max(1, rank - 1));
  const MatX Ur = MatX(U.householderQ()).leftCols(rank), Vr = MatX(V.householderQ()).leftCols(rank);
  return Ur * sigma.asDiagonal() * Vr.transpose();
}

// What a pivoted QR is: R's diagonal does not increase; the product of its first k entries is the
// k-volume of the first k pivot columns (from an unpivoted QR of those columns: 1e-10 relative, the
// columns' condition is at most 1e4); each pivot is the remaining column farthest from the span of
// the ones before it. And R's diagonal is Eigen's to rounding, 1e-12 relative to |R_11| (where two
// columns tie to rounding either may be taken first, with the same diagonal).
TEST(PivotedQrDiagonal, EqualsEigensPivotedQrOnRandomMatrices) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 60; ++trial) {
    const int rows = 2 + trial % 13, cols = 1 + (trial * 7) % 17, rank = 1 + trial % std::min(rows, cols);
    const MatX A = randomMatrix(rng, rows, cols, rank, trial % 5);
    PivotedQrDiagonal mine;
    mine.compute(A);
    const Eigen::ColPivHouseholderQR<MatX> eigen(A);
    const int size = std::min(rows, cols);
    ASSERT_EQ(mine.diagonal().size(), size);
    const Scalar first = std::abs(eigen.matrixR()(0, 0));
    for (int j = 0; j < size; ++j) {
      EXPECT_NEAR(mine.diagonal()(j), std::abs(eigen.matrixR()(j, j)), 1e-12 * first) << "trial " << trial << " j " << j;
      if (j > 0) {
        EXPECT_LE(mine.diagonal()(j), mine.diagonal()(j - 1) * (1 + 1e-14));
      }
    }
    // the volume of the first k pivot columns (k up to the rank, where it is not rounding), and
    // the greedy choice: no other column is farther from the span of the pivots before it
    for (int k = 1; k <= rank; ++k) {
      MatX Pk(rows, k);
      for (int j = 0; j < k; ++j) Pk.col(j) = A.col(mine.pivots()[j]);
      const Eigen::HouseholderQR<MatX> qr(Pk);
      const Scalar volume = std::abs(qr.matrixQR().diagonal().prod());
      EXPECT_NEAR(mine.diagonal().head(k).prod(), volume, 1e-10 * volume) << "trial " << trial << " k " << k;
      const MatX Q = MatX(qr.householderQ()).leftCols(k - 1);
      for (int c = 0; c < cols; ++c) {
        const VecX rest = A.col(c) - Q * (Q.transpose() * A.col(c));
        EXPECT_LE(rest.norm(), mine.diagonal()(k - 1) * (1 + 1e-10)) << "trial " << trial << " k " << k;
      }
    }
    // a permutation of the columns
    std::vector<int> sorted = mine.pivots();
    std::sort(sorted.begin(), sorted.end());
    for (int j = 0; j < cols; ++j) EXPECT_EQ(sorted[j], j);
  }
}

TEST(PivotedQrDiagonal, ZeroAndEmptyMatrices) {
  PivotedQrDiagonal qr;
  qr.compute(MatX::Zero(4, 3));
  EXPECT_EQ(qr.diagonal(), VecX::Zero(3));
  qr.compute(MatX(5, 0));
  EXPECT_EQ(qr.diagonal().size(), 0);
  EXPECT_TRUE(qr.pivots().empty());
}

// The singular watch's path (TangentFactorization::factorize) and the projection's (compute, with
// Eigen's QR and Q) give the same ratios |R_jj| / |R_11| and ranks on the scaled constraint matrices
// of random redundant mechanisms, planar and spatial (1e-12: rounding of a 60 x 60 QR at most).
TEST(PivotedQrDiagonal, TheWatchsRatiosAreTheProjectionsOnRedundantMechanisms) {
  std::mt19937 rng(17);
  for (const int dimension : {2, 3}) {
    for (int trial = 0; trial < 10; ++trial) {
      test::RandomMechanismOptions options;
      options.bodies = 3 + trial % 4;
      options.loop_closures = trial % 2;
      options.duplicate_joints = trial % 3;
      const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
      KinematicsWorkspace kin(model);
      evaluateConstraints(model, kin, test::stateOf(model));
      const ConstraintScaling scaling = constraintScaling(model);
      TangentFactorization watch, projection;
      watch.factorize(kin, scaling);
      projection.compute(kin, scaling, 0);
      const int size = static_cast<int>(std::min(watch.At.rows(), watch.At.cols()));
      for (int j = 0; j < size; ++j)
        EXPECT_NEAR(watch.diagonalRatio(j), projection.diagonalRatio(j), 1e-12) << dimension << "D trial " << trial;
      EXPECT_EQ(watch.rankAt(1e-8), projection.rankAt(1e-8)) << dimension << "D trial " << trial;
    }
  }
}

}  // namespace
}  // namespace loopdyn
