#include "loopdyn/model/profile.hpp"

#include <gtest/gtest.h>

#include "loopdyn/common/errors.hpp"

namespace loopdyn {
namespace {

// central differences with h = 1e-5 on smooth profiles of order 1: error ~1e-9
constexpr Scalar kStep = 1e-5;
constexpr Scalar kTolerance = 1e-6;

void expectDerivativesMatch(const Profile& p, Scalar t) {
  const ProfileValue at = p.evaluate(t);
  const ProfileValue plus = p.evaluate(t + kStep), minus = p.evaluate(t - kStep);
  EXPECT_NEAR(at.df, (plus.f - minus.f) / (2 * kStep), kTolerance) << p.kindName() << " at t = " << t;
  EXPECT_NEAR(at.ddf, (plus.df - minus.df) / (2 * kStep), kTolerance) << p.kindName() << " at t = " << t;
}

TEST(Profile, DerivativesMatchFiniteDifferences) {
  const Profile profiles[] = {Profile::constant(2), Profile::polynomial({1, -2, 0.5, 0.25}),
                              Profile::sine(0.1, 0.7, 0.3, 0.2), Profile::table({0, 1, 2, 4}, {0, 0.3, -0.1, 0.2})};
  for (const Profile& p : profiles)
    for (Scalar t : {0.13, 0.77, 1.5, 3.1}) expectDerivativesMatch(p, t);
}

TEST(Profile, TableInterpolatesItsPointsAndHoldsEndValuesWithZeroSlope) {
  const Profile p = Profile::table({0, 1, 2, 3}, {0, 1, 1, 0});
  EXPECT_NEAR(p.evaluate(1).f, 1, 1e-14);
  EXPECT_NEAR(p.evaluate(2).f, 1, 1e-14);
  EXPECT_NEAR(p.evaluate(0).df, 0, 1e-12);  // clamped spline: zero end slopes, so C1 when held
  EXPECT_NEAR(p.evaluate(3).df, 0, 1e-12);
  EXPECT_EQ(p.evaluate(-1).f, 0);
  EXPECT_EQ(p.evaluate(5).f, 0);
}

TEST(Profile, TableRejectsNonIncreasingTimes) {
  EXPECT_THROW(Profile::table({0, 1, 1}, {0, 1, 2}), InvalidArgument);
  EXPECT_THROW(Profile::table({0}, {0}), InvalidArgument);
}

}  // namespace
}  // namespace loopdyn
