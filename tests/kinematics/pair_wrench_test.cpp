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
        pairWrenchMap(model, ws.motion, p, b, point, W);
        const VecX lambda = VecX::Random(pair.rows);
        VecX v = VecX::Zero(model.nv());
        v.segment(b * nv, nv) = VecX::Random(nv);
        const Scalar power = -lambda.dot(ws.C.dense().middleRows(pair.row, pair.rows) * v);
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
  const PairFrame frame = pairFrame(model, ws.motion, p);
  EXPECT_EQ(frame.body, kGround);
  WrenchMap on_ground, on_crank;
  pairWrenchMap(model, ws.motion, p, kGround, frame.point, on_ground);
  pairWrenchMap(model, ws.motion, p, model.bodyIndex("crank"), frame.point, on_crank);
  EXPECT_LT((on_ground + on_crank).norm(), kTolerance);
  EXPECT_THROW(pairWrenchMap(model, ws.motion, p, model.bodyIndex("rocker"), frame.point, on_ground), InvalidArgument);
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
      const Vec3 point = pairFrame(model, ws.motion, p).point;
      WrenchMap W1, W2;
      pairWrenchMap(model, ws.motion, p, pair.body1, point, W1);
      pairWrenchMap(model, ws.motion, p, pair.body2, point, W2);
      EXPECT_LT((W1 + W2).norm(), 1e-12 * (1 + W1.norm())) << pair.name << " (" << pair.type << ")";
    }
  }
}

/// Every pair's reaction, moved back to each moving body's centre of mass and summed over the
/// pairs acting on it, is that body's block of -C^T lambda (formulation.hpp's constraint force):
/// the jets' rows are C's, and every multiplier reaches its bodies once. Ground carries minus the
/// wrenches on the moving bodies.
TEST(PairWrench, ReactionsAddUpToTheConstraintForcesOnEveryBody) {
  std::mt19937 rng(17);
  for (int dimension : {2, 3}) {
    const Model model = compile(test::everyPairTypeSpec(dimension, rng));
    KinematicsWorkspace ws(model);
    evaluateConstraints(model, ws, test::randomState(model, rng));
    const VecX lambda = VecX::Random(model.nc());
    std::vector<PairReaction> reactions;
    pairReactions(model, ws.motion, lambda, reactions);
    ASSERT_EQ(reactions.size(), model.pairs().size());
    const VecX force = -ws.C.dense().transpose() * lambda;
    const int nv = model.vPerBody();
    VecX sum = VecX::Zero(model.nv());
    for (std::size_t p = 0; p < reactions.size(); ++p) {
      const Pair& pair = model.pairs()[p];
      const PairReaction& r = reactions[p];
      EXPECT_LT((r.frame.point - pairFrame(model, ws.motion, static_cast<int>(p)).point).norm(), kTolerance);
      for (const auto& [body, wrench] : {std::pair{pair.body1, r.on_body1}, std::pair{pair.body2, r.on_body2}}) {
        if (body == kGround) {
          const Vec6& other = body == pair.body1 ? r.on_body2 : r.on_body1;
          EXPECT_LT((wrench + other).norm(), kTolerance * (1 + other.norm())) << pair.name;
          continue;
        }
        // (F, M_P) -> (F, M_c) with M_c = M_P - (r_c - P) x F
        const Vec3 F = wrench.head<3>();
        const Vec3 M = wrench.tail<3>() - (ws.motion[static_cast<std::size_t>(body)].r - r.frame.point).cross(F);
        if (dimension == 2) sum.segment<3>(body * nv) += Vec3(F.x(), F.y(), M.z());
        else sum.segment<6>(body * nv) += (Vec6() << F, M).finished();
      }
      // the joint-frame components are the world ones in the marker's axes
      EXPECT_LT((r.frame.orientation * r.inJointAxes(r.on_body1).head<3>() - r.on_body1.head<3>()).norm(),
                kTolerance * (1 + r.on_body1.norm()));
    }
    EXPECT_LT((sum - force).lpNorm<Eigen::Infinity>(), kTolerance * (1 + force.lpNorm<Eigen::Infinity>()))
        << "dimension " << dimension;
  }
}

}  // namespace
}  // namespace loopdyn
