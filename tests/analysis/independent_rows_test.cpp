// The sparse route of the analyses and the assembly (analysis/independent_rows.hpp, issue 48)
// against the dense factorisations on the same models: the same ranks, redundancy, generic rank,
// singular flag, uniqueness decisions and component statuses, and the same assembled state.

#include "loopdyn/analysis/independent_rows.hpp"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/dynamics/dca/dca.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/loopdyn.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// Large models (kSparseRows rows or more): a ladder, random mechanisms in 2D (with loop closures
/// and knife edges) and 3D, and a redundant one, which the sparse route must hand to the dense.
std::vector<std::pair<std::string, Model>> largeModels() {
  std::vector<std::pair<std::string, Model>> out;
  out.emplace_back("ladder of 48 loops", compile(test::fourBarLadderSpec({48, true, false})));
  std::mt19937 rng(48);
  test::RandomMechanismOptions planar;
  planar.bodies = 130;
  planar.loop_closures = 6;
  planar.knife_edges = 3;
  out.emplace_back("random planar mechanism", compile(test::randomMechanismSpec(2, rng, planar)));
  test::RandomMechanismOptions spatial;
  spatial.bodies = 70;
  spatial.loop_closures = 4;
  out.emplace_back("random spatial mechanism", compile(test::randomMechanismSpec(3, rng, spatial)));
  test::RandomMechanismOptions redundant = planar;
  redundant.duplicate_joints = 2;
  out.emplace_back("redundant planar mechanism", compile(test::randomMechanismSpec(2, rng, redundant)));
  return out;
}

void expectSameElement(const ElementUniqueness& sparse, const ElementUniqueness& dense, const std::string& what) {
  ASSERT_EQ(sparse.methods.size(), dense.methods.size()) << what;
  for (std::size_t m = 0; m < dense.methods.size(); ++m) {
    EXPECT_EQ(sparse.methods[m].reaction.unique, dense.methods[m].reaction.unique) << what;
    // (the sparse margin reads sigma_min / sigma_max, at most |R_rr| / |R_11|: a lower bound, up
    // to the Lanczos ratio's accuracy)
    EXPECT_LE(sparse.methods[m].reaction.margin, dense.methods[m].reaction.margin + 1e-3) << what;
    ASSERT_EQ(sparse.methods[m].components.size(), dense.methods[m].components.size()) << what;
    for (std::size_t k = 0; k < dense.methods[m].components.size(); ++k)
      EXPECT_EQ(sparse.methods[m].components[k].unique, dense.methods[m].components[k].unique) << what;
  }
}

TEST(IndependentRows, TheSparseRouteDecidesAsTheDenseFactorisations) {
  for (const auto& [name, model] : largeModels()) {
    SCOPED_TRACE(name);
    ASSERT_GE(model.nc(), kSparseRows);
    KinematicsWorkspace ws(model);
    const AssemblyResult assembled = assemble(model, ws, initialState(model));
    ASSERT_TRUE(assembled.converged) << assembled.message;
    const State& x = assembled.state;
    RankOptions dense_rank;
    dense_rank.sparse_route = false;
    const RankReport sparse = analyzeConstraints(model, ws, x), dense = analyzeConstraints(model, ws, x, dense_rank);
    EXPECT_FALSE(dense.rows_certified_independent);
    // (certified exactly where the rows are independent; one random mechanism had dependent rows
    // in the clang sanitizer build and not in the gcc one -- not looked into --, the ladder's and
    // the redundant one's answers cannot differ)
    EXPECT_EQ(sparse.rows_certified_independent, dense.rank == model.nc()) << "sigma ratio " << sparse.singular_value_ratio;
    if (name.starts_with("ladder")) {
      EXPECT_TRUE(sparse.rows_certified_independent);
    }
    if (name.starts_with("redundant")) {
      EXPECT_FALSE(sparse.rows_certified_independent);
    }
    EXPECT_EQ(sparse.rank, dense.rank);
    EXPECT_EQ(sparse.rank_holonomic, dense.rank_holonomic);
    EXPECT_EQ(sparse.rank_nonholonomic, dense.rank_nonholonomic);
    EXPECT_EQ(sparse.redundancy, dense.redundancy);
    EXPECT_EQ(sparse.generic_rank, dense.generic_rank);
    EXPECT_EQ(sparse.singular, dense.singular);
    EXPECT_GT(sparse.generic_samples_used, 0);

    // (the qr test: on the sparse route every test answers alike; the dense rank test alone would
    // take a minute here, a QR per pair at every sampled configuration)
    UniquenessOptions qr, dense_options;
    qr.methods = dense_options.methods = {UniquenessMethod::QR};
    dense_options.sparse_route = false;
    const UniquenessReport u_sparse = analyzeReactionUniquenessNear(model, ws, x, qr);
    const UniquenessReport u_dense = analyzeReactionUniquenessNear(model, ws, x, dense_options, dense_rank);
    EXPECT_EQ(u_sparse.ranks, u_dense.ranks);
    // (the report says which route decided: no rank test ran on the sparse one)
    EXPECT_EQ(u_sparse.by_independent_rows, sparse.rows_certified_independent);
    EXPECT_FALSE(u_dense.by_independent_rows);
    ASSERT_EQ(u_sparse.pairs.size(), u_dense.pairs.size());
    for (std::size_t p = 0; p < u_dense.pairs.size(); ++p) {
      const std::string pair = model.pairs()[p].name;
      expectSameElement(u_sparse.pairs[p].reaction, u_dense.pairs[p].reaction, pair);
      EXPECT_EQ(u_sparse.pairs[p].global, u_dense.pairs[p].global) << pair;
      EXPECT_EQ(u_sparse.pairs[p].joint, u_dense.pairs[p].joint) << pair;
    }
    ASSERT_EQ(u_sparse.groups.size(), u_dense.groups.size());
    for (std::size_t g = 0; g < u_dense.groups.size(); ++g)
      expectSameElement(u_sparse.groups[g].resultant, u_dense.groups[g].resultant, u_dense.groups[g].group.name);
  }
}

// The assembly's sparse minimum-norm steps (linalg/sparse_minimum_norm.hpp) take the same Newton
// iterates as the dense complete orthogonal decomposition: from the ladder's positions and
// velocities disturbed, both land on the same state, to rounding.
TEST(IndependentRows, SparseAndDenseAssemblyLandOnTheSameState) {
  const Model model = compile(test::fourBarLadderSpec({48, true, false}));
  State guess = initialState(model);
  std::mt19937 rng(3);
  std::uniform_real_distribution<Scalar> noise(-0.01, 0.01);
  for (Eigen::Index k = 0; k < guess.q.size(); ++k) guess.q(k) += noise(rng);
  for (Eigen::Index k = 0; k < guess.v.size(); ++k) guess.v(k) += noise(rng);
  KinematicsWorkspace ws(model);
  AssemblyOptions dense;
  dense.sparse_route = false;
  const AssemblyResult a = assemble(model, ws, guess), b = assemble(model, ws, guess, dense);
  ASSERT_TRUE(a.converged) << a.message;
  ASSERT_TRUE(b.converged) << b.message;
  EXPECT_GT(a.iterations, 1);
  EXPECT_LT((a.state.q - b.state.q).norm(), 1e-10 * b.state.q.norm());
  EXPECT_LT((a.state.v - b.state.v).norm(), 1e-10 * b.state.v.norm());
}

/// The A02 ladder of `loops` loops as models/generators/ladder.py writes it.
std::string ladderYaml(int loops) {
  std::ostringstream y;
  y << "name: ladder\ndimension: 2\ngravity: [0, -9.81]\nground:\n  markers:\n";
  for (int i = 0; i <= loops; ++i) y << "    - {name: o" << i << ", position: [" << i << ", 0]}\n";
  y << "bodies:\n";
  const char* rod = "    mass: 1\n    inertia: 0.08333333333333333\n";
  for (int i = 0; i <= loops; ++i)
    y << "  - name: crank" << i << "\n" << rod << "    position: [" << i << ", 0.5]\n    angle: 1.5707963267948966\n"
      << (i == 0 ? "    velocity: {linear: [0.5, 0], angular: -1}\n" : "")
      << "    markers:\n      - {name: bottom, position: [-0.5, 0]}\n      - {name: top, position: [0.5, 0]}\n";
  for (int i = 0; i < loops; ++i)
    y << "  - name: coupler" << i << "\n" << rod << "    position: [" << i + 0.5 << ", 1]\n    angle: 0\n"
      << "    markers:\n      - {name: left, position: [-0.5, 0]}\n      - {name: right, position: [0.5, 0]}\n";
  y << "joints:\n";
  for (int i = 0; i <= loops; ++i)
    y << "  - {name: O" << i << ", type: revolute, between: [ground.o" << i << ", crank" << i << ".bottom]}\n";
  for (int i = 0; i < loops; ++i)
    y << "  - {name: L" << i << ", type: revolute, between: [crank" << i << ".top, coupler" << i << ".left]}\n"
      << "  - {name: R" << i << ", type: revolute, between: [crank" << i + 1 << ".top, coupler" << i << ".right]}\n";
  return y.str();
}

// Issue 48: a 20,001-body model (the ladder of 10,000 loops: n = 60,003, 60,002 equations; before,
// compile refused anything above 6000 and the start's dense analyses were O(n^3)) is read,
// assembled, analysed (rank, generic rank, uniqueness of every reaction) and simulated for a few
// DCA steps within the normal test suite, with the analyses on the sparse route and the motion
// the exact one: theta'' = -g cos(theta) (1.5 N + 0.5) / ((4 N + 1) / 3) at the start, where the
// cranks are vertical and turning at 1 rad/s (paper 004's ladder; issue 48's formula).
TEST(LargeModels, ATwentyThousandBodyLadderReadsAssemblesAnalysesAndSimulates) {
  const int loops = 10000;
  const Model model = modelFromYaml(ladderYaml(loops), "ladder.yaml");
  ASSERT_EQ(model.nb(), 2 * loops + 1);
  KinematicsWorkspace ws(model);
  const AssemblyResult assembled = assemble(model, ws, initialState(model));
  ASSERT_TRUE(assembled.converged) << assembled.message;
  const RankReport rank = analyzeConstraints(model, ws, assembled.state);
  EXPECT_TRUE(rank.rows_certified_independent);
  EXPECT_EQ(rank.generic_rank, model.nc());
  EXPECT_EQ(rank.mobility, 1);
  const UniquenessReport unique = analyzeReactionUniquenessNear(model, ws, assembled.state);
  for (const PairUniqueness& p : unique.pairs) ASSERT_TRUE(p.reaction.unique());

  DcaFormulation dca(model);
  SimulationOptions options;
  options.t_end = 0.003;
  options.sample_interval = 0.003;
  options.integrator = ode::Method::Rk4;
  options.ode.fixed_step = 0.001;
  options.generic_rank = rank.generic_rank;
  options.regular_ratio = rank.generic_ratio;
  options.multipliers = false;
  std::vector<State> samples;
  const SimulationResult run = simulate(model, dca, assembled.state, options,
                                        [&](const Sample& s, const DynamicsWorkspace&) { samples.push_back(s.x); });
  ASSERT_TRUE(run.ok) << run.failure;
  ASSERT_EQ(samples.size(), 2u);
  // crank 0 from vertical, turning at -1 rad/s: with c = (1.5 N + 0.5) / ((4 N + 1) / 3),
  // theta'' = -g c cos(theta) and its rate g c sin(theta) theta', so from theta = pi/2, theta' = -1:
  // theta(t) = pi/2 - t - g c t^3 / 6 + O(t^5) (the t^4 term vanishes there)
  const Scalar N = loops, t = samples[1].t, c = (1.5 * N + 0.5) / ((4 * N + 1) / 3), g = 9.81;
  EXPECT_NEAR(samples[1].q(2), M_PI / 2 - t - g * c * t * t * t / 6, 1e-10);
}

}  // namespace
}  // namespace loopdyn
