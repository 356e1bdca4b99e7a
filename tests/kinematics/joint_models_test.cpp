// Joint models (issue 15): subspaces against their definitions, rates and integration against
// finite differences, and coordinates <-> poses round trips, for every joint in 2D and 3D.

#include "loopdyn/kinematics/joint_models.hpp"

#include <gtest/gtest.h>

#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "loopdyn/common/errors.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {
namespace {

struct Case {
  std::string name;
  JointModel joint;
};

std::vector<Case> everyJoint() {
  std::vector<Case> out;
  for (int dimension : {2, 3}) {
    for (JointType type : {JointType::Revolute, JointType::Prismatic, JointType::Cylindrical, JointType::Universal,
                           JointType::Spherical, JointType::Planar, JointType::Fixed})
      if (jointTypeAllowed(type, dimension))
        out.push_back({std::string(jointTypeName(type)) + " " + std::to_string(dimension) + "D", JointModel(type, dimension)});
    out.push_back({"free " + std::to_string(dimension) + "D", JointModel::free(dimension)});
  }
  return out;
}

/// Random coordinates: angles and lengths in [-3, 3], unit quaternions.
VecX randomCoordinates(const JointModel& joint, std::mt19937& rng) {
  std::uniform_real_distribution<Scalar> u(-3, 3);
  VecX q(joint.nq());
  for (int k = 0; k < joint.nq(); ++k) q(k) = u(rng);
  // quaternions: the last four coordinates of a spherical (all) or free 3D joint, normalised
  if (joint.nq() == 4 || joint.nq() == 7) q.tail<4>().normalize();
  return q;
}

VecX randomVelocities(const JointModel& joint, std::mt19937& rng) {
  std::uniform_real_distribution<Scalar> u(-2, 2);
  VecX v(joint.nv());
  for (int k = 0; k < joint.nv(); ++k) v(k) = u(rng);
  return v;
}

TEST(JointModels, MotionAndConstraintSubspacesAreOrthonormalComplements) {
  std::mt19937 rng(1);
  for (const Case& c : everyJoint()) {
    for (int trial = 0; trial < 5; ++trial) {
      const VecX q = randomCoordinates(c.joint, rng);
      const MatX S = c.joint.motionSubspace(q.data()), T = c.joint.constraintSubspace(q.data());
      MatX ST(6, 6);
      ST << S, T;
      // [S T] orthogonal: S and T orthonormal and T^T S = 0 (exact unit axes, or sines/cosines)
      EXPECT_LT((ST.transpose() * ST - MatX::Identity(6, 6)).norm(), 1e-15) << c.name;
      if (c.joint.dimension() == 2) {
        MatX st(3, 3);
        st << c.joint.planarMotionSubspace(q.data()), c.joint.planarConstraintSubspace(q.data());
        EXPECT_LT((st.transpose() * st - MatX::Identity(3, 3)).norm(), 1e-15) << c.name;
        // and a planar joint moves in the plane only (a fixed joint does not move: no columns)
        if (c.joint.nv() > 0) {
          EXPECT_LT((S.middleRows(2, 3)).norm(), 1e-15) << c.name;
        }
      }
    }
  }
}

TEST(JointModels, TheTwistIsTheDerivativeOfThePoseAlongTheIntegration) {
  // central differences of pose(integrate(q, v, +-h)) against S v: error O(h^2) ~ 1e-10
  std::mt19937 rng(2);
  const Scalar h = 1e-5;
  for (const Case& c : everyJoint()) {
    for (int trial = 0; trial < 5; ++trial) {
      const VecX q = randomCoordinates(c.joint, rng), v = randomVelocities(c.joint, rng);
      VecX qp(c.joint.nq()), qm(c.joint.nq()), qdot(c.joint.nq());
      c.joint.integrate(q.data(), v.data(), h, qp.data());
      c.joint.integrate(q.data(), v.data(), -h, qm.data());
      const RelativePose X = c.joint.pose(q.data()), Xp = c.joint.pose(qp.data()), Xm = c.joint.pose(qm.data());
      const Vec6 twist = c.joint.motionSubspace(q.data()) * v;
      EXPECT_LT(((Xp.p - Xm.p) / (2 * h) - twist.head<3>()).norm(), 1e-8) << c.name;
      // dR/dt = [omega]x R, omega in frame 1
      EXPECT_LT(((Xp.R - Xm.R) / (2 * h) - skew(twist.tail<3>()) * X.R).norm(), 1e-8) << c.name;
      // and the position rates are the derivative of the integration
      c.joint.positionRates(q.data(), v.data(), qdot.data());
      EXPECT_LT(((qp - qm) / (2 * h) - qdot).norm(), 1e-8) << c.name;
    }
  }
}

TEST(JointModels, CoordinatesAndVelocitiesAreRecoveredFromPoseAndTwist) {
  std::mt19937 rng(3);
  for (const Case& c : everyJoint()) {
    for (int trial = 0; trial < 10; ++trial) {
      const VecX q = randomCoordinates(c.joint, rng), v = randomVelocities(c.joint, rng);
      VecX back(c.joint.nq()), v_back(c.joint.nv());
      c.joint.coordinates(c.joint.pose(q.data()), back.data(), q.data());  // angles near q: no 2 pi jump
      EXPECT_LT((back - q).norm(), 1e-12) << c.name;
      c.joint.velocities(q.data(), c.joint.motionSubspace(q.data()) * v, v_back.data());
      EXPECT_LT((v_back - v).norm(), 1e-14) << c.name;
    }
  }
}

TEST(JointModels, AnglesKeepTheReferencesWholeTurns) {
  const JointModel revolute(JointType::Revolute, 2);
  const Scalar q = 0.3 + 4 * std::numbers::pi;
  Scalar back = 0;
  revolute.coordinates(revolute.pose(&q), &back, &q);
  EXPECT_NEAR(back, q, 1e-12);
  revolute.coordinates(revolute.pose(&q), &back);
  EXPECT_NEAR(back, 0.3, 1e-12);  // without a reference: the principal angle
}

TEST(JointModels, DistanceAndKnifeEdgeHaveNoJointModel) {
  EXPECT_THROW(JointModel(JointType::Distance, 3), InvalidArgument);
  EXPECT_THROW(JointModel(JointType::KnifeEdge, 2), InvalidArgument);
  EXPECT_THROW(JointModel(JointType::Spherical, 2), InvalidArgument);  // no 2D spherical joint
}

}  // namespace
}  // namespace loopdyn
