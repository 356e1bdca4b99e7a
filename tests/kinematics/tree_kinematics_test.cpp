// Relative coordinates on the spanning tree (issue 15): the absolute state built from joint
// coordinates satisfies every tree joint, its velocities are the derivative of its positions, the
// map inverts, and on every bundled model the assembled state is reproduced from its joint
// coordinates.

#include "loopdyn/kinematics/tree_kinematics.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/spatial/rotation.hpp"
#include "support/against_lagrange.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

/// Largest residual of the tree joints' position and velocity equations at x.
std::pair<Scalar, Scalar> treeJointResiduals(const Model& model, const State& x) {
  KinematicsWorkspace ws(model);
  evaluateConstraints(model, ws, x);
  const VecX Cv = ws.C.dense() * x.v;
  Scalar position = 0, velocity = 0;
  for (std::size_t j = 0; j < model.joints().size(); ++j) {
    if (model.topology().roles[j] != JointRole::Tree) continue;
    const Joint& joint = model.joints()[j];
    position = std::max(position, ws.Phi.segment(joint.row, joint.rows).cwiseAbs().maxCoeff());
    velocity = std::max(velocity, Cv.segment(joint.row, joint.rows).cwiseAbs().maxCoeff());
  }
  return {position, velocity};
}

TEST(TreeKinematics, RandomTreesSatisfyTheirJointsAndInvert) {
  std::mt19937 rng(15);
  int links = 0;
  for (int trial = 0; trial < 40; ++trial) {
    test::RandomMechanismOptions options;
    options.bodies = 2 + trial % 6;
    options.loop_closures = trial % 3;  // cut joints: the tree stays a tree
    const int dimension = trial % 2 == 0 ? 2 : 3;
    const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
    const TreeKinematics tree(model);
    VecX q, v;
    test::randomJointState(model, tree, rng, q, v);
    State x;
    tree.absoluteState(q, v, 0, x);
    // every tree joint holds to rounding (coordinates of size ~4 m: 1e-14 .. 1e-13)
    const auto [position, velocity] = treeJointResiduals(model, x);
    EXPECT_LT(position, 1e-12) << "trial " << trial;
    EXPECT_LT(velocity, 1e-12) << "trial " << trial;
    // and the joint coordinates come back
    VecX q_back, v_back;
    tree.relativeState(x, q_back, v_back, &q);
    EXPECT_LT((q_back - q).cwiseAbs().maxCoeff(), 1e-12) << "trial " << trial;
    EXPECT_LT((v_back - v).cwiseAbs().maxCoeff(), 1e-12) << "trial " << trial;
    links += model.nb();
  }
  EXPECT_GT(links, 100);
}

TEST(TreeKinematics, BodyVelocitiesAreTheDerivativeOfTheirPositions) {
  // V = J(q) v against central differences of the absolute positions along q (+) t v: O(h^2)
  std::mt19937 rng(16);
  const Scalar h = 1e-5;
  for (int trial = 0; trial < 20; ++trial) {
    test::RandomMechanismOptions options;
    options.bodies = 2 + trial % 5;
    options.loop_closures = 1 + trial % 2;  // so that some tree joints are traversed backwards
    const int dimension = trial % 2 == 0 ? 2 : 3;
    const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
    const TreeKinematics tree(model);
    VecX q, v, qp, qm;
    test::randomJointState(model, tree, rng, q, v);
    tree.integrate(q, v, h, qp);
    tree.integrate(q, v, -h, qm);
    State x, xp, xm;
    tree.absoluteState(q, v, 0, x);
    tree.absoluteState(qp, v, 0, xp);
    tree.absoluteState(qm, v, 0, xm);
    for (BodyIndex b = 0; b < model.nb(); ++b) {
      const BodyMotion m = bodyMotion(model, x.q, x.v, b), mp = bodyMotion(model, xp.q, VecX(), b),
                       mm = bodyMotion(model, xm.q, VecX(), b);
      EXPECT_LT(((mp.r - mm.r) / (2 * h) - m.v).norm(), 1e-7) << "trial " << trial << ", body " << b;
      EXPECT_LT(((mp.R - mm.R) / (2 * h) - skew(m.w) * m.R).norm(), 1e-7) << "trial " << trial << ", body " << b;
    }
  }
}

TEST(TreeKinematics, BodyAccelerationsAreJTimesJointAccelerationsPlusJdotVAndGiveThemBack) {
  // A(a) = J a + Jdot v: linear in a with J from the velocity map (exactly, up to rounding), and
  // A(0) = Jdot v against central differences of J along q (+) t v (O(h^2) ~ 1e-9)
  std::mt19937 rng(17);
  const Scalar h = 1e-5;
  for (int trial = 0; trial < 20; ++trial) {
    test::RandomMechanismOptions options;
    options.bodies = 2 + trial % 5;
    options.loop_closures = 1 + trial % 2;  // joints traversed both ways
    const int dimension = trial % 2 == 0 ? 2 : 3;
    const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
    const TreeKinematics tree(model);
    VecX q, v, a, unused;
    test::randomJointState(model, tree, rng, q, v);
    test::randomJointState(model, tree, rng, unused, a);
    VecX A, bias;
    tree.absoluteAccelerations(q, v, a, A);
    tree.absoluteAccelerations(q, v, VecX::Zero(v.size()), bias);
    MatX J, Jp, Jm;
    tree.jacobian(q, J);
    EXPECT_LT((A - bias - J * a).cwiseAbs().maxCoeff(), 1e-12 * (1 + A.cwiseAbs().maxCoeff())) << "trial " << trial;
    VecX qp, qm;
    tree.integrate(q, v, h, qp);
    tree.integrate(q, v, -h, qm);
    tree.jacobian(qp, Jp);
    tree.jacobian(qm, Jm);
    EXPECT_LT((bias - (Jp - Jm) * v / (2 * h)).cwiseAbs().maxCoeff(), 1e-7) << "trial " << trial;
    // and back: the joint accelerations from the bodies' (the DCA's last step, dca.hpp), exact
    // up to rounding of the accelerations' size
    State x;
    tree.absoluteState(q, v, 0, x);
    std::vector<BodyMotion> motion;
    for (BodyIndex b = 0; b < model.nb(); ++b) motion.push_back(bodyMotion(model, x.q, x.v, b));
    VecX a_back;
    tree.jointAccelerations(q, v, motion, A, a_back);
    EXPECT_LT(test::maxAbs(a_back - a), 1e-11 * (1 + test::maxAbs(A))) << "trial " << trial;
  }
}

TEST(TreeKinematics, JacobianRateTimesColumnsIsTheRateOfJAlongTheMotion) {
  // J W and J' W (jacobianTimes, from the joints' world axes) against the dense J W (to rounding)
  // and against central differences of J along q (+) t v: O(h^2) ~ 1e-9 for entries of size ~1,
  // as above. W random (every joint type, both traversal directions, 2D and 3D), and W = v,
  // where J' v is the bias of the accelerations (another route to the same rate).
  std::mt19937 rng(23);
  const auto largest = [](const MatX& A) { return A.size() > 0 ? A.cwiseAbs().maxCoeff() : 0.0; };
  const Scalar h = 1e-5;
  int checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    test::RandomMechanismOptions options;
    options.bodies = 2 + trial % 5;
    options.loop_closures = 1 + trial % 2;
    const int dimension = trial % 2 == 0 ? 2 : 3;
    const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
    const TreeKinematics tree(model);
    VecX q, v, unused;
    test::randomJointState(model, tree, rng, q, v);
    MatX W(v.size(), 3);
    for (Eigen::Index c = 0; c < W.cols(); ++c) {
      VecX w;
      test::randomJointState(model, tree, rng, unused, w);
      W.col(c) = w;
    }
    W.col(2) = v;
    State x;
    tree.absoluteState(q, v, 0, x);
    std::vector<BodyMotion> motion(static_cast<std::size_t>(model.nb()));
    for (BodyIndex b = 0; b < model.nb(); ++b) motion[static_cast<std::size_t>(b)] = bodyMotion(model, x.q, x.v, b);
    MatX JW, JdotW, J, Jp, Jm;
    TreeKinematics::JacobianTimesScratch scratch;
    tree.jacobianTimes(q, v, motion, W, JW, JdotW, scratch);
    tree.jacobian(q, J);
    EXPECT_LT(largest(JW - J * W), 1e-12 * (1 + largest(J * W))) << "trial " << trial;
    VecX qp, qm;
    tree.integrate(q, v, h, qp);
    tree.integrate(q, v, -h, qm);
    tree.jacobian(qp, Jp);
    tree.jacobian(qm, Jm);
    EXPECT_LT(largest(JdotW - (Jp - Jm) * W / (2 * h)), 1e-7) << "trial " << trial;
    VecX bias;
    tree.absoluteAccelerations(q, v, VecX::Zero(v.size()), bias);
    EXPECT_LT(largest(JdotW.col(2) - bias), 1e-12 * (1 + largest(bias))) << "trial " << trial;
    ++checked;
  }
  EXPECT_EQ(checked, 20);
}

TEST(TreeKinematics, JointsAtPosesTheirModelsDoNotReachAreReportedNotGuessed) {
  // a 3D revolute joint whose markers' z-axes are antiparallel: its equations (z1 . x2 = z1 . y2 =
  // 0) hold, but the joint model turns about parallel axes only
  const Model model = compile(io::parseModel(R"(
dimension: 3
ground:
  markers: [{name: o, position: [0, 0, 0], axis: [0, 0, 1]}]
bodies:
  - {name: bar, mass: 1, inertia: {principal: [0.01, 0.1, 0.1]}, position: [0.5, 0, 0],
     markers: [{name: o, position: [-0.5, 0, 0], axis: [0, 0, -1]}]}
joints:
  - {name: hinge, type: revolute, between: [ground.o, bar.o]}
)", "antiparallel.yaml"));
  KinematicsWorkspace ws(model);
  const AssemblyResult assembled = assemble(model, ws, initialState(model));
  ASSERT_TRUE(assembled.converged) << assembled.message;
  const TreeKinematics tree(model);
  VecX q, v;
  try {
    tree.relativeState(assembled.state, q, v);
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("body 'bar': its tree joint 'hinge' is at a pose its joint model does not reach"),
              std::string::npos)
        << e.what();
  }
}

TEST(TreeKinematics, EveryBundledModelsAssembledStateComesBackFromItsJointCoordinates) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(LOOPDYN_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const Model model = compile(io::readModelFile(entry.path().string()));
    KinematicsWorkspace ws(model);
    const AssemblyResult assembled = assemble(model, ws, initialState(model));
    ASSERT_TRUE(assembled.converged) << entry.path();
    const TreeKinematics tree(model);
    VecX q, v;
    tree.relativeState(assembled.state, q, v);
    State x;
    tree.absoluteState(q, v, 0, x);
    // positions to rounding of the assembly (1e-12 of L); quaternions may change sign
    const Scalar L = model.characteristicLength();
    for (BodyIndex b = 0; b < model.nb(); ++b) {
      const BodyMotion m = bodyMotion(model, assembled.state.q, assembled.state.v, b), back = bodyMotion(model, x.q, x.v, b);
      EXPECT_LT((back.r - m.r).norm(), 1e-11 * L) << entry.path().stem() << ", " << model.bodyName(b);
      EXPECT_LT((back.R - m.R).norm(), 1e-11) << entry.path().stem() << ", " << model.bodyName(b);
      EXPECT_LT((back.v - m.v).norm(), 1e-10 * (1 + m.v.norm())) << entry.path().stem() << ", " << model.bodyName(b);
      EXPECT_LT((back.w - m.w).norm(), 1e-10 * (1 + m.w.norm())) << entry.path().stem() << ", " << model.bodyName(b);
      if (model.dimension() == 2) {
        EXPECT_NEAR(back.phi, m.phi, 1e-12) << entry.path().stem() << ": no whole turn lost";
      }
    }
    ++count;
  }
  EXPECT_GE(count, 15);
}

}  // namespace
}  // namespace loopdyn
