// Reaction uniqueness: the papers' tables, physical components, groups, agreement of the four
// methods on random mechanisms, and invariance to units, ordering and body frames.

#include "loopdyn/analysis/reaction_uniqueness.hpp"

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <algorithm>
#include <map>
#include <optional>

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/spatial/rotation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// A pair's answers in a form that compares across models with different numbering.
struct PairAnswer {
  bool unique = false;
  bool components_unique = false;
  std::vector<std::string> unique_components;
  std::vector<ComponentStatus> global, joint;
  bool operator==(const PairAnswer&) const = default;
};

struct Analysis {
  Model model;
  UniquenessReport report;
  std::map<std::string, PairAnswer> pairs;
  std::map<std::string, std::pair<bool, bool>> groups;  // name -> (unique, components unique)
};

Analysis analyzeAt(Model model, const State& x, const UniquenessOptions& options = {}) {
  KinematicsWorkspace ws(model);
  Analysis a{std::move(model), {}, {}, {}};
  a.report = analyzeReactionUniqueness(a.model, ws, x, options);
  for (const PairUniqueness& p : a.report.pairs) {
    PairAnswer& answer = a.pairs[a.model.pairs()[static_cast<std::size_t>(p.pair)].name];
    answer.unique = p.reaction.unique();
    answer.components_unique = p.reaction.componentsUnique();
    answer.unique_components = equationNames(a.model, p.reaction.uniqueComponents());
    answer.global = p.global;
    answer.joint = p.joint;
  }
  for (const GroupUniqueness& g : a.report.groups)
    a.groups[g.group.name] = {g.resultant.unique(), g.resultant.componentsUnique()};
  return a;
}

Analysis analyzeAssembled(Model model, const UniquenessOptions& options = {}) {
  KinematicsWorkspace ws(model);
  const AssemblyResult assembled = assemble(model, ws, initialState(model));
  EXPECT_TRUE(assembled.converged) << assembled.message;
  return analyzeAt(std::move(model), assembled.state, options);
}

Analysis analyzeBundled(const std::string& name) { return analyzeAssembled(test::loadModel(name)); }

void expectUnique(const Analysis& a, const std::vector<std::string>& unique, const std::vector<std::string>& not_unique,
                  const char* source) {
  for (const std::string& name : unique) EXPECT_TRUE(a.pairs.at(name).unique) << name << " (" << source << ")";
  for (const std::string& name : not_unique) EXPECT_FALSE(a.pairs.at(name).unique) << name << " (" << source << ")";
  EXPECT_EQ(unique.size() + not_unique.size(), a.pairs.size()) << "every pair is named";
}

TEST(ReactionUniqueness, RobotMatchesPaper001Section42) {
  const Analysis a = analyzeBundled("mobile_robot");
  EXPECT_EQ(a.report.redundancy, 2);  // paper 001, eq. (36)
  expectUnique(a, {"A", "D", "E", "F", "G", "H", "steer", "W5"}, {"B", "C", "W1", "W2", "W3", "W4"},
               "paper 001, sect. 4.2");
  EXPECT_TRUE(a.report.methodsAgree());
  // a unique reaction of a pair with independent rows has unique multipliers
  EXPECT_TRUE(a.pairs.at("A").components_unique);
  EXPECT_TRUE(a.pairs.at("steer").components_unique);
  // the paper eliminates C's y-equation (its no. 6): that multiplier is one of the free ones
  EXPECT_EQ(a.pairs.at("C").unique_components, std::vector<std::string>{"C.x"});
  // all four wheels together carry the total ground load minus W5's: unique, members are not
  EXPECT_EQ(a.groups.at("robot_wheels"), std::make_pair(true, false));
}

// At straight steering B's and C's self-equilibrated forces happen to lie along the platform's y
// axis, so their Fx is unique there; steered (the driver left free) the wheel axes turn and Fx is
// not. Near the configuration on the motion: B and C non-unique in every force component, the
// unique pairs unchanged, every other answer as at x. The planar four-bar has nothing special.
TEST(ReactionUniqueness, NearTheMotionTheRobotsBAndCLoseTheirUniqueFx) {
  const Model model = test::loadModel("mobile_robot");
  KinematicsWorkspace ws(model);
  const State x = assemble(model, ws, initialState(model)).state;
  const UniquenessReport at = analyzeReactionUniqueness(model, ws, x);
  const UniquenessReport near = analyzeReactionUniquenessNear(model, ws, x);
  using S = ComponentStatus;
  for (std::size_t p = 0; p < model.pairs().size(); ++p) {
    const std::string& name = model.pairs()[p].name;
    EXPECT_EQ(near.pairs[p].reaction.unique(), at.pairs[p].reaction.unique()) << name;
    if (name == "B" || name == "C") {
      EXPECT_EQ(at.pairs[p].joint[0], S::Unique) << name;
      EXPECT_EQ(near.pairs[p].joint[0], S::NonUnique) << name;
      EXPECT_EQ(near.pairs[p].global[0], S::NonUnique) << name;
      EXPECT_TRUE(near.pairs[p].reaction.uniqueComponents().empty()) << name << ": B.x / C.x unique only here";
    } else {
      EXPECT_EQ(near.pairs[p].joint, at.pairs[p].joint) << name;
    }
  }
  const std::vector<std::string> only_here = uniqueOnlyHere(model, at, near);
  EXPECT_EQ(only_here, (std::vector<std::string>{"B Fx (world axes)", "B Fx (joint frame)", "C Fx (world axes)",
                                                  "C Fx (joint frame)"}));

  const Model four_bar = test::loadModel("four_bar_planar");
  KinematicsWorkspace ws4(four_bar);
  const State x4 = assemble(four_bar, ws4, initialState(four_bar)).state;
  EXPECT_TRUE(uniqueOnlyHere(four_bar, analyzeReactionUniqueness(four_bar, ws4, x4),
                             analyzeReactionUniquenessNear(four_bar, ws4, x4))
                  .empty());
}

TEST(ReactionUniqueness, ParallelogramMatchesPaper000Table1) {
  const Analysis a = analyzeBundled("spatial_parallelogram");
  EXPECT_EQ(a.report.redundancy, 1);
  expectUnique(a, {"K", "L", "M", "N", "P", "Q", "R"}, {"A", "B", "C", "D", "E", "F", "G", "H"},
               "paper 000, sect. 4");
  EXPECT_TRUE(a.report.methodsAgree());
  // paper 000, table 1 and eq. (55): groups on the ground
  EXPECT_EQ(a.groups.at("KM"), std::make_pair(true, true));
  EXPECT_EQ(a.groups.at("ACEG"), std::make_pair(true, false));
  EXPECT_EQ(a.groups.at("ACEGKM"), std::make_pair(true, false));
  for (const char* name : {"A", "C", "E", "G"}) EXPECT_TRUE(a.pairs.at(name).unique_components.empty()) << name;
  for (const char* name : {"K", "M"}) EXPECT_TRUE(a.pairs.at(name).components_unique) << name;
}

TEST(ReactionUniqueness, GroupOfNonUniqueMembersOnAMovingBody) {
  // the two lower rods' joints on the platform are not a complete set of the platform's
  // supports: their resultant is as non-unique as its members
  Model model = test::loadModel("spatial_parallelogram");
  Group group;
  ASSERT_TRUE(resolveGroup(model, GroupSpec{"BD", {"B", "D"}, "platform", {}}, group).empty());
  UniquenessOptions options;
  options.extra_groups = {group};
  const Analysis a = analyzeAssembled(std::move(model), options);
  EXPECT_EQ(a.groups.at("BD"), std::make_pair(false, false));
}

TEST(ReactionUniqueness, SpatialFourBarHasUniqueInPlaneForcesOnly) {
  // four parallel revolutes (axes z) modelled in 3D: the in-plane force is unique, the
  // out-of-plane force and the moments are not; the moment about the axis is never transmitted
  const Analysis a = analyzeBundled("four_bar_spatial");
  using S = ComponentStatus;
  const std::vector<S> expected{S::Unique, S::Unique, S::NonUnique, S::NonUnique, S::NonUnique, S::NotTransmitted};
  for (const auto& [name, answer] : a.pairs) {
    EXPECT_FALSE(answer.unique) << name;
    EXPECT_EQ(answer.global, expected) << name;
    EXPECT_EQ(answer.joint, expected) << name;  // joint axes are parallel to the world axes here
    EXPECT_EQ(answer.unique_components.size(), 2u) << name << ": the multipliers of the two in-plane equations";
  }
  EXPECT_TRUE(a.report.methodsAgree());
}

TEST(ReactionUniqueness, PlanarFourBarIsAllUnique) {
  const Analysis a = analyzeBundled("four_bar_planar");
  using S = ComponentStatus;
  for (const auto& [name, answer] : a.pairs) {
    EXPECT_TRUE(answer.unique && answer.components_unique) << name;
    EXPECT_EQ(answer.global, (std::vector<S>{S::Unique, S::Unique, S::NotTransmitted})) << name;
  }
}

TEST(ReactionUniqueness, SingularConfigurationMakesTheDoubleFourBarNonUnique) {
  // regular: C has full row rank; all bars horizontal: rank 12 of 14 and two free multiplier sets
  const Analysis regular = analyzeBundled("double_four_bar");
  for (const auto& [name, answer] : regular.pairs) EXPECT_TRUE(answer.components_unique) << name;
  const Analysis singular = analyzeBundled("double_four_bar_singular");
  EXPECT_EQ(singular.report.redundancy, 2);
  for (const auto& [name, answer] : singular.pairs) {
    EXPECT_FALSE(answer.unique) << name;
    // the vertical (y) multipliers stay unique: the self-equilibrated sets are horizontal forces
    EXPECT_EQ(answer.unique_components, std::vector<std::string>{name + ".y"}) << name;
  }
}

TEST(ReactionUniqueness, TreesAndNonRedundantLoopsAreAllUnique) {
  std::mt19937 rng(7);
  auto expectAllUnique = [](const Analysis& a) {
    EXPECT_EQ(a.report.redundancy, 0);
    for (const auto& [name, answer] : a.pairs) {
      EXPECT_TRUE(answer.unique && answer.components_unique) << name;
      EXPECT_TRUE(std::none_of(answer.global.begin(), answer.global.end(),
                               [](ComponentStatus s) { return s == ComponentStatus::NonUnique; }))
          << name;
    }
    EXPECT_TRUE(a.report.methodsAgree());
  };
  for (int trial = 0; trial < 10; ++trial) {
    for (int dimension : {2, 3}) {
      test::RandomMechanismOptions tree;
      tree.bodies = 3 + trial % 4;
      const Model model = compile(test::randomMechanismSpec(dimension, rng, tree));
      expectAllUnique(analyzeAt(model, test::stateOf(model)));
    }
  }
  // single loops: a planar four-bar of revolutes, and a spatial R-S-S-R loop
  test::RandomMechanismOptions planar;
  planar.bodies = 3;
  planar.serial = true;
  planar.tree_types = {JointType::Revolute};
  test::RandomMechanismOptions spatial = planar;
  spatial.tree_types = {JointType::Spherical};
  for (int trial = 0; trial < 5; ++trial) {
    for (auto [dimension, options] : {std::pair{2, planar}, std::pair{3, spatial}}) {
      ModelSpec spec = test::randomMechanismSpec(dimension, rng, options);
      // close the chain: the last body to ground with a revolute through a point of that body
      const BodySpec& last = spec.bodies.back();
      MarkerSpec on_body{"close", Vec3(0.3, 0.2, 0), Mat3::Identity(), {}};
      MarkerSpec on_ground{"close", last.position + last.orientation * on_body.position, last.orientation, {}};
      spec.bodies.back().markers.push_back(on_body);
      spec.ground_markers.push_back(on_ground);
      spec.joints.push_back({"close", JointType::Revolute, {"ground", "close", {}}, {last.name, "close", {}}, 0, {}, {}});
      if (dimension == 3) spec.joints.front().type = JointType::Revolute;  // R-S-S-R
      // the first tree joint's markers were made for its original type; revolute needs parallel z
      const Model model = compile(spec);
      const Analysis a = analyzeAt(model, test::stateOf(model));
      expectAllUnique(a);
    }
  }
}

/// Components of y that no self-equilibrated multiplier set changes, from the definition: two
/// multiplier vectors with the same C^T lambda, computed by a minimum-norm solve of their own.
TEST(ReactionUniqueness, FourMethodsAgreeOnRandomMechanismsAndMatchTheDefinition) {
  std::mt19937 rng(20261122);
  int with_redundancy = 0, non_unique_pairs = 0, checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int dimension = trial % 2 == 0 ? 2 : 3;
    test::RandomMechanismOptions options;
    options.bodies = 2 + trial % 5;
    options.loop_closures = trial % 3;
    options.duplicate_joints = trial % 4 == 3 ? 1 : 0;
    options.knife_edges = dimension == 2 ? trial % 3 : 0;
    const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
    KinematicsWorkspace ws(model);
    const State x = test::stateOf(model);
    const UniquenessReport r = analyzeReactionUniqueness(model, ws, x);
    ASSERT_TRUE(r.methodsAgree()) << "trial " << trial;
    if (r.redundancy > 0) ++with_redundancy;

    // the definition: lambda and lambda + z with C^T z = 0 give the same f = C^T lambda
    const ConstraintScaling s = model.scaling();
    const MatX C_s = s.row.asDiagonal() * ws.C.dense() * s.col.asDiagonal();
    Eigen::CompleteOrthogonalDecomposition<MatX> cod;
    cod.setThreshold(kRankThreshold);
    cod.compute(C_s);
    ASSERT_EQ(cod.rank(), r.rank) << "trial " << trial;
    // three random self-equilibrated multiplier sets: unit random vectors minus their part in
    // the range of C (zero, up to rounding, when C has full row rank)
    MatX Z(model.nc(), 3);
    for (int k = 0; k < 3; ++k) {
      const VecX w = VecX::Random(model.nc()).normalized();
      Z.col(k) = w - C_s * cod.solve(w);
    }
    for (const PairUniqueness& p : r.pairs) {
      const Pair& pair = model.pairs()[static_cast<std::size_t>(p.pair)];
      const auto C_X = C_s.middleRows(pair.row, pair.rows);
      const Scalar change = (C_X.transpose() * Z.middleRows(pair.row, pair.rows)).norm() / C_X.norm();
      // unique: the change is rounding (1e-14); non-unique: a random set changes it by 1e-3 or more
      if (p.reaction.unique()) {
        EXPECT_LT(change, 1e-10) << "trial " << trial << " pair " << pair.name;
      } else {
        EXPECT_GT(change, 1e-6) << "trial " << trial << " pair " << pair.name;
        ++non_unique_pairs;
      }
      for (int k = 0; k < pair.rows; ++k) {
        const Scalar row_change = Z.row(pair.row + k).norm();
        const bool unique = p.reaction.methods.front().components[static_cast<std::size_t>(k)].unique;
        EXPECT_EQ(unique, row_change < 1e-10) << "trial " << trial << " " << model.equations()[pair.row + k].name;
      }
      ++checked;
    }
  }
  // the sample must exercise both answers, or the agreement proves little
  EXPECT_GT(with_redundancy, 60);
  EXPECT_GT(non_unique_pairs, 100);
  EXPECT_GT(checked, 800);
}

/// Issue 22, defect 1: on large redundant planar mechanisms (n = 69) Eigen's BDCSVD returned a
/// wrong null-space basis for some row orders, and the SVD method called unique reactions non-unique.
/// A family of such mechanisms, each analysed in several joint orders: the four methods must agree
/// in every order, and every order must give the same answers.
TEST(ReactionUniqueness, LargeRedundantPlanarMechanismsGetOneAnswerFromEveryMethodInAnyJointOrder) {
  std::mt19937 rng(22);
  int with_redundancy = 0, non_unique = 0;
  for (int family = 0; family < 6; ++family) {
    test::RandomMechanismOptions options;
    options.bodies = 23;  // n = 69, as in the report
    options.loop_closures = 13 + family % 3;
    options.duplicate_joints = 4 + family % 2;
    options.knife_edges = 3;
    options.tree_types = {JointType::Revolute, JointType::Distance, JointType::Prismatic};
    const ModelSpec spec = test::randomMechanismSpec(2, rng, options);
    std::optional<Analysis> first;
    for (int order = 0; order < 6; ++order) {
      ModelSpec reordered = spec;
      if (order > 0) std::shuffle(reordered.joints.begin(), reordered.joints.end(), rng);
      const Model model = compile(reordered);
      Analysis a = analyzeAt(model, test::stateOf(model));
      ASSERT_TRUE(a.report.methodsAgree()) << "mechanism " << family << ", order " << order;
      if (!first) {
        if (a.report.redundancy > 0) ++with_redundancy;
        for (const auto& [name, answer] : a.pairs) non_unique += answer.unique ? 0 : 1;
        first = std::move(a);
      } else {
        EXPECT_EQ(a.pairs, first->pairs) << "mechanism " << family << ", order " << order;
      }
    }
  }
  // the family must be redundant and mix both answers, or agreement proves little
  EXPECT_EQ(with_redundancy, 6);
  EXPECT_GT(non_unique, 20);
}

/// Every body frame turned by a random rotation about its centre of mass (the mechanism is the same).
ModelSpec withTurnedBodyFrames(ModelSpec spec, std::mt19937& rng) {
  std::uniform_real_distribution<Scalar> u(-3, 3);
  for (BodySpec& b : spec.bodies) {
    const Mat3 T = spec.dimension == 2 ? rotationZ(u(rng)) : rotationZXZ(u(rng), u(rng), u(rng));  // new -> old
    b.orientation = b.orientation * T;
    b.inertia = T.transpose() * b.inertia * T;
    for (MarkerSpec& mk : b.markers) {
      mk.position = T.transpose() * mk.position;
      mk.orientation = T.transpose() * mk.orientation;
    }
  }
  return spec;
}

class Invariance : public ::testing::TestWithParam<const char*> {};

TEST_P(Invariance, SameAnswersInMillimetresInAnyJointOrderAndAnyBodyFrames) {
  const ModelSpec spec = io::readModelFile(test::modelPath(GetParam()));
  const Analysis reference = analyzeAssembled(compile(spec));

  const Analysis millimetres = analyzeAssembled(compile(test::scaled(spec, 1000)));
  EXPECT_EQ(millimetres.pairs, reference.pairs) << "x1000";
  EXPECT_EQ(millimetres.groups, reference.groups) << "x1000";

  std::mt19937 rng(3);
  ModelSpec reordered = spec;
  std::shuffle(reordered.joints.begin(), reordered.joints.end(), rng);
  std::reverse(reordered.drivers.begin(), reordered.drivers.end());
  const Analysis shuffled = analyzeAssembled(compile(reordered));
  EXPECT_EQ(shuffled.pairs, reference.pairs) << "joints shuffled";
  EXPECT_EQ(shuffled.groups, reference.groups) << "joints shuffled";

  const Analysis turned = analyzeAssembled(compile(withTurnedBodyFrames(spec, rng)));
  EXPECT_EQ(turned.pairs, reference.pairs) << "body frames turned";
  EXPECT_EQ(turned.groups, reference.groups) << "body frames turned";
}

INSTANTIATE_TEST_SUITE_P(BundledModels, Invariance,
                         ::testing::Values("mobile_robot", "spatial_parallelogram", "four_bar_spatial",
                                           "modified_triple_four_bar", "redundant_pendulum"),
                         [](const auto& info) { return std::string(info.param); });

TEST(ReactionUniqueness, SingleMethodGivesTheSameAnswers) {
  const Analysis all = analyzeBundled("mobile_robot");
  for (UniquenessMethod method :
       {UniquenessMethod::Rank, UniquenessMethod::QR, UniquenessMethod::SVD, UniquenessMethod::Nullspace}) {
    UniquenessOptions options;
    options.methods = {method};
    const Analysis one = analyzeAssembled(test::loadModel("mobile_robot"), options);
    EXPECT_EQ(one.pairs, all.pairs) << methodName(method);
    EXPECT_EQ(one.report.rank, 20) << methodName(method);
  }
}

}  // namespace
}  // namespace loopdyn
