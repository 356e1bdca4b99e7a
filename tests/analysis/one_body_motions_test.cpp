// The admissible motions of one body alone, found from its columns of C and said in words
// (loopdyn analyze --motions), and the basis of admissible motions that starts with them.

#include "loopdyn/analysis/one_body_motions.hpp"

#include <gtest/gtest.h>

#include "loopdyn/dynamics/tangent_space.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

struct Evaluated {
  Model model;
  KinematicsWorkspace kin;
  explicit Evaluated(Model m) : model(std::move(m)), kin(model) {
    evaluateConstraints(model, kin, test::assembledInitialState(model));
  }
  Vec3 point(const MarkerFrame& marker) const {
    const BodyMotion& pose = motionOf(kin.motion, marker.body);
    return pose.r + pose.R * marker.position;
  }
};

// The RSSR coupler's idle spin: its rate along the line between its balls, both balls at rest,
// nothing else moving; the crank-rocker motion is not a one-body motion.
TEST(OneBodyMotions, TheRssrCouplerSpinsAboutTheLineThroughItsBalls) {
  const Evaluated e(test::loadModel("rssr"));
  const std::vector<OneBodyMotion> alone = oneBodyMotions(e.model, e.kin, 1e-9);
  ASSERT_EQ(alone.size(), 1u);
  const BodyIndex coupler = e.model.bodyIndex("coupler");
  EXPECT_EQ(alone[0].body, coupler);
  EXPECT_EQ(alone[0].words, "coupler spins about the line through joints A and B (every other body at rest)");
  const VecX v = e.model.scaling().col.cwiseProduct(alone[0].scaled);
  EXPECT_NEAR(alone[0].scaled.norm(), 1, 1e-12);
  EXPECT_NEAR(v.norm(), v.segment(6 * coupler, 6).norm(), 1e-15);
  EXPECT_LT((e.kin.C.dense() * v).norm(), 1e-12);
  const Vec3 a = e.point(e.model.joints()[1].second), b = e.point(e.model.joints()[2].first);
  const Vec3 velocity = v.segment<3>(6 * coupler), rate = v.segment<3>(6 * coupler + 3);
  EXPECT_LT(rate.normalized().cross((b - a).normalized()).norm(), 1e-9);
  const Vec3 r = e.kin.motion[static_cast<std::size_t>(coupler)].r;
  EXPECT_LT((velocity + rate.cross(a - r)).norm(), 1e-9 * rate.norm());  // the ball A at rest
}

// An open chain's last link turns alone about its joint's axis; no other link can move alone.
TEST(OneBodyMotions, AChainsLastLinkTurnsAboutItsJoint) {
  const Evaluated e(compile(test::spatialChainSpec(3)));
  const std::vector<OneBodyMotion> alone = oneBodyMotions(e.model, e.kin, 1e-9);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].words, "b2 turns about joint j2, along (0, 0, 1) (every other body at rest)");
}

// A link hung on one ball turns freely about it: its three motions said once, as the turns about
// the ball's point (each leaves the point at rest), not as three axes of an arbitrary basis.
TEST(OneBodyMotions, ALinkOnOneBallTurnsFreelyAboutIt) {
  ModelSpec spec = test::spatialChainSpec(1);
  spec.joints.front().type = JointType::Spherical;
  spec.forces.clear();  // (the chain's joint effort: a ball takes none)
  const Evaluated e(compile(spec));
  const std::vector<OneBodyMotion> alone = oneBodyMotions(e.model, e.kin, 1e-9);
  ASSERT_EQ(alone.size(), 3u);
  const std::string joint = e.model.joints().front().name, body = e.model.bodyName(alone[0].body);
  EXPECT_EQ(alone[0].words, body + " turns freely about joint " + joint +
                                ": motions 1 to 3 are its turns about that point (every other body at rest)");
  EXPECT_EQ(alone[2].words, body + " turns freely about joint " + joint + " (see motion 1)");
  const Vec3 ball = e.point(e.model.joints().front().second);
  const Vec3 r = e.kin.motion[static_cast<std::size_t>(alone[0].body)].r;
  for (const OneBodyMotion& m : alone) {
    const VecX v = e.model.scaling().col.cwiseProduct(m.scaled);
    EXPECT_LT((v.segment<3>(0) + v.segment<3>(3).cross(ball - r)).norm(), 1e-9 * v.norm());
  }
}

// The basis starts with the one-body motions, with their words; the rest is orthonormal to them
// in the scaled velocities, and all of it is admissible.
TEST(OneBodyMotions, TheAdmissibleMotionsStartWithThem) {
  const Evaluated e(test::loadModel("spatial_parallelogram"));
  const AdmissibleMotions a = admissibleMotions(e.model, e.kin, 1e-9);
  const std::vector<OneBodyMotion> alone = oneBodyMotions(e.model, e.kin, 1e-9);
  ASSERT_EQ(a.motions.cols(), e.model.nv() - a.rank);
  ASSERT_GT(a.motions.cols(), static_cast<Eigen::Index>(alone.size()));
  const MatX scaled = e.model.scaling().col.cwiseInverse().asDiagonal() * a.motions;
  EXPECT_LT((scaled.transpose() * scaled - MatX::Identity(scaled.cols(), scaled.cols())).norm(), 1e-12);
  EXPECT_LT((e.kin.C.dense() * a.motions).norm(), 1e-9);
  for (std::size_t j = 0; j < a.words.size(); ++j) {
    const bool named = j < alone.size();
    EXPECT_EQ(a.words[j].empty(), !named) << j;
    if (named) {
      EXPECT_LT((scaled.col(static_cast<Eigen::Index>(j)) - alone[j].scaled).norm(), 1e-15);
    }
  }
}

}  // namespace
}  // namespace loopdyn
