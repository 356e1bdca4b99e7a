// Topology (issue 15): spanning tree, cut joints, relative coordinates and the binary assembly
// tree, checked against their definitions on every bundled model and on random mechanisms, the
// papers' models by hand, and the model file's `cut:` requests.

#include "loopdyn/model/topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/model/model.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

/// The bodies in assembly node k.
std::set<BodyIndex> bodiesOf(const Topology& t, int k) {
  const AssemblyNode& n = t.nodes[static_cast<std::size_t>(k)];
  if (n.body != kGround) return {n.body};
  std::set<BodyIndex> out = bodiesOf(t, n.first);
  const std::set<BodyIndex> more = bodiesOf(t, n.second);
  out.insert(more.begin(), more.end());
  return out;
}

BodyIndex end(const Joint& joint, int side) {
  if (joint.type == JointType::KnifeEdge) return side == 0 ? joint.first.body : kGround;
  return side == 0 ? joint.first.body : joint.second.body;
}

/// Every property of a topology that follows from its definition, for any model.
void expectConsistent(const Model& model, const std::string& what) {
  const Topology& t = model.topology();
  const int nb = model.nb();
  const auto joints = static_cast<int>(model.joints().size());
  ASSERT_EQ(static_cast<int>(t.roles.size()), joints) << what;
  ASSERT_EQ(static_cast<int>(t.links.size()), nb) << what;

  // spanning tree: one link per body, parents placed first, depths counted from ground
  const int tree = static_cast<int>(std::count(t.roles.begin(), t.roles.end(), JointRole::Tree));
  EXPECT_EQ(tree + t.floatingBodies(), nb) << what;
  EXPECT_EQ(static_cast<int>(t.cut_joints.size()), joints - tree) << what;
  ASSERT_EQ(static_cast<int>(t.order.size()), nb) << what;
  std::vector<bool> placed(static_cast<std::size_t>(nb), false);
  int nq = 0, nv = 0;
  for (BodyIndex b : t.order) {
    const TreeLink& link = t.links[static_cast<std::size_t>(b)];
    if (link.parent != kGround) {
      EXPECT_TRUE(placed[static_cast<std::size_t>(link.parent)]) << what << ": " << model.bodyName(b);
    }
    const int parent_depth = link.parent == kGround ? 0 : t.links[static_cast<std::size_t>(link.parent)].depth;
    EXPECT_EQ(link.depth, parent_depth + 1) << what;
    if (link.joint >= 0) {
      const Joint& j = model.joints()[static_cast<std::size_t>(link.joint)];
      EXPECT_EQ(t.roles[static_cast<std::size_t>(link.joint)], JointRole::Tree) << what;
      EXPECT_TRUE((j.first.body == b && j.second.body == link.parent) || (j.second.body == b && j.first.body == link.parent))
          << what << ": " << j.name;
    } else {
      EXPECT_EQ(link.parent, kGround) << what << ": a floating body hangs on ground";
    }
    EXPECT_EQ(link.q_offset, nq) << what;
    EXPECT_EQ(link.v_offset, nv) << what;
    nq += link.count.nq;
    nv += link.count.nv;
    placed[static_cast<std::size_t>(b)] = true;
  }
  EXPECT_EQ(t.nq, nq) << what;
  EXPECT_EQ(t.nv, nv) << what;
  // distance joints and knife edges are never tree joints
  for (int j = 0; j < joints; ++j)
    if (!jointCanBeTreeJoint(model.joints()[static_cast<std::size_t>(j)].type)) {
      EXPECT_EQ(t.roles[static_cast<std::size_t>(j)], JointRole::Constraint) << what;
    }

  // assembly tree: 2 nb - 1 nodes; every joint assembled once, at the lowest node holding both
  // its ends (or at the ground connection); handles exactly the joints leaving a node
  ASSERT_EQ(static_cast<int>(t.nodes.size()), 2 * nb - 1) << what;
  EXPECT_EQ(t.nodes[static_cast<std::size_t>(t.root)].parent, -1) << what;
  std::vector<int> assembled(static_cast<std::size_t>(joints), 0);
  for (int j : t.ground_joints) ++assembled[static_cast<std::size_t>(j)];
  for (int k = 0; k < static_cast<int>(t.nodes.size()); ++k) {
    const AssemblyNode& n = t.nodes[static_cast<std::size_t>(k)];
    const std::set<BodyIndex> inside = bodiesOf(t, k);
    EXPECT_EQ(static_cast<int>(inside.size()), n.size) << what;
    if (n.body == kGround) {
      const std::set<BodyIndex> a = bodiesOf(t, n.first), b = bodiesOf(t, n.second);
      for (int j : n.joints) {
        ++assembled[static_cast<std::size_t>(j)];
        const Joint& joint = model.joints()[static_cast<std::size_t>(j)];
        const BodyIndex e0 = end(joint, 0), e1 = end(joint, 1);
        EXPECT_TRUE((a.count(e0) && b.count(e1)) || (a.count(e1) && b.count(e0))) << what << ": " << joint.name;
      }
    }
    std::set<std::pair<int, int>> expected, found;
    for (int j = 0; j < joints; ++j) {
      const Joint& joint = model.joints()[static_cast<std::size_t>(j)];
      for (int side = 0; side < 2; ++side)
        if (inside.count(end(joint, side)) && !inside.count(end(joint, 1 - side))) expected.insert({j, side});
    }
    for (const Handle& h : n.handles) found.insert({h.joint, h.side});
    EXPECT_EQ(found, expected) << what << ", node " << k;
  }
  for (int j = 0; j < joints; ++j) EXPECT_EQ(assembled[static_cast<std::size_t>(j)], 1) << what << ": joint " << j;
}

TEST(Topology, EveryBundledModelHasAConsistentTreeAndAssembly) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(LOOPDYN_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const Model model = compile(io::readModelFile(entry.path().string()));
    expectConsistent(model, entry.path().stem().string());
    ++count;
  }
  EXPECT_GE(count, 15);
}

TEST(Topology, RandomMechanismsHaveConsistentTreesAndAssemblies) {
  std::mt19937 rng(15);
  for (int trial = 0; trial < 60; ++trial) {
    test::RandomMechanismOptions options;
    options.bodies = 2 + trial % 8;  // (the generator closes loops between two different bodies)
    options.loop_closures = trial % 4;
    options.duplicate_joints = trial % 3 == 2 ? 1 : 0;
    options.knife_edges = trial % 2 == 0 ? trial % 3 : 0;
    const int dimension = trial % 2 == 0 ? 2 : 3;
    const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
    expectConsistent(model, "trial " + std::to_string(trial));
  }
}

/// Names of the joints with a role, in file order.
std::vector<std::string> jointsWithRole(const Model& model, JointRole role) {
  std::vector<std::string> out;
  for (std::size_t j = 0; j < model.joints().size(); ++j)
    if (model.topology().roles[j] == role) out.push_back(model.joints()[j].name);
  return out;
}

TEST(Topology, PlanarFourBarIsCutAtTheCouplerRocker) {
  // breadth first from ground: crank on O2, rocker on O4, coupler on the crank; B closes the loop
  const Model model = test::loadModel("four_bar_planar");
  const Topology& t = model.topology();
  EXPECT_EQ(jointsWithRole(model, JointRole::Cut), std::vector<std::string>{"B"});
  EXPECT_EQ(t.loops, 1);
  EXPECT_EQ(t.links[static_cast<std::size_t>(model.bodyIndex("coupler"))].parent, model.bodyIndex("crank"));
  EXPECT_EQ(t.links[static_cast<std::size_t>(model.bodyIndex("rocker"))].parent, kGround);
  EXPECT_EQ(t.nv, 3);  // three revolute angles for one degree of freedom: 2 loop equations
  // assembly: a chain of three bodies through A and B, one at each of its two nodes; O2 and O4
  // join the complete assembly to ground
  std::vector<std::string> assembled;
  for (const AssemblyNode& n : t.nodes) {
    if (n.body != kGround) continue;
    ASSERT_EQ(n.joints.size(), 1u);
    assembled.push_back(model.joints()[static_cast<std::size_t>(n.joints[0])].name);
  }
  std::sort(assembled.begin(), assembled.end());
  EXPECT_EQ(assembled, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(t.ground_joints, (std::vector<int>{model.pairIndex("O2"), model.pairIndex("O4")}));
  EXPECT_EQ(t.assemblyHeight(), 3);
}

TEST(Topology, PapersModelsHaveTheirLoops) {
  // IFToMM double four-bar (paper 004): 5 bodies, 7 revolutes, 2 loops; paper 000's parallelogram
  // with its triple pendulum: 10 bodies, 15 spherical joints, 5 loops, six joints to ground
  const Model four_bar = test::loadModel("double_four_bar");
  EXPECT_EQ(four_bar.topology().loops, 2);
  EXPECT_EQ(four_bar.topology().cut_joints.size(), 2u);
  const Model parallelogram = test::loadModel("spatial_parallelogram");
  EXPECT_EQ(parallelogram.topology().loops, 5);
  EXPECT_EQ(parallelogram.topology().cut_joints.size(), 5u);
  EXPECT_EQ(parallelogram.topology().ground_joints.size(), 6u);
  EXPECT_EQ(parallelogram.topology().nv, 30);  // ten spherical joints of 3 freedoms
  EXPECT_EQ(parallelogram.topology().nq, 40);  // as unit quaternions
  // the platform has seven handles (paper 000, sect. 4): six rods and the pendulum
  const Topology& t = parallelogram.topology();
  const auto platform = std::find_if(t.nodes.begin(), t.nodes.end(), [&](const AssemblyNode& n) {
    return n.body == parallelogram.bodyIndex("platform");
  });
  ASSERT_NE(platform, t.nodes.end());
  EXPECT_EQ(platform->handles.size(), 7u);
}

TEST(Topology, RedundantPendulumFloatsOnAFreeJointHeldByTwoDistances) {
  const Model model = test::loadModel("redundant_pendulum");
  const Topology& t = model.topology();
  EXPECT_EQ(t.floatingBodies(), 1);
  EXPECT_EQ(t.loops, 1);  // two edges between ground and the bob
  EXPECT_EQ(jointsWithRole(model, JointRole::Constraint), (std::vector<std::string>{"rod1", "rod2"}));
  EXPECT_EQ(t.nv, 3);
}

TEST(Topology, ChainsGetLogarithmicAssemblyTrees) {
  // a chain of 2^k bodies is halved at every level: height k + 1
  for (int k : {1, 4, 7}) {
    test::RandomMechanismOptions chain;
    chain.bodies = 1 << k;
    chain.serial = true;
    chain.tree_types = {JointType::Revolute};
    std::mt19937 rng(static_cast<unsigned>(k));
    const Model model = compile(test::randomMechanismSpec(2, rng, chain));
    EXPECT_EQ(model.topology().assemblyHeight(), k + 1) << chain.bodies << " bodies";
  }
}

TEST(Topology, CutRequestsChooseTheTree) {
  ModelSpec spec = io::readModelFile(test::modelPath("four_bar_planar"));
  auto joint = [&](const char* name) -> JointSpec& {
    return *std::find_if(spec.joints.begin(), spec.joints.end(), [&](const JointSpec& j) { return j.name == name; });
  };
  joint("A").cut = true;
  Model model = compile(spec);
  EXPECT_EQ(jointsWithRole(model, JointRole::Cut), std::vector<std::string>{"A"});
  expectConsistent(model, "A cut");
  joint("A").cut.reset();
  joint("B").cut = false;  // into the tree: breadth first would cut it
  model = compile(spec);
  EXPECT_EQ(model.topology().roles[static_cast<std::size_t>(model.pairIndex("B"))], JointRole::Tree);
  EXPECT_EQ(model.topology().cut_joints.size(), 1u);
  expectConsistent(model, "B in the tree");
}

/// The message compile() gives for `spec`, or "" when it compiles.
std::string compileError(const ModelSpec& spec) {
  try {
    compile(spec);
  } catch (const ModelError& e) {
    return e.what();
  }
  return {};
}

TEST(Topology, RequestsThatCannotBeMetAreLocatedErrors) {
  const ModelSpec four_bar = io::readModelFile(test::modelPath("four_bar_planar"));
  {
    ModelSpec spec = four_bar;
    for (JointSpec& j : spec.joints) j.cut = false;  // a loop forced into the tree
    const std::string error = compileError(spec);
    EXPECT_NE(error.find("joint 'B': it is forced into the spanning tree (cut: false) but closes a loop"), std::string::npos)
        << error;
  }
  {
    ModelSpec spec = four_bar;
    spec.joints[0].cut = true;  // O2: the crank would still hang on A; no error
    EXPECT_EQ(compileError(spec), "");
    spec.joints[1].cut = true;  // and A: the crank hangs on nothing
    const std::string error = compileError(spec);
    EXPECT_NE(error.find("disconnects the tree: body 'crank'"), std::string::npos) << error;
  }
  {
    ModelSpec spec = io::readModelFile(test::modelPath("redundant_pendulum"));
    spec.joints[0].cut = false;
    const std::string error = compileError(spec);
    EXPECT_NE(error.find("joint 'rod1': a distance joint has no motion of its own"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace loopdyn
