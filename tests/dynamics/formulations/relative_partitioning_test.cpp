// Coordinate partitioning in joint coordinates (partitioning.hpp over JointCoordinateEquations, issue 15; paper 003,
// whose examples are written in relative coordinates): the lagrange accelerations on every
// regular bundled model, switches of the independent joint velocities that keep the motion, the
// paper's four-bar, and the stop at a singular configuration.

#include "loopdyn/dynamics/formulations/partitioning.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/formulations/projection.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "support/against_lagrange.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

int genericRank(const Model& model) {
  KinematicsWorkspace kin(model);
  return analyzeConstraints(model, kin, test::assembledInitialState(model), RankOptions{}).generic_rank;
}

TEST(RelativePartitioning, EveryBundledModelMovesAndLoadsItsJointsAsInAbsoluteCoordinates) {
  int models = 0;
  const int unique_pairs = test::expectLagrangeDynamicsOnEveryBundledModel(
      [](const Model& model) { return std::make_unique<PartitioningFormulation>(model, genericRank(model), kSwitchRatio, true); },
      models, true);
  EXPECT_GE(models, 21);
  EXPECT_GE(unique_pairs, 30);
}

struct Recorded {
  SimulationResult result;
  std::vector<VecX> q;
};

Recorded run(const Model& model, Formulation& formulation, Scalar t_end, Scalar rtol = 1e-10) {
  Recorded out;
  out.result = simulate(model, formulation, test::assembledInitialState(model), test::accurateOptions(t_end, rtol, 0.01),
                        [&](const Sample& s, const DynamicsWorkspace&) { out.q.push_back(s.x.q); });
  return out;
}

// Paper 003, sect. 5, in joint coordinates: where the chosen joint velocities degrade the set is
// switched to one at least twice as good, and the motion stays the lagrange one (in joint
// coordinates; a switch rewrites u for the same velocities and restarts the integrator: 1e-6 at
// rtol 1e-10, as the absolute test) with the energy kept to 1e3 rtol (the local errors of about
// 1e3 steps). The three bundled models whose joint coordinates switch within 3 s.
TEST(RelativePartitioning, SwitchesKeepTheMotionAndTheEnergy) {
  for (const char* name : {"rssr", "hdca_case2_eight_body_loop", "knife_edge_car"}) {
    const Model model = test::loadModel(name);
    PartitioningFormulation partitioning(model, genericRank(model), kSwitchRatio, true);
    LagrangeFormulation lagrange(model, true);
    const Recorded a = run(model, partitioning, 3), b = run(model, lagrange, 3);
    ASSERT_TRUE(a.result.ok) << name << ": " << a.result.failure;
    ASSERT_TRUE(b.result.ok) << name << ": " << b.result.failure;
    const std::vector<CoordinateSwitch>& switches = partitioning.switches(*a.result.formulation_data);
    ASSERT_GE(switches.size(), 1u) << name;
    for (const CoordinateSwitch& s : switches)
      EXPECT_LT(s.quality_from, kSwitchRatio * s.quality_to) << name << ", t = " << s.t;
    ASSERT_EQ(a.q.size(), b.q.size());
    Scalar deviation = 0;
    for (std::size_t k = 0; k < a.q.size(); ++k) deviation = std::max(deviation, (a.q[k] - b.q[k]).cwiseAbs().maxCoeff());
    const Scalar drift = a.result.energy_drift_max / a.result.energy_scale;
    std::printf("%-28s %zu switches, |q - q_lagrange| %.2g, energy drift %.2g\n", name, switches.size(),
                deviation, drift);
    EXPECT_LT(deviation, 1e-6) << name;
    EXPECT_LT(drift, 1e-7) << name;
  }
}

// Paper 003, Fig. 3: in joint coordinates the four-bar's crank angle stays an acceptable
// coordinate over whole turns (only the coupler-rocker angle alpha3 turns singular, where the
// crank meets the ground link), so the criterion picks it and never leaves it -- where the bodies'
// coordinates switch 16 times in the same 10 s.
TEST(RelativePartitioning, PaperFourBarKeepsItsCrankAngle) {
  const Model model = test::loadModel("paper003_four_bar");
  PartitioningFormulation relative(model, genericRank(model), kSwitchRatio, true);
  PartitioningFormulation absolute(model, genericRank(model));
  const Recorded r = run(model, relative, 10), a = run(model, absolute, 10);
  ASSERT_TRUE(r.result.ok) << r.result.failure;
  ASSERT_TRUE(a.result.ok) << a.result.failure;
  const FormulationData& relative_run = *r.result.formulation_data;
  EXPECT_TRUE(relative.switches(relative_run).empty());
  ASSERT_EQ(relative.partition(relative_run).independent.size(), 1u);
  const std::vector<std::string> names = jointCoordinateNames(model, 'v');
  EXPECT_EQ(names[static_cast<std::size_t>(relative.partition(relative_run).independent[0])], "O1.v1");
  EXPECT_GE(absolute.switches(*a.result.formulation_data).size(), 10u);
}

// At a singular configuration every set is singular: partitioning stops at the double four-bar's
// first one, where the projection formulation records its first passage (the same watch).
TEST(RelativePartitioning, StopsAtTheFirstSingularConfiguration) {
  const Model model = test::loadModel("double_four_bar");
  PartitioningFormulation partitioning(model, genericRank(model), kSwitchRatio, true);
  ProjectionFormulation projection(model, genericRank(model));
  const Recorded a = run(model, partitioning, 1), b = run(model, projection, 1);
  ASSERT_FALSE(a.result.ok);
  ASSERT_TRUE(b.result.ok) << b.result.failure;
  ASSERT_FALSE(b.result.passages.empty());
  EXPECT_EQ(a.result.status, RunStatus::SingularConfiguration) << a.result.failure;
  // (the watch's closest approaches in the two runs: 1e-6 s apart, their own resolution)
  EXPECT_NEAR(a.result.failure_time, b.result.passages.front().t, 1e-4) << a.result.failure;
  EXPECT_EQ(a.result.failure.reason, RunFailure::Reason::SingularConfiguration);
  EXPECT_EQ(a.result.failure.t, a.result.failure_time);
  ASSERT_TRUE(a.result.failure.near.has_value()) << a.result.failure;
  EXPECT_LT(a.result.failure.near->rank, a.result.failure.near->rank_regular);
}

}  // namespace
}  // namespace loopdyn
