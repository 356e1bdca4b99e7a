// A formulation is a const description and its run keeps what it changes in its own data
// (formulation.hpp, issue 47.3): one formulation object runs on two threads at once and each run
// is the run it is alone; a second run of the same object does not inherit the first's choices;
// what a run chose comes back with its result.

#include "loopdyn/dynamics/formulation.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/dca/dca.hpp"
#include "loopdyn/dynamics/dca/hdca.hpp"
#include "loopdyn/dynamics/formulations/partitioning.hpp"
#include "loopdyn/dynamics/formulations/projection.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

struct Samples {
  SimulationResult result;
  std::vector<VecX> q, lambda;
};

Samples run(const Model& model, const Formulation& formulation, const State& x0, Scalar t_end) {
  Samples out;
  out.result = simulate(model, formulation, x0, test::accurateOptions(t_end, 1e-9, 0.05),
                        [&](const Sample& s, const DynamicsWorkspace&) {
                          out.q.push_back(s.x.q);
                          out.lambda.push_back(s.lambda);
                        });
  return out;
}

int genericRank(const Model& model, const State& x0) {
  KinematicsWorkspace kin(model);
  return analyzeConstraints(model, kin, x0, RankOptions{}).generic_rank;
}

/// Bit for bit: the same arithmetic on the same numbers.
void expectSameRun(const Samples& a, const Samples& b) {
  ASSERT_TRUE(a.result.ok && b.result.ok) << a.result.failure << " / " << b.result.failure;
  ASSERT_EQ(a.q.size(), b.q.size());
  for (std::size_t k = 0; k < a.q.size(); ++k) {
    EXPECT_EQ(a.q[k], b.q[k]) << "sample " << k;
    EXPECT_EQ(a.lambda[k], b.lambda[k]) << "sample " << k;
  }
  EXPECT_EQ(a.result.statistics.steps, b.result.statistics.steps);
  EXPECT_EQ(a.result.passages.size(), b.result.passages.size());
}

// The double four-bar through its first singular configuration (0.71 s): projection carries a
// tangent basis and its rows K, the DCA its assembly's numbers, the HDCA whether u holds momenta
// -- each a run's own. Run alone, then twice at once on two threads from the one object: the same
// runs (before the split these lived in the object, and two runs at once wrote into each other).
TEST(FormulationData, OneFormulationRunsOnTwoThreadsAtOnce) {
  const Model model = test::loadModel("double_four_bar");
  const State x0 = test::assembledInitialState(model);
  const int rank = genericRank(model, x0);
  const ProjectionFormulation projection(model, rank);
  const DcaFormulation dca(model);
  const HdcaFormulation hdca(model);
  for (const Formulation* formulation : std::vector<const Formulation*>{&projection, &dca, &hdca}) {
    SCOPED_TRACE(formulation->name());
    const Samples alone = run(model, *formulation, x0, 0.8);
    ASSERT_EQ(alone.result.passages.size(), 1u);
    Samples first, second;
    std::thread other([&] { second = run(model, *formulation, x0, 0.8); });
    first = run(model, *formulation, x0, 0.8);
    other.join();
    expectSameRun(alone, first);
    expectSameRun(alone, second);
  }
}

// Coordinate partitioning switches its independent coordinates along the spatial parallelogram's
// motion; a second run of the same object starts from the criterion's choice at its own start
// (not from the first run's last set) and is the first run again. The switches and the summary
// come back with each result.
TEST(FormulationData, ARunStartsFromItsOwnChoicesAndReturnsThem) {
  const Model model = test::loadModel("spatial_parallelogram");
  const State x0 = test::assembledInitialState(model);
  const PartitioningFormulation partitioning(model, genericRank(model, x0));
  const Samples a = run(model, partitioning, x0, 2);
  const Samples b = run(model, partitioning, x0, 2);
  expectSameRun(a, b);
  ASSERT_TRUE(a.result.formulation_data && b.result.formulation_data);
  EXPECT_NE(a.result.formulation_data, b.result.formulation_data);
  const std::vector<CoordinateSwitch>& switches = partitioning.switches(*a.result.formulation_data);
  ASSERT_GE(switches.size(), 1u);
  const std::optional<Formulation::PartitionSummary> summary = partitioning.partitionSummary(*a.result.formulation_data);
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->switches, static_cast<int>(switches.size()));
  EXPECT_EQ(summary->independent_initial, switches.front().from);
  EXPECT_EQ(summary->independent_final, partitioning.partition(*a.result.formulation_data).independent);
  EXPECT_NE(summary->independent_initial, summary->independent_final);
}

// A workspace holds one formulation's data: another formulation given it makes its own there,
// and asking the first for its data then is a clear error, not another's numbers.
TEST(FormulationData, AWorkspaceHoldsOneFormulationsData) {
  const Model model = test::loadModel("double_four_bar");
  const State x0 = test::assembledInitialState(model);
  const int rank = genericRank(model, x0);
  const ProjectionFormulation first(model, rank), second(model, rank);
  DynamicsWorkspace ws(model);
  VecX u(first.velocityStateSize(model));
  ASSERT_TRUE(first.start(model, ws, x0, u).empty());
  EXPECT_EQ(first.basisResets(first.data(ws)), 0);
  ASSERT_TRUE(second.solve(model, ws, x0).empty());
  EXPECT_NO_THROW(second.data(ws));
  EXPECT_THROW(first.data(ws), InvalidArgument);
}

}  // namespace
}  // namespace loopdyn
