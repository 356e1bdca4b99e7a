// Joint-reaction uniqueness inside the DCA (issue 17; paper 000): the paper's example step by step,
// and the DCA's answer per pair against the absolute-coordinate analysis (independent code: a QR
// of the whole constraint matrix) on every bundled model and on random mechanisms.

#include "loopdyn/dynamics/dca/dca_uniqueness.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>
#include <string>

#include <algorithm>

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/model/model.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

const DcaPairDecision& decisionOf(const Model& model, const DcaUniquenessReport& r, const std::string& pair) {
  return r.pairs[static_cast<std::size_t>(model.pairIndex(pair))];
}

// Paper 000, sect. 4: the spatial parallelogram with the triple pendulum at theta = pi/12.
// G is 18 x 18 of rank 17 (eq. (54)); A, C, E, G non-unique and K, M unique at step 2 with all
// four tests agreeing (table 1); KM unique with unique components, ACEG and ACEGKM unique with
// non-unique components; the null space of G has zeros on K and M (eq. (55)); then B, D, F, H
// non-unique and L, N, Q unique at step 6, R unique at step 4, P unique at step 8 (Figs. 9-17).
TEST(DcaUniqueness, SpatialParallelogramFollowsPaper000StepByStep) {
  const Model model = test::loadModel("spatial_parallelogram");
  const State x = test::assembledInitialState(model);
  const DcaUniquenessReport r = analyzeReactionUniquenessDca(model, x);

  const DcaGroundConnection& g = r.ground;
  EXPECT_EQ(g.size, 18);
  ASSERT_EQ(g.ranks.size(), 4u);
  for (int rank : g.ranks) EXPECT_EQ(rank, 17);
  ASSERT_EQ(g.elements.size(), 6u);
  for (std::size_t i = 0; i < g.elements.size(); ++i) {
    const std::string& name = model.pairs()[static_cast<std::size_t>(g.pairs[i])].name;
    const bool expected = name == "K" || name == "M";
    EXPECT_EQ(g.elements[i].unique(), expected) << name;
    EXPECT_TRUE(g.elements[i].methodsAgree()) << name;
    // eq. (55): the null space's rows are zero exactly on K and M
    EXPECT_EQ(g.elements[i].componentsUnique(), expected) << name;
  }
  // decisions clear-cut: at least 4 decades from every threshold
  EXPECT_GT(g.smallest_margin, 4);
  std::map<std::string, const GroupUniqueness*> groups;
  for (const GroupUniqueness& group : g.groups) groups[group.group.name] = &group;
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_TRUE(groups["KM"]->resultant.unique());
  EXPECT_TRUE(groups["KM"]->resultant.componentsUnique());
  for (const char* name : {"ACEG", "ACEGKM"}) {
    EXPECT_TRUE(groups[name]->resultant.unique()) << name;
    EXPECT_FALSE(groups[name]->resultant.componentsUnique()) << name;
    EXPECT_TRUE(groups[name]->resultant.methodsAgree()) << name;
  }

  struct Expected {
    const char* pair;
    bool unique;
    DcaStep step;
  };
  const Expected expected[] = {
      {"A", false, DcaStep::GroundConnection},     {"C", false, DcaStep::GroundConnection},
      {"E", false, DcaStep::GroundConnection},     {"G", false, DcaStep::GroundConnection},
      {"K", true, DcaStep::GroundConnection},      {"M", true, DcaStep::GroundConnection},
      {"R", true, DcaStep::OneConnection},         {"B", false, DcaStep::BodyEquation},
      {"D", false, DcaStep::BodyEquation},         {"F", false, DcaStep::BodyEquation},
      {"H", false, DcaStep::BodyEquation},         {"L", true, DcaStep::BodyEquation},
      {"N", true, DcaStep::BodyEquation},          {"Q", true, DcaStep::BodyEquation},
      {"P", true, DcaStep::BodyEquationRepeated},
  };
  for (const Expected& e : expected) {
    const DcaPairDecision& d = decisionOf(model, r, e.pair);
    EXPECT_EQ(d.unique, e.unique) << e.pair;
    EXPECT_EQ(d.step, e.step) << e.pair << ": decided by " << dcaStepName(d.step);
  }
  EXPECT_EQ(decisionOf(model, r, "P").round, 2);
  EXPECT_TRUE(r.stepsComplete());
  EXPECT_TRUE(r.stepsAgreeWithNullSpace());
  EXPECT_EQ(r.redundancy, 1);
  EXPECT_TRUE(r.inner_redundancies.empty());
}

/// The DCA's answer per pair equals the absolute-coordinate analysis's; returns how many pairs
/// were compared.
int expectSameAnswers(const Model& model, const State& x, const std::string& label) {
  KinematicsWorkspace ws(model);
  const UniquenessReport absolute = analyzeReactionUniqueness(model, ws, x);
  const DcaUniquenessReport dca = analyzeReactionUniquenessDca(model, x);
  EXPECT_EQ(dca.redundancy, absolute.redundancy) << label;
  EXPECT_TRUE(dca.stepsAgreeWithNullSpace()) << label;
  int compared = 0;
  for (std::size_t p = 0; p < model.pairs().size(); ++p) {
    const DcaPairDecision& d = dca.pairs[p];
    const ElementUniqueness& a = absolute.pairs[p].reaction;
    EXPECT_EQ(d.unique, a.unique()) << label << ": pair " << model.pairs()[p].name << " (DCA: "
                                    << dcaStepName(d.step) << ", indicator " << d.null_space_indicator << ")";
    for (std::size_t k = 0; k < d.components.size(); ++k)
      EXPECT_EQ(d.components[k], a.methods.front().components[k].unique)
          << label << ": pair " << model.pairs()[p].name << " row " << k;
    ++compared;
  }
  return compared;
}

class DcaUniquenessOnModel : public ::testing::TestWithParam<std::string> {};

// Every bundled model at its assembled configuration: the same unique and non-unique pairs and
// multipliers as the absolute-coordinate analysis -- the *_singular ones at their singular
// configurations too (paper 000 asks for a regular one; the answer there holds at that point only,
// as the absolute analysis's does).
TEST_P(DcaUniquenessOnModel, DcaAnswersEqualTheAbsoluteAnalysis) {
  const Model model = test::loadModel(GetParam());
  const State x = test::assembledInitialState(model);
  EXPECT_GT(expectSameAnswers(model, x, GetParam()), 0);
}

INSTANTIATE_TEST_SUITE_P(
    BundledModels, DcaUniquenessOnModel,
    ::testing::Values("double_four_bar", "double_four_bar_singular", "five_bar", "four_bar_planar",
                      "four_bar_spatial", "jansen_linkage", "knife_edge_car", "mobile_robot", "modified_2x2_four_bar",
                      "modified_2x2_four_bar_singular", "modified_double_four_bar",
                      "modified_double_four_bar_singular", "modified_triple_four_bar",
                      "modified_triple_four_bar_singular", "paper003_four_bar", "parallelogram_lift",
                      "redundant_pendulum", "rssr", "slider_crank", "spatial_parallelogram", "stewart_platform",
                      "three_rpr", "three_rpr_singular"),
    [](const auto& info) { return info.param; });

/// Paper 000's four-bar O1-A-B-O2 with pin A lifted `delta` off the line of the other three pins
/// (../shared/reproducers/four_bar_near_flat.py): regular, `delta` from its flat singular pose.
Model nearFlatFourBar(Scalar delta) {
  std::string yaml = "dimension: 2\ngravity: [0, -9.81]\nground: {markers: [{name: o1, position: [0, 0]}, "
                     "{name: o2, position: [1.5, 0]}]}\nbodies:\n";
  const auto body = [&](const char* name, Vec3 p, Vec3 q) {
    const Vec3 c = 0.5 * (p + q);
    std::ostringstream os;
    os.precision(17);
    os << "  - {name: " << name << ", mass: 1, inertia: 0.1, position: [" << c.x() << ", " << c.y()
       << "], markers: [{name: p, position: [" << p.x() - c.x() << ", " << p.y() - c.y() << "]}, {name: q, position: ["
       << q.x() - c.x() << ", " << q.y() - c.y() << "]}]}\n";
    yaml += os.str();
  };
  const Vec3 O1(0, 0, 0), A(1, delta, 0), B(2, 0, 0), O2(1.5, 0, 0);
  body("crank", O1, A);
  body("coupler", A, B);
  body("rocker", B, O2);
  yaml += "joints:\n  - {name: J1, type: revolute, between: [ground.o1, crank.p]}\n"
          "  - {name: J2, type: revolute, between: [crank.q, coupler.p]}\n"
          "  - {name: J3, type: revolute, between: [coupler.q, rocker.p]}\n"
          "  - {name: J4, type: revolute, between: [rocker.q, ground.o2]}\n";
  return compile(io::parseModel(yaml, "near_flat.yaml"));
}

// G = J Phi J^T squares the conditioning of the rows: with the rank threshold on G, a four-bar
// 1e-6 off its flat pose (regular: rank 8, all unique, 3.1 decades of margin in absolute
// coordinates) was "rank 3 of 4, J1-J4 NON-UNIQUE" from 1e-9 to 1e-5 (issue 46). On G's square-root
// factor the routes agree wherever the absolute one decides with a decade of margin or more.
TEST(DcaUniqueness, NearAFlatPoseTheRoutesAgreeWhereTheAbsoluteOneIsSure) {
  for (const Scalar delta : {1e-8, 1e-7, 1e-6, 1e-5, 1e-3}) {
    const Model model = nearFlatFourBar(delta);
    const State x = test::stateOf(model);
    KinematicsWorkspace ws(model);
    ASSERT_GT(analyzeReactionUniqueness(model, ws, x).smallestMargin(), 1) << delta;
    EXPECT_EQ(expectSameAnswers(model, x, "delta " + std::to_string(delta)), 4);
    const DcaUniquenessReport dca = analyzeReactionUniquenessDca(model, x);
    EXPECT_EQ(dca.ground.ranks.front(), 4) << delta;
    EXPECT_GT(dca.ground.smallest_margin, 1) << delta;
  }
}

// A regular 27-body mechanism of a new user's (tests/data/reproducers/ladder27_relative_route.yaml):
// G 6 x 6 was "rank 5 at 0.39 decades", J1-J6 NON-UNIQUE, with a JSON that said unique: false
// and components_unique: true together. The absolute route: rank 70 = m, all unique, 4.3 decades.
TEST(DcaUniqueness, ALadderOfANewUserGetsTheAbsoluteAnswers) {
  const Model model = compile(io::readModelFile(std::string(LOOPDYN_TEST_DATA_DIR) + "/reproducers/ladder27_relative_route.yaml"));
  const State x = test::assembledInitialState(model);
  EXPECT_EQ(expectSameAnswers(model, x, "ladder27"), static_cast<int>(model.pairs().size()));
  const DcaUniquenessReport dca = analyzeReactionUniquenessDca(model, x);
  EXPECT_EQ(dca.ground.ranks.front(), 6);
  EXPECT_GT(dca.ground.smallest_margin, 2);
}

// Random mechanisms (trees with loop closures, duplicated bearings, knife edges; 2D and 3D): the
// same answers as the absolute analysis, pair by pair and multiplier by multiplier.
TEST(DcaUniqueness, RandomMechanismsGetTheAbsoluteAnalysisAnswers) {
  std::mt19937 rng(17);
  int mechanisms = 0, pairs = 0, non_unique = 0, by_steps = 0, by_null_space = 0, inner = 0;
  for (int trial = 0; trial < 220; ++trial) {
    test::RandomMechanismOptions options;
    const int dimension = trial % 2 == 0 ? 2 : 3;
    options.bodies = 2 + trial % 6;
    options.loop_closures = trial % 3;
    options.duplicate_joints = (trial / 3) % 3;
    options.knife_edges = dimension == 2 ? (trial / 5) % 2 : 0;
    const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
    const State x = test::stateOf(model);
    const std::string label = "trial " + std::to_string(trial);
    pairs += expectSameAnswers(model, x, label);
    const DcaUniquenessReport dca = analyzeReactionUniquenessDca(model, x);
    for (const DcaPairDecision& d : dca.pairs) (d.step == DcaStep::Open ? by_null_space : by_steps) += 1;
    inner += !dca.inner_redundancies.empty();
    KinematicsWorkspace ws(model);
    for (const PairUniqueness& p : analyzeReactionUniqueness(model, ws, x).pairs) non_unique += !p.reaction.unique();
    ++mechanisms;
  }
  EXPECT_EQ(mechanisms, 220);
  // the sample holds both answers in numbers
  EXPECT_GT(non_unique, 50);
  EXPECT_GT(pairs, 500);
  // both routes inside the DCA are exercised: the paper's steps and the null space beyond them
  EXPECT_GT(by_steps, 200);
  EXPECT_GT(by_null_space, 50);
  EXPECT_GT(inner, 10);
}

/// Same answer and same deciding step for every pair, matched by name.
void expectSameDecisions(const Model& a, const DcaUniquenessReport& ra, const Model& b, const DcaUniquenessReport& rb,
                         const std::string& label) {
  ASSERT_EQ(a.pairs().size(), b.pairs().size());
  for (std::size_t p = 0; p < a.pairs().size(); ++p) {
    const DcaPairDecision& db = decisionOf(b, rb, a.pairs()[p].name);
    EXPECT_EQ(ra.pairs[p].unique, db.unique) << label << ": " << a.pairs()[p].name;
    EXPECT_EQ(ra.pairs[p].components, db.components) << label << ": " << a.pairs()[p].name;
    EXPECT_EQ(ra.pairs[p].step, db.step) << label << ": " << a.pairs()[p].name;
  }
  EXPECT_EQ(ra.redundancy, rb.redundancy) << label;
}

/// The spec with its bodies and joints shuffled: mostly another spanning tree and another assembly
/// tree of the same mechanism.
ModelSpec reordered(ModelSpec spec, std::mt19937& rng) {
  std::shuffle(spec.bodies.begin(), spec.bodies.end(), rng);
  std::shuffle(spec.joints.begin(), spec.joints.end(), rng);
  return spec;
}

/// The assembly tree as the sets of bodies under each node, and the cut joints (the spanning tree's
/// complement), for telling two models' trees apart.
std::vector<std::vector<std::string>> treesOf(const Model& model) {
  std::vector<std::vector<std::string>> sets;
  std::vector<std::string> cut;
  for (int j : model.topology().cut_joints) cut.push_back(model.joints()[static_cast<std::size_t>(j)].name);
  std::sort(cut.begin(), cut.end());
  sets.push_back(cut);
  const Topology& t = model.topology();
  for (std::size_t n = 0; n < t.nodes.size(); ++n) {
    std::vector<std::string> names;
    std::vector<int> stack{static_cast<int>(n)};
    while (!stack.empty()) {
      const AssemblyNode& node = t.nodes[static_cast<std::size_t>(stack.back())];
      stack.pop_back();
      if (node.body != kGround) names.push_back(model.bodyName(node.body));
      else stack.insert(stack.end(), {node.first, node.second});
    }
    std::sort(names.begin(), names.end());
    sets.push_back(names);
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

// Invariance (issue 17): lengths in millimetres, and bodies and joints listed in reverse (another
// spanning tree, another assembly tree): the same answers from the same steps, on the paper's
// example and on random redundant mechanisms.
TEST(DcaUniqueness, AnswersDoNotDependOnUnitsOrOnTheTrees) {
  std::vector<ModelSpec> specs{io::readModelFile(test::modelPath("spatial_parallelogram")),
                               io::readModelFile(test::modelPath("modified_2x2_four_bar"))};
  std::mt19937 rng(1717);
  for (int trial = 0; trial < 30; ++trial) {
    test::RandomMechanismOptions options;
    options.bodies = 3 + trial % 5;
    options.loop_closures = 1 + trial % 2;
    options.duplicate_joints = trial % 3;
    specs.push_back(test::randomMechanismSpec(trial % 2 == 0 ? 2 : 3, rng, options));
  }
  int other_trees = 0;
  for (const ModelSpec& spec : specs) {
    const Model model = compile(spec);
    const State x = test::stateOf(model);
    const DcaUniquenessReport r = analyzeReactionUniquenessDca(model, x);

    const Model mm = compile(test::scaled(spec, 1000));
    expectSameDecisions(model, r, mm, analyzeReactionUniquenessDca(mm, test::stateOf(mm)), spec.name + " in mm");

    const Model other = compile(reordered(spec, rng));
    other_trees += treesOf(other) != treesOf(model);
    expectSameDecisions(model, r, other, analyzeReactionUniquenessDca(other, test::stateOf(other)),
                        spec.name + " reordered");
  }
  // the shuffles did change the spanning or the assembly tree, mostly (small mechanisms can keep theirs)
  EXPECT_GE(other_trees, 16) << "of " << specs.size();
}

}  // namespace
}  // namespace loopdyn
