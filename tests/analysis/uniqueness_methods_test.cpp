// The four direct-sum tests on small matrices whose answers are known by hand.

#include "loopdyn/analysis/uniqueness_methods.hpp"

#include <gtest/gtest.h>

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
