// The four direct-sum tests on small matrices whose answers are known by hand.

#include "loopdyn/analysis/uniqueness_methods.hpp"

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <fstream>
#include <sstream>
#include <string>

namespace loopdyn {
namespace {

constexpr UniquenessMethod kMethods[] = {UniquenessMethod::Rank, UniquenessMethod::QR, UniquenessMethod::SVD,
                                         UniquenessMethod::Nullspace};

/// Three bodies on a line (coordinates x1, x2, x3); rows: x1 fixed twice (two parallel supports),
/// x2 - x1 = const, x3 - x2 = const. The two supports share one load: they are non-unique, the
/// links are unique. rank 3 of 4.
MatX twoSupports() {
  MatX C(4, 3);
  C << 1, 0, 0,   //
      2, 0, 0,    // the same support written with another scale
      -1, 1, 0,   //
      0, -1, 1;
  return C;
}

TEST(UniquenessMethods, ParallelSupportsShareTheirLoad) {
  for (UniquenessMethod method : kMethods) {
    const UniquenessTest test(method, twoSupports(), 1e-9, kUniquenessThreshold);
    EXPECT_EQ(test.rank(), 3) << methodName(method);
    EXPECT_FALSE(test.pair(0, 1).unique) << methodName(method);
    EXPECT_FALSE(test.pair(1, 1).unique) << methodName(method);
    EXPECT_TRUE(test.pair(2, 1).unique) << methodName(method);
    EXPECT_TRUE(test.pair(3, 1).unique) << methodName(method);
    // both supports together: their total is unique, their multipliers are not
    EXPECT_TRUE(test.pair(0, 2).unique) << methodName(method);
    EXPECT_FALSE(test.component(0).unique) << methodName(method);
    EXPECT_FALSE(test.component(1).unique) << methodName(method);
    EXPECT_TRUE(test.component(2).unique) << methodName(method);
    EXPECT_TRUE(test.component(3).unique) << methodName(method);
    // an element y = K lambda: lambda_1 + 2 lambda_2 is the total support force (unique);
    // lambda_1 alone is not
    MatX total = MatX::Zero(1, 4), first = MatX::Zero(1, 4);
    total << 1, 2, 0, 0;
    first << 1, 0, 0, 0;
    EXPECT_TRUE(test.element(total).unique) << methodName(method);
    EXPECT_FALSE(test.element(first).unique) << methodName(method);
    EXPECT_GT(test.element(first).margin, 5) << methodName(method) << ": a clear-cut case";
  }
}

/// A sparse matrix stored as "rows cols" and then "row col value" lines ('#' lines are comments).
MatX readMatrix(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::string line;
  MatX C;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream fields(line);
    if (C.size() == 0) {
      Eigen::Index rows = 0, cols = 0;
      fields >> rows >> cols;
      C = MatX::Zero(rows, cols);
      continue;
    }
    Eigen::Index i = 0, j = 0;
    Scalar value = 0;
    fields >> i >> j >> value;
    C(i, j) = value;
  }
  return C;
}

/// Issue 22, defect 1: Eigen's BDCSVD gave a wrong null-space basis for this matrix, and the svd
/// method called unique multipliers non-unique with margins of 5 decades. Every method must give
/// the definition's answer: lambda_k is unique when no z with C^T z = 0 has z_k != 0, i.e. when
/// row k of an orthonormal null-space basis (here from a complete orthogonal decomposition, a
/// factorisation none of the methods uses) vanishes.
TEST(UniquenessMethods, LargeRankDeficientMatrixGetsTheDefinitionsAnswerFromEveryMethod) {
  const MatX C = readMatrix(std::string(LOOPDYN_TEST_DATA_DIR) + "/matrices/bdcsvd_wrong_null_basis.txt");
  ASSERT_EQ(C.rows(), 73);
  Eigen::CompleteOrthogonalDecomposition<MatX> cod(C.transpose());
  cod.setThreshold(1e-10);
  ASSERT_EQ(cod.rank(), 62);
  // null space of C^T: orthogonal complement of the range of C, from the COD's Q of C
  const Eigen::CompleteOrthogonalDecomposition<MatX> codC(C);
  const MatX N = MatX(codC.householderQ()).rightCols(C.rows() - 62);
  ASSERT_LT((C.transpose() * N).norm() / C.norm(), 1e-13);
  int unique = 0;
  for (UniquenessMethod method : kMethods) {
    const UniquenessTest test(method, C, 1e-10, kUniquenessThreshold);
    EXPECT_EQ(test.rank(), 62) << methodName(method);
    for (int row = 0; row < C.rows(); ++row) {
      // rounding leaves 1e-15 in the rows of unique multipliers; a free one's row is O(0.1)
      const bool expected = N.row(row).norm() < 1e-10;
      const Decision d = test.component(row);
      EXPECT_EQ(d.unique, expected) << methodName(method) << ", row " << row << ": indicator " << d.indicator;
      EXPECT_GT(d.margin, 3) << methodName(method) << ", row " << row;
      unique += expected ? 1 : 0;
    }
  }
  // the matrix mixes both answers (checked once per method)
  EXPECT_GT(unique, 4 * 10);
  EXPECT_LT(unique, 4 * 73);
}

TEST(UniquenessMethods, FullRowRankMakesEverythingUnique) {
  const MatX C = MatX::Identity(3, 5) + 0.1 * MatX::Ones(3, 5);
  for (UniquenessMethod method : kMethods) {
    const UniquenessTest test(method, C, 1e-9, kUniquenessThreshold);
    EXPECT_EQ(test.rank(), 3);
    for (int row = 0; row < 3; ++row) {
      EXPECT_TRUE(test.pair(row, 1).unique) << methodName(method);
      EXPECT_TRUE(test.component(row).unique) << methodName(method);
    }
  }
}

TEST(UniquenessMethods, ZeroRowHasAFreeMultiplierButNoReaction) {
  // a degenerate equation (row of zeros): its multiplier is arbitrary, its reaction always zero
  MatX C(2, 2);
  C << 1, 0,  //
      0, 0;
  for (UniquenessMethod method : kMethods) {
    const UniquenessTest test(method, C, 1e-9, kUniquenessThreshold);
    EXPECT_TRUE(test.pair(1, 1).unique) << methodName(method);
    EXPECT_FALSE(test.component(1).unique) << methodName(method);
  }
}

TEST(UniquenessMethods, NearDependenceIsDecidedByTheThresholdAndShowsInTheMargin) {
  // the second support is tilted by eps: independent, but barely
  for (Scalar eps : {1e-3, 1e-12}) {
    MatX C(2, 2);
    C << 1, 0,  //
        1, eps;
    for (UniquenessMethod method : kMethods) {
      const UniquenessTest test(method, C, 1e-9, kUniquenessThreshold);
      EXPECT_EQ(test.pair(0, 1).unique, eps > 1e-9) << methodName(method) << " eps " << eps;
      const Scalar margin = test.pair(0, 1).margin;
      EXPECT_NEAR(margin, eps > 1e-9 ? 6 : 3, 1) << methodName(method) << " eps " << eps;
    }
  }
}

TEST(UniquenessMethods, NamesRoundTrip) {
  for (UniquenessMethod method : kMethods) EXPECT_EQ(methodFromName(methodName(method)), method);
  EXPECT_FALSE(methodFromName("lu").has_value());
}

}  // namespace
}  // namespace loopdyn
