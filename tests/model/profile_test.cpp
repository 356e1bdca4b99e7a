#include "loopdyn/model/profile.hpp"

#include <gtest/gtest.h>

#include <cmath>

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

// The table's ends belong to its spline: at the first time the profile is the limit from the
// right (a simulation starts there and goes forward), at the last the limit from the left, f''
// included (M_0 and M_n-1, nonzero here). Held at the ends' values, f'' jumped at the first time:
// the mobile robot's accelerations were 0 at t = 0 and 0.34 m/s^2 a nanosecond later.
// Tolerances: the spline's f, f', f'' move by O(1e-9) over 1e-9 s.
TEST(Profile, TableEndsAreTheSplinesOwn) {
  const Profile p = Profile::table({0, 1, 2, 3}, {0, 0, 1, 1});
  const ProfileValue first = p.evaluate(0), after = p.evaluate(1e-9);
  const ProfileValue last = p.evaluate(3), before = p.evaluate(3 - 1e-9);
  ASSERT_GT(std::abs(first.ddf), 0.1);
  ASSERT_GT(std::abs(last.ddf), 0.1);
  EXPECT_NEAR(first.f, after.f, 1e-8);
  EXPECT_NEAR(first.df, after.df, 1e-8);
  EXPECT_NEAR(first.ddf, after.ddf, 1e-8);
  EXPECT_NEAR(last.f, before.f, 1e-8);
  EXPECT_NEAR(last.df, before.df, 1e-8);
  EXPECT_NEAR(last.ddf, before.ddf, 1e-8);
  EXPECT_EQ(p.evaluate(-1e-9).ddf, 0);  // held outside
}

TEST(Profile, TableRejectsNonIncreasingTimes) {
  EXPECT_THROW(Profile::table({0, 1, 1}, {0, 1, 2}), InvalidArgument);
  EXPECT_THROW(Profile::table({0}, {0}), InvalidArgument);
}

}  // namespace
}  // namespace loopdyn
