// The Maggi-Kane projection in joint coordinates (relative_projection.hpp, issue 15) against the
// absolute lagrange formulation: the same body accelerations and unique reactions on every bundled
// model that starts at a regular configuration (closed loops, redundant constraints, drivers, knife
// edges); the singular starts are simulated in tests/sim/relative_coordinates_test.cpp.

#include "loopdyn/dynamics/formulations/projection.hpp"

#include <gtest/gtest.h>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/formulations/projection.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "support/against_lagrange.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

int genericRank(const Model& model) {
  KinematicsWorkspace kin(model);
  const AssemblyResult assembled = assemble(model, kin, initialState(model));
  return analyzeConstraints(model, kin, assembled.state, RankOptions{}).generic_rank;
}

TEST(RelativeProjection, EveryBundledModelMovesAndLoadsItsJointsAsInAbsoluteCoordinates) {
  int models = 0;
  const int unique_pairs = test::expectLagrangeDynamicsOnEveryBundledModel(
      [](const Model& model) { return std::make_unique<ProjectionFormulation>(model, genericRank(model), true, true); },
      models, true);
  EXPECT_GE(models, 21);
  EXPECT_GE(unique_pairs, 30);
}

// A start AT a singular configuration (the bundled *_singular models whose initial accelerations
// are tangent to a branch, tests/dynamics/formulations/projection_test.cpp): the branch the absolute
// formulation finds, mapped to joint velocities, gives the same motion as absolute projection
// over 1 s at rtol 1e-10 (measured 7.6e-10 .. 3.1e-8 between the two integrations, bound 1e-6 as in
// the absolute test against lagrange) and the start is reported as an event. The 3-RPR platform
// is fully driven (no degree of freedom: an empty basis) and moves as in absolute coordinates.
TEST(RelativeProjection, StartsAtSingularConfigurationsOnTheBranchAbsoluteProjectionTakes) {
  for (const char* name : {"modified_double_four_bar_singular", "modified_triple_four_bar_singular",
                           "modified_2x2_four_bar_singular", "three_rpr_singular"}) {
    const Model model = test::loadModel(name);
    const State x0 = test::assembledInitialState(model);
    const int rank = genericRank(model);
    ProjectionFormulation absolute(model, rank);
    ProjectionFormulation relative(model, rank, true, true);
    std::vector<VecX> qa, qr;
    const SimulationOptions options = test::accurateOptions(1, 1e-10, 0.01);
    const SimulationResult a =
        simulate(model, absolute, x0, options, [&](const Sample& s, const DynamicsWorkspace&) { qa.push_back(s.x.q); });
    const SimulationResult r =
        simulate(model, relative, x0, options, [&](const Sample& s, const DynamicsWorkspace&) { qr.push_back(s.x.q); });
    ASSERT_TRUE(a.ok) << name << ": " << a.failure;
    ASSERT_TRUE(r.ok) << name << ": " << r.failure;
    ASSERT_FALSE(r.events.empty()) << name;
    EXPECT_EQ(r.events.front().kind, EventKind::SingularStart) << name;
    EXPECT_TRUE(r.events.front().joint_coordinates) << name;
    EXPECT_LT(r.events.front().rank, r.events.front().rank_regular) << name;
    for (const SingularPassage& p : r.passages) EXPECT_GT(p.t, 0.5) << name;  // not the start
    ASSERT_EQ(qa.size(), qr.size()) << name;
    Scalar difference = 0;
    for (std::size_t k = 0; k < qa.size(); ++k) difference = std::max(difference, (qa[k] - qr[k]).cwiseAbs().maxCoeff());
    std::printf("%-36s |q_relative - q_absolute| %.2g over 1 s\n", name, difference);
    EXPECT_LT(difference, 1e-6) << name;
  }
}

}  // namespace
}  // namespace loopdyn
