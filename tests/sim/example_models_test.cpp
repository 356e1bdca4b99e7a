// The examples beyond the papers (docs/models.md): each has the structure its header states,
// runs 2 s with the command line's defaults without a failed check, and runs with every
// formulation.

#include <gtest/gtest.h>

#include <ostream>

#include "loopdyn/loopdyn.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

struct Example {
  const char* name;
  int n, rank, redundancy, mobility;
};
/// (gtest prints the case by its model, not as bytes)
void PrintTo(const Example& c, std::ostream* os) { *os << c.name; }

class ExampleModels : public ::testing::TestWithParam<Example> {};

TEST_P(ExampleModels, HaveTheirStructureAndRunWithoutAFailedCheck) {
  const Example& e = GetParam();
  const Model model = loadModel(test::modelPath(e.name));
  const Analysis a = analyze(model);
  ASSERT_TRUE(a.assembly.converged) << a.assembly.message;
  EXPECT_EQ(a.assembly.iterations, 0) << "exactly assembled as written";
  EXPECT_EQ(a.rank.n, e.n);
  EXPECT_EQ(a.rank.rank, e.rank);
  EXPECT_EQ(a.rank.redundancy, e.redundancy);
  EXPECT_EQ(a.rank.n - a.rank.rank, e.mobility);
  EXPECT_FALSE(a.rank.singular);

  SimulationRequest request;
  request.t_end = 2;
  const Trajectory run = simulateModel(model, request);
  ASSERT_TRUE(run.result.ok) << run.result.failure;
  // the energy balance at the default rtol 1e-8 (its own check allows far more): 1e-6 of the scale
  EXPECT_LT(run.result.energy_drift_max, 1e-6 * run.result.energy_scale);
  EXPECT_EQ(run.values.rows(), 201);
}

TEST_P(ExampleModels, RunWithEveryFormulation) {
  // the fully driven ones (no freedom: an empty tangent basis) crashed projection before
  const Model model = loadModel(test::modelPath(GetParam().name));
  for (const char* method : {"lagrange", "elimination", "partitioning", "projection"}) {
    SimulationRequest request;
    request.t_end = 1;
    request.method = method;
    const Trajectory run = simulateModel(model, request);
    EXPECT_TRUE(run.result.ok) << method << ": " << run.result.failure;
    EXPECT_EQ(run.formulation, method);
    EXPECT_LT(run.result.energy_drift_max, 1e-6 * run.result.energy_scale) << method;
  }
}

INSTANTIATE_TEST_SUITE_P(BeyondThePapers, ExampleModels,
                         ::testing::Values(Example{"slider_crank", 9, 8, 0, 1}, Example{"five_bar", 12, 12, 0, 0},
                                           Example{"rssr", 18, 16, 0, 2}, Example{"bricard", 30, 29, 1, 1}, Example{"three_rpr", 21, 21, 0, 0},
                                           Example{"stewart_platform", 78, 78, 0, 0},
                                           Example{"knife_edge_car", 9, 8, 2, 1},
                                           Example{"parallelogram_lift", 12, 11, 1, 1},
                                           Example{"parallelogram_lift_two_motors", 12, 12, 2, 0},
                                           Example{"jansen_linkage", 21, 21, 0, 0}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace loopdyn
