// Coordinate partitioning (paper 003): the reduced equations give the accelerations of the full
// ones, the three reaction schemes (35), (37), (38) agree, sets are switched by the projective
// criterion without disturbing the motion, and a singular start is refused.

#include "loopdyn/dynamics/formulations/partitioning.hpp"
#include "loopdyn/dynamics/formulations/elimination.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/dynamics/formulations/projection.hpp"

#include <gtest/gtest.h>

#include <ostream>

#include <cstdio>
#include <random>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

int genericRank(const Model& model, const State& x) {
  KinematicsWorkspace kin(model);
  return analyzeConstraints(model, kin, x, RankOptions{}).generic_rank;
}

Scalar relative(const VecX& a, const VecX& b) { return (a - b).norm() / std::max<Scalar>(1, b.norm()); }

/// Bundled regular models at their assembled states, and random mechanisms with loops and
/// redundant bearings at random assembled states with random velocities.
std::vector<std::pair<Model, State>> mechanisms() {
  std::vector<std::pair<Model, State>> out;
  for (const char* name : {"double_four_bar", "four_bar_planar", "four_bar_spatial", "mobile_robot",
                           "modified_double_four_bar", "modified_triple_four_bar", "modified_2x2_four_bar",
                           "redundant_pendulum", "spatial_parallelogram"}) {
    Model model = test::loadModel(name);
    State x = test::assembledInitialState(model);
    out.emplace_back(std::move(model), std::move(x));
  }
  std::mt19937 rng(11);
  std::normal_distribution<Scalar> normal;
  for (int trial = 0; trial < 8; ++trial) {
    test::RandomMechanismOptions options;
    options.loop_closures = 1;
    options.duplicate_joints = trial % 3;
    Model model = compile(test::randomMechanismSpec(trial % 2 == 0 ? 2 : 3, rng, options));
    State guess = test::stateOf(model);
    for (Eigen::Index i = 0; i < guess.v.size(); ++i) guess.v(i) = normal(rng);
    KinematicsWorkspace kin(model);
    State x = assemble(model, kin, guess).state;
    out.emplace_back(std::move(model), std::move(x));
  }
  return out;
}

// At a consistent state: v rebuilt from u = v_I is the state's v; the accelerations are the
// lagrange ones (both are the unique solution of the same equations); the reactions of schemes
// (35), (37) and (38) agree, (37)'s tangential part vanishes, and they are the elimination
// formulation's for the same eliminated rows (the same rows K). Tolerance 1e-8 relative: the
// factorisations differ and the matrices have condition numbers up to 1e4-1e5 (scaled).
TEST(Partitioning, SameAccelerationsAsLagrangeAndTheThreeReactionSchemesAgree) {
  for (const auto& [model, x] : mechanisms()) {
    SCOPED_TRACE(model.name());
    PartitioningFormulation partitioning(model, genericRank(model, x));
    DynamicsWorkspace ws(model), ws_l(model), ws_e(model);
    VecX u(partitioning.velocityStateSize(model)), du(u.size());
    ASSERT_TRUE((partitioning.start(model, ws, x, u)).empty());
    State xs = x;
    xs.v.setZero();
    ASSERT_TRUE((partitioning.evaluate(model, ws, xs, u, du, Evaluation{true, false})).empty());
    EXPECT_LT(relative(xs.v, x.v), 1e-10);

    ASSERT_TRUE((LagrangeFormulation(model).solve(model, ws_l, x)).empty());
    EXPECT_LT(relative(ws.a, ws_l.a), 1e-8);
    const FormulationData& run = partitioning.data(ws);
    const Partition& p = partitioning.partition(run);
    ASSERT_TRUE((EliminationFormulation(model, partitioning.eliminatedEquations(run)).solve(model, ws_e, x)).empty());
    EXPECT_LT(relative(ws.lambda, ws_e.lambda), 1e-8);

    const VecX by38 = partitionedReactions(model, ws, partitioning.equations(run), p, ReactionScheme::DependentRows);
    VecX tangential;
    const VecX by37 = partitionedReactions(model, ws, partitioning.equations(run), p, ReactionScheme::Augmented, &tangential);
    const VecX by35 = partitionedReactions(model, ws, partitioning.equations(run), p, ReactionScheme::InverseMass);
    EXPECT_LT(relative(by35, by38), 1e-8);
    EXPECT_LT(relative(by37, by38), 1e-8);
    EXPECT_LT(tangential.norm(), 1e-8 * std::max<Scalar>(1, by38.norm()));
    EXPECT_EQ(by38, ws.lambda);  // the simulation reports scheme (38)
  }
}

struct Recorded {
  SimulationResult result;
  std::vector<Scalar> t;
  std::vector<VecX> q;
};

Recorded runModel(const Model& model, Formulation& formulation, Scalar t_end, Scalar rtol) {
  const State x0 = test::assembledInitialState(model);
  const SimulationOptions options = test::accurateOptions(t_end, rtol, 0.01);
  Recorded run;
  run.result = simulate(model, formulation, x0, options, [&](const Sample& s, const DynamicsWorkspace&) {
    run.t.push_back(s.x.t);
    run.q.push_back(s.x.q);
  });
  return run;
}

Scalar relativeDrift(const SimulationResult& r) { return r.energy_drift_max / r.energy_scale; }

struct SwitchingCase {
  const char* name;
  Scalar t_end, rtol;
  Scalar motion_tolerance;  // max |q - q_lagrange| over 3 s (see the test)
};
/// (gtest prints the case by its model, not as bytes)
void PrintTo(const SwitchingCase& c, std::ostream* os) { *os << c.name; }

class PartitioningSwitching : public testing::TestWithParam<SwitchingCase> {};

// Sect. 5: along the motion (3 s; the spatial parallelogram up to its singular configuration at
// 2.64 s) the criterion switches the independent coordinates, each time to a set at least twice
// as good (kSwitchRatio); the motion is the lagrange one throughout (a switch rewrites u for the
// same velocities and restarts the integrator: 1e-6 at rtol 1e-10); keeping the initial set
// instead loses far more energy (it comes close to a singular choice) or fails. Energy: below
// 1e3 rtol, the local errors of about 1e3 steps.
TEST_P(PartitioningSwitching, SwitchesKeepTheMotionAndTheEnergy) {
  const Model model = test::loadModel(GetParam().name);
  const State x0 = test::assembledInitialState(model);
  const Scalar rtol = GetParam().rtol;
  const int rank = genericRank(model, x0);
  PartitioningFormulation switching(model, rank), fixed(model, rank, 0);
  LagrangeFormulation lagrange(model);
  const Scalar t_end = GetParam().t_end;
  const Recorded a = runModel(model, switching, t_end, rtol);
  const Recorded b = runModel(model, fixed, t_end, rtol);
  const Recorded c = runModel(model, lagrange, t_end, rtol);
  ASSERT_TRUE(a.result.ok && c.result.ok) << a.result.failure << c.result.failure;
  const std::vector<CoordinateSwitch>& switches = switching.switches(*a.result.formulation_data);
  ASSERT_GE(switches.size(), 2u);
  for (const CoordinateSwitch& s : switches) {
    EXPECT_LT(s.quality_from, kSwitchRatio * s.quality_to) << "t = " << s.t;
    EXPECT_GT(s.quality_to, 0.1) << "t = " << s.t;
  }
  ASSERT_EQ(a.q.size(), c.q.size());
  Scalar deviation = 0;
  for (std::size_t k = 0; k < a.q.size(); ++k) deviation = std::max(deviation, (a.q[k] - c.q[k]).norm());
  EXPECT_LT(deviation, GetParam().motion_tolerance);
  EXPECT_LT(relativeDrift(a.result), 1e3 * rtol);
  EXPECT_TRUE(!b.result.ok || relativeDrift(b.result) > 10 * relativeDrift(a.result));
  std::printf("%s: %zu switches; |q - q_lagrange| %.3g; energy drift %.3g (lagrange %.3g); initial set kept: %s %.3g\n",
              GetParam().name, switches.size(), deviation, relativeDrift(a.result), relativeDrift(c.result),
              b.result.ok ? "drift" : "failed", relativeDrift(b.result));
}

INSTANTIATE_TEST_SUITE_P(Models, PartitioningSwitching,
                         testing::Values(SwitchingCase{"four_bar_planar", 3, 1e-10, 1e-6},
                                         SwitchingCase{"four_bar_spatial", 3, 1e-10, 1e-6},
                                         SwitchingCase{"spatial_parallelogram", 2.5, 1e-10, 1e-6}),
                         [](const auto& info) { return std::string(info.param.name); });

// At a singular configuration of the mechanism every set is singular: partitioning stops at the
// double four-bar's first one, where the projection formulation records its first passage (the
// same watch; 1e-6 s: both search the same dense output to 1e-13 relative, the motions differ by
// the integration error).
TEST(Partitioning, StopsAtTheFirstSingularConfiguration) {
  const Model model = test::loadModel("double_four_bar");
  const State x0 = test::assembledInitialState(model);
  const int rank = genericRank(model, x0);
  PartitioningFormulation partitioning(model, rank);
  ProjectionFormulation projection(model, rank, true);
  const Recorded a = runModel(model, partitioning, 1, 1e-10);
  const Recorded b = runModel(model, projection, 1, 1e-10);
  ASSERT_FALSE(a.result.ok);
  ASSERT_TRUE(b.result.ok) << b.result.failure;
  ASSERT_FALSE(b.result.passages.empty());
  const Scalar t_singular = b.result.passages.front().t;
  EXPECT_EQ(a.result.status, RunStatus::SingularConfiguration) << a.result.failure;
  EXPECT_NEAR(a.result.failure_time, t_singular, 1e-4) << a.result.failure;
  const Scalar t_stop = a.t.back();
  EXPECT_LE(t_stop, t_singular);
  EXPECT_GT(t_stop, t_singular - 0.02);  // the last sample before it
  EXPECT_EQ(a.result.failure.reason, RunFailure::Reason::SingularConfiguration);
  EXPECT_EQ(a.result.failure.t, a.result.failure_time);
  ASSERT_TRUE(a.result.failure.near.has_value()) << a.result.failure;
  EXPECT_LT(a.result.failure.near->rank, a.result.failure.near->rank_regular);
  EXPECT_EQ(a.result.failure.formulation, "partitioning");
}

// No set of independent coordinates exists at a singular configuration: refused with a reason.
TEST(Partitioning, RefusesASingularStart) {
  const Model model = test::loadModel("double_four_bar_singular");
  const State x = test::assembledInitialState(model);
  const Model regular = test::loadModel("double_four_bar");
  PartitioningFormulation partitioning(model, genericRank(regular, test::assembledInitialState(regular)));
  DynamicsWorkspace ws(model);
  VecX u(partitioning.velocityStateSize(model));
  EXPECT_EQ(partitioning.start(model, ws, x, u).kind, Problem::Kind::PartitioningSingularStart);
}

}  // namespace
}  // namespace loopdyn
