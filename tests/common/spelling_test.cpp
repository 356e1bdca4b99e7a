#include "loopdyn/common/spelling.hpp"

#include <gtest/gtest.h>

namespace loopdyn {
namespace {

TEST(Spelling, EditDistanceCountsInsertionsDeletionsSubstitutions) {
  EXPECT_EQ(editDistance("mass", "mass"), 0u);
  EXPECT_EQ(editDistance("mas", "mass"), 1u);
  EXPECT_EQ(editDistance("inertai", "inertia"), 2u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
}

TEST(Spelling, SuggestsOnlyCloseCandidates) {
  EXPECT_EQ(didYouMean("revolut", {"revolute", "prismatic"}), " (did you mean 'revolute'?)");
  EXPECT_EQ(didYouMean("zzzzzz", {"revolute", "prismatic"}), "");
}

TEST(Spelling, NoHintWhenTheClosestCandidatesTie) {
  // 'X' is one edit from every one-letter joint name: any single guess would be arbitrary
  EXPECT_EQ(didYouMean("X", {"A", "B", "C"}), "");
  EXPECT_EQ(didYouMean("Q", {"O", "O4"}), " (did you mean 'O'?)");
}

}  // namespace
}  // namespace loopdyn
