// The strongest check loopdyn has: the same mechanism gives the same motion and the same unique
// reactions whichever formulation runs it. Every bundled model that starts at a regular
// configuration is simulated with lagrange (the reference), elimination, partitioning and
// projection, and compared sample by sample: elimination and partitioning up to the first
// singular configuration (where they stop by design, saying so), projection through every one.
// The models that start AT a singular configuration are checked for the formulations' clear
// refusals or their own start.

#include <gtest/gtest.h>

#include <ostream>

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/formulations/elimination.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/dynamics/formulations/partitioning.hpp"
#include "loopdyn/dynamics/formulations/projection.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

constexpr Scalar kRtol = 1e-10;
constexpr Scalar kSampleInterval = 0.02;

/// The wrench a pair exerts on its first body at its point (the quantity the uniqueness analysis
/// classifies): in world axes and in the joint frame.
struct PairWrench {
  Vec6 world, joint;
};

/// Per sample: time, positions, and every pair's wrench.
struct Recorded {
  std::vector<Scalar> t;
  std::vector<VecX> q;
  std::vector<std::vector<PairWrench>> wrench;  // [sample][pair]
  SimulationResult result;
};

Recorded record(const Model& model, Formulation& formulation, const State& x0, Scalar t_end) {
  const SimulationOptions options = test::accurateOptions(t_end, kRtol, kSampleInterval);
  Recorded out;
  out.result = simulate(model, formulation, x0, options, [&](const Sample& s, const DynamicsWorkspace&) {
    out.t.push_back(s.x.t);
    out.q.push_back(s.x.q);
    std::vector<PairWrench> wrenches;
    for (const PairReaction& reaction : s.reactions) {
      PairWrench w;
      w.world = reaction.on_body1;  // (on the first marker's body, as the uniqueness analysis reads it)
      w.joint = reaction.inJointAxes(w.world);
      wrenches.push_back(w);
    }
    out.wrench.push_back(std::move(wrenches));
  });
  return out;
}

struct CrossCase {
  const char* name;
  Scalar t_end;
  /// Elimination's choice of a non-unique reaction visibly differs from the least-norm one
  /// (redundant models; not the spatial four-bar, whose loads all lie in its plane: every
  /// formulation puts zero into the out-of-plane reactions the redundancy leaves open).
  bool non_unique_differ;
};
/// (gtest prints the case by its model, not as bytes)
void PrintTo(const CrossCase& c, std::ostream* os) { *os << c.name; }

class CrossFormulation : public testing::TestWithParam<CrossCase> {};

// Tolerances. Motion: four independent integrations at rtol 1e-10 (measured differences below
// 1e-8 over the windows); 1e-6 leaves room for the error growth of a chaotic-looking mechanism
// near its singular configuration, as in the other cross-checks. Unique reactions: relative to
// the largest value the pair's component takes over the window (1e-6 of it, plus 1e-6 of the
// largest reaction of the model for components that stay near zero); the reaction is an algebraic
// function of the state, so it inherits the motion's relative accuracy times the conditioning of
// the reaction problem (up to 1e2 for these models away from singular configurations).
// Non-unique reactions: in every redundant model at least one differs between elimination and
// lagrange by more than 1e-3 of its scale (the comparison can tell unique from non-unique).
TEST_P(CrossFormulation, SameMotionAndSameUniqueReactions) {
  const Model model = test::loadModel(GetParam().name);
  const State x0 = test::assembledInitialState(model);
  KinematicsWorkspace kin(model);
  const RankReport rank = analyzeConstraints(model, kin, x0, RankOptions{});
  ASSERT_FALSE(rank.singular) << "regular models only here";
  UniquenessOptions uniqueness_options;
  uniqueness_options.methods = {UniquenessMethod::QR};
  // what holds along the motion, not only at t = 0 (the robot's B.Fx is unique at straight
  // steering only)
  const UniquenessReport uniqueness = analyzeReactionUniquenessNear(model, kin, x0, uniqueness_options);

  const Scalar t_end = GetParam().t_end;
  LagrangeFormulation lagrange(model);
  EliminationFormulation elimination(model, rank.dependent_equations, true);
  PartitioningFormulation partitioning(model, rank.generic_rank);
  ProjectionFormulation projection(model, rank.generic_rank, true);
  const Recorded reference = record(model, lagrange, x0, t_end);
  ASSERT_TRUE(reference.result.ok) << reference.result.failure;
  struct Candidate {
    const char* name;
    Recorded run;
  };
  std::vector<Candidate> candidates{{"elimination", record(model, elimination, x0, t_end)},
                                    {"partitioning", record(model, partitioning, x0, t_end)},
                                    {"projection", record(model, projection, x0, t_end)}};
  ASSERT_TRUE(candidates[2].run.result.ok) << candidates[2].run.result.failure;

  // the windows: elimination and partitioning up to the first singular configuration less two
  // samples (and they may stop only there, saying so); projection over the whole run. Reactions
  // are not compared within two samples of a passage, where they grow without bound.
  const std::vector<SingularPassage>& passages = reference.result.passages;
  const Scalar first = passages.empty() ? t_end : passages.front().t - 2 * kSampleInterval;
  auto nearPassage = [&](Scalar t) {
    return std::any_of(passages.begin(), passages.end(),
                       [&](const SingularPassage& p) { return std::abs(t - p.t) < 2 * kSampleInterval; });
  };
  for (const Candidate& c : candidates) {
    if (c.run.result.ok) continue;
    EXPECT_EQ(c.run.result.status, RunStatus::SingularConfiguration) << c.name << ": " << c.run.result.failure;
    ASSERT_FALSE(passages.empty()) << c.name << " stopped where lagrange passed none";
    // (its samples end where the step across the singular configuration begins)
    EXPECT_GE(c.run.t.back(), passages.front().t - 0.1) << c.name << " stopped before the singular configuration";
  }
  if (model.nv() - rank.generic_rank == 1) {
    ASSERT_EQ(candidates[2].run.result.passages.size(), passages.size()) << "projection and lagrange pass as many";
    for (std::size_t k = 0; k < passages.size(); ++k)
      EXPECT_NEAR(candidates[2].run.result.passages[k].t, passages[k].t, 1e-6);
  }

  // reaction scales over the run, from the reference
  const std::span<const int> components = wrenchComponents(model.dimension());
  std::vector<PairWrench> scale(model.pairs().size(), PairWrench{Vec6::Zero(), Vec6::Zero()});
  Scalar largest = 0;
  for (std::size_t k = 0; k < reference.t.size(); ++k)
    if (!nearPassage(reference.t[k]))
      for (std::size_t p = 0; p < scale.size(); ++p) {
      scale[p].world = scale[p].world.cwiseMax(reference.wrench[k][p].world.cwiseAbs());
      scale[p].joint = scale[p].joint.cwiseMax(reference.wrench[k][p].joint.cwiseAbs());
      largest = std::max(largest, scale[p].world.maxCoeff());
    }

  // projection through the passages where the motion has one degree of freedom; with more, its
  // basis continued across a passage adds an error of about 1e-5 (measured 6e-5 on the spatial
  // parallelogram 0.4 s after its passage, docs/formulations.md): compared up to the first there
  const int dofs = model.nv() - rank.generic_rank;
  for (const Candidate& c : candidates) {
    const bool through = c.run.result.ok && (std::string(c.name) != "projection" || dofs == 1);
    const Scalar window = through ? t_end : std::min(first, c.run.t.back());
    Scalar motion = 0, unique_error = 0, non_unique_difference = 0;
    auto compare = [&](Scalar value, Scalar expected, Scalar size, ComponentStatus status) {
      const Scalar relative = std::abs(value - expected) / (size + 1e-6 * largest);
      if (status == ComponentStatus::Unique) unique_error = std::max(unique_error, relative);
      if (status == ComponentStatus::NonUnique) non_unique_difference = std::max(non_unique_difference, relative);
    };
    std::size_t compared = 0;
    for (std::size_t k = 0; k < std::min(c.run.t.size(), reference.t.size()) && reference.t[k] <= window; ++k) {
      ASSERT_DOUBLE_EQ(c.run.t[k], reference.t[k]);
      ++compared;
      motion = std::max(motion, (c.run.q[k] - reference.q[k]).cwiseAbs().maxCoeff());
      if (nearPassage(reference.t[k])) continue;
      for (std::size_t p = 0; p < scale.size(); ++p)
        for (std::size_t j = 0; j < components.size(); ++j) {
          const Eigen::Index row = components[j];
          const PairWrench &w = c.run.wrench[k][p], &expected = reference.wrench[k][p];
          compare(w.world(row), expected.world(row), scale[p].world(row), uniqueness.pairs[p].global[j]);
          compare(w.joint(row), expected.joint(row), scale[p].joint(row), uniqueness.pairs[p].joint[j]);
        }
    }
    EXPECT_GE(static_cast<Scalar>(compared) * kSampleInterval, std::min<Scalar>(window, 0.5)) << c.name;
    EXPECT_LT(motion, 1e-6) << c.name;
    EXPECT_LT(unique_error, 1e-6) << c.name;
    if (GetParam().non_unique_differ && std::string(c.name) == "elimination") {
      EXPECT_GT(non_unique_difference, 1e-3);
    }
    std::printf("%-24s %-12s window %.2f s, %zu passages  |q - q_lagrange| %.2g  unique reactions %.2g  non-unique %.2g%s\n",
                GetParam().name, c.name, window, c.run.result.passages.size(), motion, unique_error, non_unique_difference,
                c.run.result.ok ? "" : "  (stopped at the singular configuration)");
  }
}

INSTANTIATE_TEST_SUITE_P(BundledModels, CrossFormulation,
                         testing::Values(CrossCase{"double_four_bar", 2, false}, CrossCase{"four_bar_planar", 3, false},
                                         CrossCase{"four_bar_spatial", 3, false}, CrossCase{"mobile_robot", 3, true},
                                         CrossCase{"modified_double_four_bar", 2, true},
                                         CrossCase{"modified_triple_four_bar", 2, true},
                                         CrossCase{"modified_2x2_four_bar", 2, true},
                                         CrossCase{"paper003_four_bar", 3, false},
                                         CrossCase{"redundant_pendulum", 3, true},
                                         CrossCase{"spatial_parallelogram", 3, true}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace loopdyn
