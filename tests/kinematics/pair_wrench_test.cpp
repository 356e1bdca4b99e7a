// The wrench a pair exerts, checked by virtual power and by action and reaction.

#include "loopdyn/kinematics/pair_wrench.hpp"

#include <gtest/gtest.h>

#include "test_models.hpp"

namespace loopdyn {
namespace {

// products of O(1) numbers: rounding only
constexpr Scalar kTolerance = 1e-12;

/// The power of the constraint forces -C^T lambda on a motion of body b alone equals the power
/// of the wrench (F, M_P) on that body's velocity at P: F . v_P + M_P . w.
TEST(PairWrench, PowerOfTheWrenchEqualsThePowerOfTheConstraintForces) {
  std::mt19937 rng(11);
  for (int dimension : {2, 3}) {
    const Model model = compile(test::everyPairTypeSpec(dimension, rng));
    KinematicsWorkspace ws(model);
    evaluateConstraints(model, ws, test::randomState(model, rng));
    const int nv = model.vPerBody();
    for (int p = 0; p < static_cast<int>(model.pairs().size()); ++p) {
      const Pair& pair = model.pairs()[static_cast<std::size_t>(p)];
      for (BodyIndex b : {pair.body1, pair.body2}) {
        if (b == kGround) continue;
        Vec3 point = Vec3::Random();
        if (dimension == 2) point.z() = 0;
        WrenchMap W;
        pairWrenchMap(model, ws, p, b, point, W);
        const VecX lambda = VecX::Random(pair.rows);
        VecX v = VecX::Zero(model.nv());
        v.segment(b * nv, nv) = VecX::Random(nv);
        const Scalar power = -lambda.dot(ws.C.middleRows(pair.row, pair.rows) * v);
        const BodyMotion& m = ws.motion[static_cast<std::size_t>(b)];
        Vec3 v_cm = Vec3::Zero(), w = Vec3::Zero();
        if (dimension == 2) {
          v_cm.head<2>() = v.segment<2>(b * nv);
          w.z() = v(b * nv + 2);
        } else {
          v_cm = v.segment<3>(b * nv);
          w = v.segment<3>(b * nv + 3);
        }
        const Vec3 v_P = v_cm + w.cross(point - m.r);
        const Vec6 wrench = W * lambda;
        EXPECT_NEAR(wrench.head<3>().dot(v_P) + wrench.tail<3>().dot(w), power, kTolerance) << pair.name;
      }
    }
  }
}

TEST(PairWrench, GroundReceivesTheOppositeOfWhatItsBodyReceives) {
  const Model model = test::loadModel("four_bar_spatial");
  KinematicsWorkspace ws(model);
  evaluateConstraints(model, ws, test::stateOf(model));
  const int p = model.pairIndex("O2");
  const PairFrame frame = pairFrame(model, ws, p);
  EXPECT_EQ(frame.body, kGround);
  WrenchMap on_ground, on_crank;
  pairWrenchMap(model, ws, p, kGround, frame.point, on_ground);
  pairWrenchMap(model, ws, p, model.bodyIndex("crank"), frame.point, on_crank);
  EXPECT_LT((on_ground + on_crank).norm(), kTolerance);
  EXPECT_THROW(pairWrenchMap(model, ws, p, model.bodyIndex("rocker"), frame.point, on_ground), InvalidArgument);
}

TEST(PairWrench, JointBetweenMovingBodiesActsEquallyAndOppositely) {
  // at an assembled configuration the pair's equations are invariant to a common rigid motion of
  // its two bodies, so the two wrenches at the joint point cancel (Newton's third law)
  std::mt19937 rng(5);
  test::RandomMechanismOptions options;
  options.bodies = 4;
  options.serial = true;
  for (int dimension : {2, 3}) {
    const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
    KinematicsWorkspace ws(model);
    evaluateConstraints(model, ws, test::stateOf(model));
    for (int p = 0; p < static_cast<int>(model.pairs().size()); ++p) {
      const Pair& pair = model.pairs()[static_cast<std::size_t>(p)];
      if (pair.body1 == kGround || pair.body2 == kGround) continue;
      const Vec3 point = pairFrame(model, ws, p).point;
      WrenchMap W1, W2;
      pairWrenchMap(model, ws, p, pair.body1, point, W1);
      pairWrenchMap(model, ws, p, pair.body2, point, W2);
      EXPECT_LT((W1 + W2).norm(), 1e-12 * (1 + W1.norm())) << pair.name << " (" << pair.type << ")";
    }
  }
}

}  // namespace
}  // namespace loopdyn
