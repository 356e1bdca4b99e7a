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

}  // namespace
}  // namespace loopdyn
