// The Householder QR with column pivoting and Q kept as reflectors (pivoted_householder_qr.hpp),
// against Eigen's ColPivHouseholderQR and against what a pivoted QR must satisfy, on random
// full-rank and rank-deficient matrices; and what the projection formulation reads from it
// (tangent_space.hpp: Q1 p, the projection out of range Q1, R11^-T p) against the same products
// formed densely, on the constraint matrices of random redundant mechanisms.

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <algorithm>
#include <random>

#include "loopdyn/linalg/pivoted_householder_qr.hpp"
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
TEST(PivotedHouseholderQr, EqualsEigensPivotedQrOnRandomMatrices) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 60; ++trial) {
    const int rows = 2 + trial % 13, cols = 1 + (trial * 7) % 17, rank = 1 + trial % std::min(rows, cols);
    const MatX A = randomMatrix(rng, rows, cols, rank, trial % 5);
    PivotedHouseholderQr mine;
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

TEST(PivotedHouseholderQr, ZeroAndEmptyMatrices) {
  PivotedHouseholderQr qr;
  qr.compute(MatX::Zero(4, 3));
  EXPECT_EQ(qr.diagonal(), VecX::Zero(3));
  qr.compute(MatX(5, 0));
  EXPECT_EQ(qr.diagonal().size(), 0);
  EXPECT_TRUE(qr.pivots().empty());
}

// Q is orthogonal and A P = Q R (1e-13 relative to |A|: rounding of at most 16 reflectors), with
// R upper triangular; applying the first r reflectors to [p; 0] is Q's first r columns times p.
TEST(PivotedHouseholderQr, QTimesRIsThePivotedMatrix) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 40; ++trial) {
    const int rows = 2 + trial % 13, cols = 1 + (trial * 5) % 16, rank = 1 + trial % std::min(rows, cols);
    const MatX A = randomMatrix(rng, rows, cols, rank, trial % 4);
    PivotedHouseholderQr qr;
    qr.compute(A);
    const int size = std::min(rows, cols);
    MatX Q = MatX::Identity(rows, rows);
    qr.applyReflectors(Q, size);
    EXPECT_LT((Q.transpose() * Q - MatX::Identity(rows, rows)).norm(), 1e-13) << "trial " << trial;
    MatX R = MatX::Zero(rows, cols);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i <= std::min(j, rows - 1); ++i) R(i, j) = qr.r(i, j);
    MatX AP(rows, cols);
    for (int j = 0; j < cols; ++j) AP.col(j) = A.col(qr.pivots()[j]);
    EXPECT_LT((Q * R - AP).norm(), 1e-13 * A.norm()) << "trial " << trial;
    MatX QtA = A;
    qr.applyReflectorsTransposed(QtA, size);
    EXPECT_LT((QtA - Q.transpose() * A).norm(), 1e-13 * A.norm()) << "trial " << trial;
    for (int r = 0; r <= size; ++r) {
      const MatX p = MatX::NullaryExpr(r, 2, [&] { return std::normal_distribution<Scalar>()(rng); });
      MatX x = MatX::Zero(rows, 2);
      x.topRows(r) = p;
      qr.applyReflectors(x, r);
      EXPECT_LT((x - Q.leftCols(r) * p).norm(), 1e-13 * (1 + p.norm())) << "trial " << trial << " r " << r;
    }
  }
}

// TangentFactorization on the scaled constraint matrices of random redundant mechanisms, planar
// and spatial: the ratios |R_jj| / |R_11| are those of Eigen's pivoted QR; Q1 p is Q's first r
// columns times p; (I - Q1 Q1^T) X is the projection out of range A^T formed from Eigen's QR (range
// Q1 = range A^T whichever independent columns the pivoting takes where two tie to rounding);
// R11^T (R11^-T p) = p. 1e-12: rounding of a 60 x 60 QR at most.
TEST(PivotedHouseholderQr, TangentProductsEqualTheDenseOnesOnRedundantMechanisms) {
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
      const ConstraintScaling scaling = model.scaling();
      TangentFactorization tf;
      tf.compute(kin, scaling, 0);
      const int rank = tf.rankAt(1e-8);
      tf.compute(kin, scaling, rank);
      const Eigen::ColPivHouseholderQR<MatX> eigen(tf.At);
      const std::string where = std::to_string(dimension) + "D trial " + std::to_string(trial);
      const Scalar first = std::abs(eigen.matrixR()(0, 0));
      for (int j = 0; j < std::min(tf.At.rows(), tf.At.cols()); ++j)
        EXPECT_NEAR(tf.diagonalRatio(j), std::abs(eigen.matrixR()(j, j)) / first, 1e-12) << where;
      const MatX Q1_eigen = MatX(eigen.householderQ()).leftCols(rank);
      const MatX Q1 = tf.fullQ().leftCols(rank);
      const MatX R11 = MatX::NullaryExpr(rank, rank, [&](Eigen::Index i, Eigen::Index j) { return i <= j ? tf.qr.r(i, j) : 0.0; });
      const auto n = tf.At.rows();
      const MatX p = MatX::NullaryExpr(rank, 3, [&] { return std::normal_distribution<Scalar>()(rng); });
      MatX q1p;
      tf.q1Times(p, q1p);
      EXPECT_LT((q1p - Q1 * p).norm(), 1e-12 * (1 + p.norm())) << where;
      MatX X = MatX::NullaryExpr(n, 2, [&] { return std::normal_distribution<Scalar>()(rng); });
      const MatX PX = X - Q1_eigen * (Q1_eigen.transpose() * X);
      tf.projectOutQ1(X);
      EXPECT_LT((X - PX).norm(), 1e-12 * (1 + PX.norm())) << where;
      MatX s = p;
      tf.solveTransposedInPlace(s);
      EXPECT_LT((R11.transpose() * s - p).norm(), 1e-12 * (1 + p.norm()) * R11.norm()) << where;
    }
  }
}

}  // namespace
}  // namespace loopdyn
