// The LDL^T of symmetric positive semidefinite matrices (pivoted_ldlt.hpp): with and without the
// first attempt in the given order. Where G's rows are independent that attempt is kept and solves
// G w = r; where they are not (dependent rows anywhere in the order, or a pivot ratio below the
// one asked for) it says so, and the pivoted factorisation of G filled again decides: the same
// factors, bit for bit, as without the attempt.

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <numeric>
#include <random>

#include "loopdyn/linalg/pivoted_ldlt.hpp"

namespace loopdyn {
namespace {

constexpr Scalar kThreshold = 1e-10;  // kinetic_gram.hpp's kGramPivotThreshold
constexpr Scalar kRatio = 1e-8;       // kinetic_gram.hpp's kRegularPivotRatio

/// G = A A^T for a random A (n x columns, entries in [-1, 1]): rank min(n, columns); made exactly
/// symmetric, as factorize asks (a product's two triangles can differ in rounding).
MatX gramOf(const MatX& A) {
  const MatX P = A * A.transpose();
  return 0.5 * (P + P.transpose());
}

MatX randomMatrix(std::mt19937& rng, int rows, int columns) {
  std::uniform_real_distribution<Scalar> u(-1, 1);
  MatX A(rows, columns);
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    for (Eigen::Index i = 0; i < A.rows(); ++i) A(i, j) = u(rng);
  return A;
}

/// The solution of G w = r from a factorisation of G: with regular_ratio > 0 first attempted in
/// the given order, and where that fails G filled again and factorised with pivoting (the kinetic
/// Gram matrix's protocol).
VecX solved(PivotedLdlt& ldlt, const MatX& G, const VecX& r, Scalar regular_ratio) {
  ldlt.matrix() = G;
  if (!(regular_ratio > 0 && ldlt.factorizeRegular(regular_ratio))) {
    ldlt.matrix() = G;
    ldlt.factorize(kThreshold);
  }
  VecX w = r;
  ldlt.solveInPlace(w);
  return w;
}

// Tolerance 1e-10 relative: these G have condition numbers below 1e5 (14 rows of 15 random
// columns), and a backward-stable solve then errs by at most 1e5 times rounding.
TEST(PivotedLdlt, IndependentRowsAreFactorisedInTheirOrder) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 1 + trial % 14;
    const MatX G = gramOf(randomMatrix(rng, n, n + 1));
    const VecX r = randomMatrix(rng, n, 1);
    PivotedLdlt ldlt;
    const VecX w = solved(ldlt, G, r, kRatio);
    EXPECT_TRUE(ldlt.regular()) << "n = " << n;
    EXPECT_EQ(ldlt.rank(), n);
    EXPECT_LE((G * w - r).norm(), 1e-10 * G.norm() * w.norm()) << "n = " << n;
    const VecX pivoted = solved(ldlt, G, r, 0);
    EXPECT_FALSE(ldlt.regular());
    EXPECT_LE((w - pivoted).norm(), 1e-10 * pivoted.norm()) << "n = " << n;
  }
}

/// The column-major positions i + j n (i >= j) of G = A A^T's entries that can be nonzero: rows
/// i and j of A share a nonzero column.
std::vector<Eigen::Index> gramPattern(const MatX& A) {
  std::vector<Eigen::Index> entries;
  const Eigen::Index n = A.rows();
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = j; i < n; ++i)
      if (((A.row(i).array() != 0) && (A.row(j).array() != 0)).any()) entries.push_back(i + j * n);
  return entries;
}

// Sparse G, as a kinetic Gram matrix is (rows on different bodies do not couple): the elimination
// in the rows' order, given G's pattern, scales and updates only the entries of L that pattern and
// its fill-in allow; it must solve G w = r like the dense pivoted factorisation, and give the same
// bits as the same elimination without a pattern (a zero entry updates nothing). A has rows of 2 x
// 3 nonzero columns (a joint's rows on its two bodies) on a chain of bodies, with the rows
// shuffled so that the zero pattern of L (fill-in included) is irregular. Tolerance as above.
// Dropping one of G's off-diagonal entries from the pattern must change the solution (the pattern
// is read).
TEST(PivotedLdlt, SparseRowsAreFactorisedLikeDenseOnes) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<Scalar> u(-1, 1);
  int changed_by_a_wrong_pattern = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const int bodies = 2 + trial % 6, n = 2 * (bodies - 1) + 1;
    MatX A = MatX::Zero(n, 3 * bodies);
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (int row = 0; row < n; ++row) {
      const int first = std::min(row / 2, bodies - 2);  // two rows per joint between bodies i, i + 1
      for (int column = 3 * first; column < 3 * first + 6; ++column) A(order[static_cast<std::size_t>(row)], column) = u(rng);
    }
    const MatX G = gramOf(A);
    const VecX r = randomMatrix(rng, n, 1);
    PivotedLdlt ldlt, without_pattern;
    std::vector<Eigen::Index> pattern = gramPattern(A);
    ldlt.setPattern(n, pattern);
    const VecX w = solved(ldlt, G, r, kRatio);
    EXPECT_TRUE(ldlt.regular()) << "trial " << trial;
    EXPECT_LE((G * w - r).norm(), 1e-10 * G.norm() * w.norm()) << "trial " << trial;
    EXPECT_EQ(w, solved(without_pattern, G, r, kRatio)) << "trial " << trial;
    const VecX pivoted = solved(ldlt, G, r, 0);
    EXPECT_LE((w - pivoted).norm(), 1e-10 * pivoted.norm()) << "trial " << trial;
    // (the pattern as given: off-diagonal entries are those with i != j)
    const auto off = std::find_if(pattern.begin(), pattern.end(), [n](Eigen::Index e) { return e % n != e / n; });
    if (off != pattern.end()) {
      pattern.erase(off);
      PivotedLdlt wrong;
      wrong.setPattern(n, pattern);
      if (solved(wrong, G, r, kRatio) != w) ++changed_by_a_wrong_pattern;
    }
  }
  EXPECT_EQ(changed_by_a_wrong_pattern, 20);
}

TEST(PivotedLdlt, DependentRowsLeaveTheDecisionToThePivotedFactorisation) {
  std::mt19937 rng(6);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 2 + trial % 13;
    // rank n - 1 or n - 2: the dependent rows fall anywhere in the given order
    MatX A = randomMatrix(rng, n, n + 1);
    const auto pick = [&] { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    const int dependent = pick();
    const auto another = [&](std::initializer_list<int> not_these) {
      for (;;)
        if (const int k = pick(); std::find(not_these.begin(), not_these.end(), k) == not_these.end()) return k;
    };
    if (n >= 4 && trial % 2) {  // a second dependent row, made first
      const int second = another({dependent});
      A.row(second) = 2 * A.row(another({dependent, second}));
    }
    const int a = another({dependent});
    A.row(dependent) = 0.5 * A.row(a);
    if (n >= 3) A.row(dependent) -= 0.25 * A.row(another({dependent, a}));
    const MatX G = gramOf(A);
    const VecX r = G * randomMatrix(rng, n, 1);  // in G's range
    PivotedLdlt attempted, pivoted;
    const VecX w = solved(attempted, G, r, kRatio);
    const VecX w_pivoted = solved(pivoted, G, r, 0);
    EXPECT_FALSE(attempted.regular()) << "n = " << n;
    EXPECT_LT(attempted.rank(), n);
    EXPECT_EQ(attempted.rank(), pivoted.rank());
    // the same factorisation of the same matrix, filled again where the attempt failed
    EXPECT_EQ(attempted.pivotRatio(), pivoted.pivotRatio()) << "n = " << n;
    EXPECT_EQ(w, w_pivoted) << "n = " << n;
    EXPECT_LE((G * w - r).norm(), 1e-9 * G.norm() * w.norm()) << "n = " << n;
    // G filled whole: the failed attempt restores it, and the pivoted factorisation follows at once
    PivotedLdlt restored;
    restored.matrix() = G;
    EXPECT_FALSE(restored.factorizeRegular(kRatio, true));
    EXPECT_EQ(restored.matrix(), G) << "n = " << n;
    restored.factorize(kThreshold);
    VecX w_restored = r;
    restored.solveInPlace(w_restored);
    EXPECT_EQ(w_restored, w_pivoted) << "n = " << n;
  }
}

TEST(PivotedLdlt, APivotRatioBelowTheOneAskedForIsNotKept) {
  // independent rows, two of them nearly parallel (1e-3 apart): a pivot near 1e-6 of the largest,
  // below a ratio of 1e-4 and above the rank threshold
  std::mt19937 rng(7);
  MatX A = randomMatrix(rng, 6, 7);
  A.row(4) = A.row(1) + 1e-3 * A.row(4);
  const MatX G = gramOf(A);
  const VecX r = randomMatrix(rng, 6, 1);
  PivotedLdlt attempted, pivoted;
  const VecX w = solved(attempted, G, r, 1e-4);
  const VecX w_pivoted = solved(pivoted, G, r, 0);
  EXPECT_FALSE(attempted.regular());
  EXPECT_EQ(attempted.rank(), 6);
  EXPECT_LT(attempted.pivotRatio(), 1e-4);
  EXPECT_EQ(w, w_pivoted);
  // and the same G with a ratio it meets is kept
  PivotedLdlt loose;
  solved(loose, G, r, 1e-9);
  EXPECT_TRUE(loose.regular());
}

}  // namespace
}  // namespace loopdyn
