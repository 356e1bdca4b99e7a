#include "loopdyn/spatial/rotation.hpp"

#include <gtest/gtest.h>

#include <numbers>

namespace loopdyn {
namespace {

constexpr Scalar kTight = 1e-14;  // exact formulas, round-off only
constexpr Scalar pi = std::numbers::pi;

TEST(Rotation, ZxzComposesElementaryRotations) {
  // paper 000, sect. 4: rods 1-4 at theta = pi/12 point along (-sin t, cos t, 1)/sqrt(2)
  const Scalar theta = pi / 12;
  const Vec3 x = rotationZXZ(pi / 2 + theta, pi / 2, pi / 4) * Vec3::UnitX();
  EXPECT_LT((x - Vec3(-std::sin(theta), std::cos(theta), 1) / std::sqrt(2)).norm(), kTight);
}

TEST(Rotation, ExpMapMatchesAxisAngleAndSkewIsCrossProduct) {
  const Vec3 w(0.3, -0.2, 0.5);
  EXPECT_LT((expSO3(w) - rotationAxisAngle(w, w.norm())).norm(), kTight);
  EXPECT_LT((expSO3(Vec3::Zero()) - Mat3::Identity()).norm(), kTight);
  const Vec3 a(1, 2, 3);
  EXPECT_LT((skew(w) * a - w.cross(a)).norm(), kTight);
}

TEST(Rotation, FrameWithZAxisIsRightHandedOrthonormal) {
  for (const Vec3& z : {Vec3(0, 0, 1), Vec3(1, 1, 0), Vec3(-0.2, 0.1, 3)}) {
    const Mat3 R = frameWithZAxis(z);
    EXPECT_LT((R.transpose() * R - Mat3::Identity()).norm(), kTight);
    EXPECT_NEAR(R.determinant(), 1, kTight);
    EXPECT_LT((R.col(2) - z.normalized()).norm(), kTight);
  }
}

TEST(Rotation, WrapAngleMapsIntoHalfOpenInterval) {
  EXPECT_NEAR(wrapAngle(3 * pi), pi, kTight);
  EXPECT_NEAR(wrapAngle(-pi), pi, kTight);
  EXPECT_NEAR(wrapAngle(0.5 + 4 * pi), 0.5, 1e-13);
  EXPECT_NEAR(planarAngle(rotationZ(2.5)), 2.5, kTight);
}

}  // namespace
}  // namespace loopdyn
