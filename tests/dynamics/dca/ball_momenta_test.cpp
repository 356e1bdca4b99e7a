// The HDCA's carried ball momenta (dynamics/dca/ball_momenta.hpp): the map and its inverse, its
// rate against central differences along a motion, and what it leaves of a subtree's momentum.

#include "loopdyn/dynamics/dca/ball_momenta.hpp"

#include <gtest/gtest.h>

#include <random>

#include "loopdyn/loopdyn.hpp"
#include "support/against_lagrange.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// A random 3D tree on spherical joints (every other one written child first), some floating bodies.
Model randomBallTree(std::mt19937& rng) {
  test::RandomMechanismOptions options;
  options.bodies = 7;
  options.tree_types = {JointType::Spherical, JointType::Spherical, JointType::Revolute};
  ModelSpec spec = test::randomMechanismSpec(3, rng, options);
  for (std::size_t j = 0; j < spec.joints.size(); j += 2) std::swap(spec.joints[j].first, spec.joints[j].second);
  if (spec.joints.size() > 2) spec.joints.pop_back();  // (its child floats: a free joint from ground)
  return compile(spec);
}

TEST(BallMomenta, InvertsAndItsRateIsTheDerivativeAlongAMotion) {
  std::mt19937 rng(46);
  std::uniform_real_distribution<Scalar> r(-2, 2);
  for (int trial = 0; trial < 20; ++trial) {
    const Model model = randomBallTree(rng);
    const TreeKinematics tree(model);
    const BallMomenta balls(model, tree);
    VecX q, v, q_plus, q_minus;
    test::randomJointState(model, tree, rng, q, v);
    VecX p(tree.nv()), pdot(tree.nv());
    for (Eigen::Index k = 0; k < p.size(); ++k) p(k) = r(rng), pdot(k) = r(rng);
    VecX u(tree.nv()), back;
    balls.carried(q, p, u);
    balls.joint(q, u, back);
    EXPECT_LT((back - p).cwiseAbs().maxCoeff(), 1e-13) << trial;
    // d/dt u(q(t), p(t)) with q' from v and p' = pdot
    constexpr Scalar h = 1e-5;
    tree.integrate(q, v, h, q_plus);
    tree.integrate(q, v, -h, q_minus);
    VecX u_plus(tree.nv()), u_minus(tree.nv());
    balls.carried(q_plus, p + h * pdot, u_plus);
    balls.carried(q_minus, p - h * pdot, u_minus);
    VecX du = pdot, scratch;
    balls.rates(q, v, p, du, scratch);
    EXPECT_LT((du - (u_plus - u_minus) / (2 * h)).cwiseAbs().maxCoeff(), 1e-8 * (1 + du.cwiseAbs().maxCoeff()))
        << trial;
  }
}

// A rod hanging from a ball joint and carrying another at its far end, both on its axis: its
// carried momentum along the axis is its own spin momentum whatever the rod below does.
TEST(BallMomenta, LeaveARodItsOwnSpin) {
  const Model model = modelFromYaml(R"(
name: two_rods
dimension: 3
gravity: [0, 0, -9.81]
ground:
  markers: [{name: O, position: [0, 0, 0]}]
bodies:
  - {name: a, mass: 1, inertia: [0.001, 1, 1], position: [1, 0, 0],
     markers: [{name: O, position: [-1, 0, 0]}, {name: E, position: [1, 0, 0]}]}
  - {name: b, mass: 1, inertia: [0.001, 1, 1], position: [3, 0, 0],
     markers: [{name: E, position: [-1, 0, 0]}]}
joints:
  - {name: O, type: spherical, between: [ground.O, a.O]}
  - {name: E, type: spherical, between: [a.E, b.E]}
)");
  const TreeKinematics tree(model);
  const BallMomenta balls(model, tree);
  VecX q(8), v(6);
  q << 1, 0, 0, 0, 1, 0, 0, 0;  // both joints at their reference pose: rods along x
  v << 3, 0.5, -0.7, -1, 2, 0.4;  // rod a spins about x at 3 rad/s
  State x;
  tree.absoluteState(q, v, 0, x);
  // p = J^T (M V): the joints' momenta of the motion
  VecX p(6);
  for (int joint = 0; joint < 2; ++joint) {
    VecX e = VecX::Zero(6);
    State xe;
    for (int k = 0; k < 3; ++k) {
      e.setZero();
      e(3 * joint + k) = 1;
      tree.absoluteState(q, e, 0, xe);
      Scalar sum = 0;
      for (BodyIndex b = 0; b < 2; ++b) {
        const Body& body = model.bodies()[static_cast<std::size_t>(b)];
        sum += body.mass * xe.v.segment<3>(6 * b).dot(x.v.segment<3>(6 * b)) +
               xe.v.segment<3>(6 * b + 3).dot(body.inertia * x.v.segment<3>(6 * b + 3));
      }
      p(3 * joint + k) = sum;
    }
  }
  VecX u(6);
  balls.carried(q, p, u);
  EXPECT_NEAR(p(0), 0.001 * (3 + 2), 1e-12);  // the subtree's: rod b spins at 3 - 1 rad/s
  EXPECT_NEAR(u(0), 0.001 * 3, 1e-12);        // rod a's own
}

}  // namespace
}  // namespace loopdyn
