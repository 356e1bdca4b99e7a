// Lagrange's equations in relative coordinates (issue 15) against the absolute lagrange
// formulation on every bundled model: the same body accelerations and the same unique reactions,
// closed loops, redundant constraints, drivers, knife edges and singular configurations included.

#include "loopdyn/dynamics/formulations/lagrange.hpp"

#include <gtest/gtest.h>

#include "support/against_lagrange.hpp"

namespace loopdyn {
namespace {

TEST(RelativeLagrange, EveryBundledModelMovesAndLoadsItsJointsAsInAbsoluteCoordinates) {
  int models = 0;
  const int unique_pairs = test::expectLagrangeDynamicsOnEveryBundledModel(
      [](const Model& model) { return std::make_unique<LagrangeFormulation>(model, true); }, models);
  EXPECT_GE(models, 23);
  EXPECT_GE(unique_pairs, 30);  // 33 unique pairs among the bundled models
}

}  // namespace
}  // namespace loopdyn
