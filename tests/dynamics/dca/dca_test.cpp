// The divide-and-conquer algorithm (issue 16) against the other formulations: open trees at random
// joint states (2D and 3D, every joint type, joints traversed both ways) against relative-
// coordinate lagrange; every bundled model at its assembled state (closed loops, redundant
// constraints, drivers, knife edges) against absolute lagrange: the same body and joint
// accelerations and the same unique reactions.

#include "loopdyn/dynamics/dca/dca.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <cmath>
#include <numbers>
#include <set>

#include "test_models.hpp"

#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "support/against_lagrange.hpp"

namespace loopdyn {
namespace {

using test::maxAbs;

// Random open trees: the DCA's body and joint accelerations equal relative-coordinate lagrange's
// (dense, J^T M J) to rounding, 1e-10 of the accelerations' size.
TEST(DivideAndConquer, OpenTreesAccelerateAsRelativeLagrange) {
  std::mt19937 rng(16);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Model model = test::randomTree(trial % 2 == 0 ? 2 : 3, 1 + trial % 9, trial % 4 == 1, rng);
    const TreeKinematics tree(model);
    State x;
    test::randomJointState(model, tree, rng, x.q_r, x.v_r);
    tree.absoluteState(x.q_r, x.v_r, 0, x);

    const LagrangeFormulation lagrange(model, true);
    const DcaFormulation dca(model);
    DynamicsWorkspace lws(model), dws(model);
    VecX du_l(tree.nv()), du_d(tree.nv());
    State xl = x, xd = x;
    ASSERT_TRUE((lagrange.evaluate(model, lws, xl, x.v_r, du_l, Evaluation{})).empty());
    ASSERT_TRUE((dca.evaluate(model, dws, xd, x.v_r, du_d, Evaluation{})).empty());
    EXPECT_LT(maxAbs(dws.a - lws.a), 1e-10 * (1 + maxAbs(lws.a))) << "trial " << trial;
    EXPECT_LT(maxAbs(du_d - du_l), 1e-10 * (1 + maxAbs(du_l))) << "trial " << trial;
    ++checked;
  }
  EXPECT_EQ(checked, 40);
}

// The benchmarks time the mechanisms their names say (issue 48): issue 16's spatial chain of four
// bodies has the joint accelerations (-0.285039504423, 6.015656418798, 1.113733158769,
// -8.533813001978) rad/s^2 at its benchmark state, as RBDL, Pinocchio and Simbody compute them
// (to 12 digits; the figures). Until 2026-11-28 the odd joints turned about -y: a mirrored
// chain with other numbers. Absolute lagrange (another formulation) must agree too.
TEST(DivideAndConquer, TheBenchmarkChainAcceleratesAsTheReferenceCodes) {
  const Model model = compile(test::spatialChainSpec(4));
  const TreeKinematics tree(model);
  State x = test::spatialChainState(tree);
  const DcaFormulation dca(model);
  DynamicsWorkspace ws(model);
  dca.forwardDynamics(model, ws, x, VecX());
  const std::array<Scalar, 4> reference{-0.285039504423, 6.015656418798, 1.113733158769, -8.533813001978};
  ASSERT_EQ(ws.a_r.size(), 4);
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(ws.a_r(j), reference[static_cast<std::size_t>(j)], 1e-11) << "joint " << j;
  // (absolute lagrange: the body accelerations the DCA's joint accelerations give)
  const LagrangeFormulation lagrange(model);
  DynamicsWorkspace lws(model);
  VecX du(model.nv());
  State xl = x;
  ASSERT_TRUE((lagrange.evaluate(model, lws, xl, x.v, du, Evaluation{})).empty());
  EXPECT_LT(maxAbs(lws.a - ws.a), 1e-10 * (1 + maxAbs(ws.a)));
}

// The benchmarks' ladder: every crank at angle theta from +x turns with theta'' = -g cos(theta)
// (1.5 N + 0.5) / ((4 N + 1) / 3) (issue 48; the couplers translate, so the kinetic energy is
// (4 N + 1) / 6 theta'^2 whatever theta, and no velocity term enters), at the benchmarks' upright
// pose (theta = pi / 2: 0) and tilted.
TEST(DivideAndConquer, TheBenchmarkLadderAcceleratesAsItsExactMotion) {
  for (const int loops : {1, 16}) {
    for (const Scalar theta : {std::numbers::pi / 2, 0.7}) {
      test::LadderOptions options;
      options.loops = loops;
      const ModelSpec spec = test::fourBarLadderSpecAt(options, theta);
      const Model model = compile(spec);
      const TreeKinematics tree(model);
      State x = test::assembledInitialState(model);
      tree.relativeState(x, x.q_r, x.v_r);
      tree.absoluteState(x.q_r, x.v_r, x.t, x);
      const DcaFormulation dca(model);
      DynamicsWorkspace ws(model);
      dca.forwardDynamics(model, ws, x, VecX());
      const Scalar N = loops, exact = -9.81 * std::cos(theta) * (1.5 * N + 0.5) / ((4 * N + 1) / 3);
      // crank 1's angular acceleration: its body's (the third coordinate in 2D)
      EXPECT_NEAR(ws.a(2), exact, 1e-10 * (1 + std::abs(exact))) << loops << " loops, theta " << theta;
    }
  }
}

// A planar double pendulum of two uniform rods (masses 1 and 2 kg, lengths 1 and 1.5 m, I = m l^2 /
// 12) against its closed-form equations of motion (Spong, Hutchinson & Vidyasagar, sect. 7.4), q1
// the first rod's angle from the x-axis, q2 the second's relative to the first, gravity -y:
//   M(q) qddot + c(q, qdot) + g(q) = 0,
//   M11 = I1 + I2 + m1 c1^2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2),  M12 = I2 + m2 (c2^2 + l1 c2 cos q2),
//   M22 = I2 + m2 c2^2,  c = h [-(2 q1dot q2dot + q2dot^2); q1dot^2] with h = m2 l1 c2 sin q2,
//   g1 = (m1 c1 + m2 l1) g cos q1 + m2 c2 g cos(q1 + q2),  g2 = m2 c2 g cos(q1 + q2),
// c_i = l_i / 2. At random states the DCA's joint accelerations equal the closed form's to 1e-12.
TEST(DivideAndConquer, DoublePendulumFollowsItsClosedFormEquations) {
  const Scalar m1 = 1, m2 = 2, l1 = 1, l2 = 1.5, g = 9.81;
  ModelSpec spec;
  spec.name = "double_pendulum";
  spec.dimension = 2;
  spec.gravity = Vec3(0, -g, 0);
  spec.ground_markers.push_back({"o", Vec3::Zero(), Mat3::Identity(), {}, 0});
  const auto rod = [](const std::string& name, Scalar m, Scalar l, Scalar x) {
    BodySpec body;
    body.name = name;
    body.mass = m;
    body.inertia = Mat3::Identity() * (m * l * l / 12);
    body.position = Vec3(x, 0, 0);
    body.markers.push_back({"a", Vec3(-l / 2, 0, 0), Mat3::Identity(), {}, 0});
    body.markers.push_back({"b", Vec3(l / 2, 0, 0), Mat3::Identity(), {}, 0});
    return body;
  };
  spec.bodies = {rod("rod1", m1, l1, l1 / 2), rod("rod2", m2, l2, l1 + l2 / 2)};
  JointSpec shoulder, elbow;
  shoulder.name = "shoulder";
  shoulder.first = {"ground", "o", {}};
  shoulder.second = {"rod1", "a", {}};
  elbow.name = "elbow";
  elbow.first = {"rod1", "b", {}};
  elbow.second = {"rod2", "a", {}};
  spec.joints = {shoulder, elbow};
  const Model model = compile(spec);
  const DcaFormulation dca(model);
  ASSERT_EQ(dca.tree().nv(), 2);

  std::mt19937 rng(2);
  std::uniform_real_distribution<Scalar> u(-3, 3);
  const Scalar c1 = l1 / 2, c2 = l2 / 2, I1 = m1 * l1 * l1 / 12, I2 = m2 * l2 * l2 / 12;
  for (int trial = 0; trial < 20; ++trial) {
    State x;
    x.q_r = Vec2(u(rng), u(rng));
    x.v_r = Vec2(u(rng), u(rng));
    dca.tree().absoluteState(x.q_r, x.v_r, 0, x);
    DynamicsWorkspace ws(model);
    VecX du(2);
    ASSERT_TRUE((dca.evaluate(model, ws, x, x.v_r, du, Evaluation{})).empty());

    const Scalar q1 = x.q_r(0), q2 = x.q_r(1), w1 = x.v_r(0), w2 = x.v_r(1);
    Eigen::Matrix2d M;
    M(0, 0) = I1 + I2 + m1 * c1 * c1 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * std::cos(q2));
    M(0, 1) = M(1, 0) = I2 + m2 * (c2 * c2 + l1 * c2 * std::cos(q2));
    M(1, 1) = I2 + m2 * c2 * c2;
    const Scalar h = m2 * l1 * c2 * std::sin(q2);
    const Vec2 c(-h * (2 * w1 * w2 + w2 * w2), h * w1 * w1);
    const Vec2 gravity((m1 * c1 + m2 * l1) * g * std::cos(q1) + m2 * c2 * g * std::cos(q1 + q2),
                       m2 * c2 * g * std::cos(q1 + q2));
    const Vec2 expected = M.ldlt().solve(-c - gravity);
    EXPECT_LT((du - expected).cwiseAbs().maxCoeff(), 1e-12 * (1 + expected.cwiseAbs().maxCoeff())) << "trial " << trial;
  }
}

// Every bundled model at its assembled state (closed loops, redundant constraints, drivers, knife
// edges, singular starts): the accelerations and unique reactions of absolute lagrange.
TEST(DivideAndConquer, EveryBundledModelMovesAndLoadsItsJointsAsLagrange) {
  int models = 0;
  const int unique_pairs = test::expectLagrangeDynamicsOnEveryBundledModel(
      [](const Model& model) { return std::make_unique<DcaFormulation>(model); }, models);
  EXPECT_GE(models, 23);
  EXPECT_GE(unique_pairs, 30);
}

/// A ladder of `loops` four-bar loops with force elements of every kind on many bodies: an effort
/// at every joint, springs between bodies far apart in the assembly (on two threads' shares), a
/// load on every third body.
Model ladderWithForceElements(int loops) {
  test::LadderOptions ladder;
  ladder.loops = loops;
  ModelSpec spec = test::fourBarLadderSpec(ladder);
  for (const JointSpec& joint : spec.joints) {
    ForceSpec effort;
    effort.name = "tau_" + joint.name;
    effort.type = ForceType::JointEffort;
    effort.joint = joint.name;
    effort.profile = Profile::constant(0.1 * std::sin(static_cast<Scalar>(spec.forces.size())));
    spec.forces.push_back(effort);
  }
  const std::size_t nb = spec.bodies.size();
  for (std::size_t i = 0; i < nb / 2; i += 5) {
    ForceSpec spring;
    spring.name = "spring" + std::to_string(i);
    spring.first = {spec.bodies[i].name, "b", {}};
    spring.second = {spec.bodies[nb - 1 - i].name, "a", {}};
    spring.stiffness = 3;
    spring.damping = 0.2;
    spring.free_length = 1;
    spec.forces.push_back(spring);
  }
  for (std::size_t i = 0; i < nb; i += 3) {
    ForceSpec load;
    load.name = "load" + std::to_string(i);
    load.type = ForceType::BodyLoad;
    load.first = {spec.bodies[i].name, "a", {}};
    load.force = Vec3(0.3, -0.2, 0);
    load.torque = Vec3(0, 0, 0.05);
    spec.forces.push_back(load);
  }
  return compile(spec);
}

// Parallel passes (issue 18): on 2 threads and on 8 (oversubscribed on a 2-core machine on
// purpose), the accelerations and multipliers equal the sequential ones to the last bit -- the
// same node kernels on the same numbers, whichever thread runs them, and every body's applied
// force summed in the same order. A ladder of 64 loops (129 bodies: subtrees of 32 or more are
// shared out) with force elements on many bodies, redundant ladders (a duplicated crank bearing:
// singular W at inner nodes), and a random 3D tree of 100 bodies.
TEST(DivideAndConquer, ThreadCountChangesNoBit) {
  std::vector<Model> models;
  models.push_back(ladderWithForceElements(64));
  std::mt19937 rng(18);
  test::RandomMechanismOptions redundant;
  redundant.bodies = 70;
  redundant.loop_closures = 6;
  redundant.duplicate_joints = 4;
  models.push_back(compile(test::randomMechanismSpec(2, rng, redundant)));
  models.push_back(test::randomTree(3, 100, false, rng));
  for (const Model& model : models) {
    const DcaFormulation one(model, 1);
    State x;
    test::randomJointState(model, one.tree(), rng, x.q_r, x.v_r);
    one.tree().absoluteState(x.q_r, x.v_r, 0, x);
    DynamicsWorkspace ws1(model);
    const VecX none;
    one.forwardDynamics(model, ws1, x, none);
    ASSERT_TRUE(ws1.a.allFinite()) << model.name();
    for (const int threads : {2, 8}) {
      const DcaFormulation many(model, threads);
      DynamicsWorkspace ws(model);
      for (int repeat = 0; repeat < 3; ++repeat) {  // (a different schedule each time)
        many.forwardDynamics(model, ws, x, none);
        EXPECT_EQ(ws.a, ws1.a) << model.name() << " on " << threads << " threads";
        EXPECT_EQ(ws.lambda, ws1.lambda) << model.name() << " on " << threads << " threads";
        EXPECT_EQ(ws.a_r, ws1.a_r) << model.name() << " on " << threads << " threads";
      }
    }
  }
}

// The threads' shares of the assembly tree (DivideAndConquer::setThreads): together with the top
// nodes they hold every node once, each share's subtrees are whole subtrees, a top node's subtree
// holds bodies of more than one share, every body is in one share, and each share holds its
// part of the bodies to within one piece (a subtree of fewer than kParallelBodies bodies); each
// force element is listed by the shares of its bodies.
TEST(DivideAndConquer, SharesCoverTheTreeOnceAndBalanceTheBodies) {
  std::mt19937 rng(41);
  std::vector<Model> models;
  models.push_back(ladderWithForceElements(100));
  models.push_back(test::randomTree(3, 300, false, rng));
  test::RandomMechanismOptions chain;
  chain.bodies = 500;
  chain.serial = true;
  models.push_back(compile(test::randomMechanismSpec(3, rng, chain)));
  models.push_back(ladderWithForceElements(3));  // (fewer bodies than a piece)
  for (const Model& model : models)
    for (const int threads : {1, 2, 3, 8}) {
      DivideAndConquer dca(model);
      dca.setThreads(threads);
      const std::string what = model.name() + " on " + std::to_string(threads) + " threads";
      const auto& nodes = dca.nodes();
      const auto& order = dca.order();
      ASSERT_EQ(dca.shares().size(), static_cast<std::size_t>(threads)) << what;
      std::vector<int> runs(nodes.size(), 0), share_of(nodes.size(), -1), body_seen(static_cast<std::size_t>(model.nb()), 0);
      for (const DivideAndConquer::Share& share : dca.shares()) {
        for (const auto& [first, last] : share.subtrees) {
          const DivideAndConquer::Node& root = nodes[static_cast<std::size_t>(order[static_cast<std::size_t>(last)])];
          EXPECT_EQ(root.first_in_order, first) << what;
          for (int k = first; k <= last; ++k) {
            ++runs[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])];
            share_of[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = share.index;
          }
        }
        for (const BodyIndex b : share.bodies) {
          ++body_seen[static_cast<std::size_t>(b)];
          EXPECT_EQ(dca.bodyShares()[static_cast<std::size_t>(b)], share.index) << what;
        }
        const double even = static_cast<double>(model.nb()) / threads;
        EXPECT_LT(std::abs(static_cast<double>(share.bodies.size()) - even), DivideAndConquer::kParallelBodies) << what;
        EXPECT_TRUE(std::is_sorted(share.forces.begin(), share.forces.end())) << what;
      }
      for (const int n : dca.topNodes()) ++runs[static_cast<std::size_t>(n)];
      EXPECT_TRUE(std::all_of(runs.begin(), runs.end(), [](int r) { return r == 1; })) << what;
      EXPECT_TRUE(std::all_of(body_seen.begin(), body_seen.end(), [](int r) { return r == 1; })) << what;
      if (threads == 1) {
        EXPECT_TRUE(dca.topNodes().empty()) << what;
      }
      // a top node's subtree straddles shares: its leaves are in two shares at least
      for (const int n : dca.topNodes()) {
        const DivideAndConquer::Node& top = nodes[static_cast<std::size_t>(n)];
        std::vector<int> seen;
        for (int k = top.first_in_order; k <= top.last_in_order; ++k)
          if (const int s = share_of[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]; s >= 0) seen.push_back(s);
        EXPECT_GE(std::set<int>(seen.begin(), seen.end()).size(), 2u) << what;
      }
      for (std::size_t f = 0; f < model.forces().size(); ++f)
        for (const BodyIndex b : forceBodies(model, model.forces()[f])) {
          if (b == kGround) continue;
          const auto& listed = dca.shares()[static_cast<std::size_t>(dca.bodyShares()[static_cast<std::size_t>(b)])].forces;
          EXPECT_TRUE(std::binary_search(listed.begin(), listed.end(), static_cast<int>(f))) << what;
        }
    }
}

// Phi and b on the threads' stacks (DivideAndConquer::PhiStorage::OnStack) or kept in storage:
// the same arithmetic on the same numbers, so the same bits, on one thread and on two; and the
// automatic choice keeps a small assembly's (a 16-loop ladder) and stacks a large one's.
TEST(DivideAndConquer, PhiOnTheStackChangesNoBit) {
  std::mt19937 rng(27);
  std::vector<Model> models;
  test::LadderOptions ladder;
  ladder.loops = 40;
  models.push_back(compile(test::fourBarLadderSpec(ladder)));
  test::RandomMechanismOptions redundant;
  redundant.bodies = 80;
  redundant.loop_closures = 6;
  redundant.duplicate_joints = 3;
  models.push_back(compile(test::randomMechanismSpec(3, rng, redundant)));
  models.push_back(test::randomTree(3, 120, true, rng));
  for (const Model& model : models) {
    const TreeKinematics tree(model);
    State x;
    test::randomJointState(model, tree, rng, x.q_r, x.v_r);
    tree.absoluteState(x.q_r, x.v_r, 0, x);
    const VecX none;
    DivideAndConquer kept(model, DivideAndConquer::GroundConnections::AboveTheirBody, DivideAndConquer::PhiStorage::Kept);
    DynamicsWorkspace kws(model);
    forwardDynamicsByDca(kept, tree, model, kws, x, none);
    ASSERT_TRUE(kws.a.allFinite()) << model.name();
    for (const int threads : {1, 2}) {
      DivideAndConquer stacked(model, DivideAndConquer::GroundConnections::AboveTheirBody,
                               DivideAndConquer::PhiStorage::OnStack);
      stacked.setThreads(threads);
      EXPECT_TRUE(std::any_of(stacked.nodes().begin(), stacked.nodes().end(),
                              [](const DivideAndConquer::Node& n) { return n.transient; }));
      DynamicsWorkspace sws(model);
      for (int repeat = 0; repeat < 2; ++repeat) {  // (the stack left as found)
        forwardDynamicsByDca(stacked, tree, model, sws, x, none);
        EXPECT_EQ(sws.a, kws.a) << model.name() << " on " << threads << " threads";
        EXPECT_EQ(sws.lambda, kws.lambda) << model.name() << " on " << threads << " threads";
      }
    }
  }
  ladder.loops = 16;
  const Model small = compile(test::fourBarLadderSpec(ladder));
  const DivideAndConquer automatic(small);
  EXPECT_TRUE(std::none_of(automatic.nodes().begin(), automatic.nodes().end(),
                           [](const DivideAndConquer::Node& n) { return n.transient; }));
  test::RandomMechanismOptions chain;
  chain.bodies = 3000;  // (3D: about 4.5 MB of Phi and b kept)
  chain.serial = true;
  const Model large = compile(test::randomMechanismSpec(3, rng, chain));
  const DivideAndConquer stacked(large);
  EXPECT_TRUE(std::any_of(stacked.nodes().begin(), stacked.nodes().end(),
                          [](const DivideAndConquer::Node& n) { return n.transient; }));
}

// The fixed-size kernel of one-connection nodes (src/dynamics/dca/dca_node_kernels.hpp) against the
// general one on the same nodes: the same accelerations and multipliers to rounding, 1e-11 of
// their size (two eliminations of the same few rows, in the same order where W is regular). On
// random trees (2D and 3D, every joint type), a ladder of 16 loops, every bundled model at its
// assembled state -- singular starts included, where the kernel must decline the nodes whose W is
// singular -- and redundant random mechanisms; it must take most nodes, and leave the rank
// decisions (rows taken as dependent) unchanged.
TEST(DivideAndConquer, SingleConnectionKernelsEqualTheGeneralOnes) {
  std::mt19937 rng(21);
  std::vector<std::pair<Model, State>> cases;
  for (int trial = 0; trial < 12; ++trial) {
    Model model = test::randomTree(trial % 2 == 0 ? 2 : 3, 2 + trial, trial % 3 == 0, rng);
    const TreeKinematics tree(model);
    State x;
    test::randomJointState(model, tree, rng, x.q_r, x.v_r);
    tree.absoluteState(x.q_r, x.v_r, 0, x);
    cases.emplace_back(std::move(model), x);
  }
  test::LadderOptions ladder;
  ladder.loops = 16;
  for (Model model : {compile(test::fourBarLadderSpec(ladder)), test::loadModel("double_four_bar_singular"),
                      test::loadModel("spatial_parallelogram"), test::loadModel("mobile_robot"),
                      test::loadModel("modified_2x2_four_bar_singular"), test::loadModel("stewart_platform")}) {
    State x = test::assembledInitialState(model);
    TreeKinematics(model).relativeState(x, x.q_r, x.v_r);
    cases.emplace_back(std::move(model), x);
  }
  test::RandomMechanismOptions redundant;
  redundant.bodies = 30;
  redundant.loop_closures = 4;
  redundant.duplicate_joints = 3;
  for (int dimension : {2, 3}) {
    Model model = compile(test::randomMechanismSpec(dimension, rng, redundant));
    const TreeKinematics tree(model);
    State x;
    test::randomJointState(model, tree, rng, x.q_r, x.v_r);
    tree.absoluteState(x.q_r, x.v_r, 0, x);
    cases.emplace_back(std::move(model), x);
  }
  int single = 0, general = 0, declined = 0;
  for (const auto& [model, x] : cases) {
    const TreeKinematics tree(model);
    DivideAndConquer fast(model), plain(model);
    plain.setSingleConnectionKernels(false);
    DynamicsWorkspace fws(model), pws(model);
    const VecX none;
    forwardDynamicsByDca(fast, tree, model, fws, x, none);
    forwardDynamicsByDca(plain, tree, model, pws, x, none);
    ASSERT_TRUE(pws.a.allFinite()) << model.name();
    EXPECT_LT(maxAbs(fws.a - pws.a), 1e-11 * (1 + maxAbs(pws.a))) << model.name();
    int dependent_fast = 0, dependent_plain = 0;
    for (std::size_t n = 0; n < fast.nodes().size(); ++n) {
      const DivideAndConquer::Node& f = fast.nodes()[n];
      const DivideAndConquer::Node& p = plain.nodes()[n];
      if (f.children[0] < 0) continue;
      EXPECT_FALSE(p.single);
      if (f.single) ++single;
      else if (f.connections.size() == 1 && f.rows <= 6) ++declined;
      else ++general;
      dependent_fast += f.single ? 0 : f.rows - f.W.rank();
      dependent_plain += p.rows - p.W.rank();
    }
    EXPECT_EQ(dependent_fast, dependent_plain) << model.name();
    if (dependent_plain == 0) {
      EXPECT_LT(maxAbs(fws.lambda - pws.lambda), 1e-11 * (1 + maxAbs(pws.lambda))) << model.name();
    } else {
      // which of equal dependent rows carries the load is rounding's choice (a duplicated joint's
      // two rows have equal pivots): the constraint forces C^T lambda on the bodies are unique
      KinematicsWorkspace kin(model);
      evaluateConstraints(model, kin, x);
      const VecX f_plain = kin.C.dense().transpose() * pws.lambda, f_fast = kin.C.dense().transpose() * fws.lambda;
      EXPECT_LT(maxAbs(f_fast - f_plain), 1e-11 * (1 + maxAbs(f_plain))) << model.name();
    }
  }
  EXPECT_GT(single, 3 * (general + declined));  // (general: the ground nodes, platforms, loops' multijoints)
  EXPECT_GT(declined, 0);  // (the singular starts' and redundant mechanisms' dependent rows)
}

}  // namespace
}  // namespace loopdyn
