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

// A cubic motion sampled at uneven times: the not-a-knot splines reproduce it, so the trajectory's
// f, f' and f'' are exact everywhere, between the knots and beyond them (de Boor, ch. IV).
TEST(Profile, TrajectoryIsExactForACubicMotion) {
  const auto f = [](Scalar t) { return 0.3 - 1.2 * t + 0.7 * t * t - 0.4 * t * t * t; };
  const auto df = [](Scalar t) { return -1.2 + 1.4 * t - 1.2 * t * t; };
  const auto ddf = [](Scalar t) { return 1.4 - 2.4 * t; };
  const std::vector<Scalar> times{0, 0.1, 0.35, 0.5, 0.9, 1.0, 1.6};
  std::vector<Scalar> values, rates;
  for (Scalar t : times) values.push_back(f(t)), rates.push_back(df(t));
  for (const Profile& p : {Profile::trajectory(times, values), Profile::trajectory(times, values, rates)})
    for (Scalar t : {0.0, 0.05, 0.35, 0.61, 0.97, 1.6, 1.7}) {
      const ProfileValue at = p.evaluate(t);
      EXPECT_NEAR(at.f, f(t), 1e-13) << t;
      EXPECT_NEAR(at.df, df(t), 1e-12) << t;
      EXPECT_NEAR(at.ddf, ddf(t), 1e-11) << t;
    }
}

// Given rates are kept at the knots, and the curvature from them converges as h^3 (halving the
// spacing of a sine's knots divides the worst f'' error at the knots by about 8).
TEST(Profile, TrajectoryKeepsGivenRatesAndItsCurvatureConverges) {
  const auto worst = [](int n) {
    std::vector<Scalar> times, values, rates;
    for (int i = 0; i <= n; ++i) {
      const Scalar t = 2.0 * i / n;
      times.push_back(t), values.push_back(std::sin(3 * t)), rates.push_back(3 * std::cos(3 * t));
    }
    const Profile p = Profile::trajectory(times, values, rates);
    Scalar error = 0;
    for (std::size_t i = 0; i < times.size(); ++i) {
      const ProfileValue at = p.evaluate(times[i]);
      EXPECT_NEAR(at.f, values[i], 1e-15);
      EXPECT_NEAR(at.df, rates[i], 1e-13);
      error = std::max(error, std::abs(at.ddf + 9 * std::sin(3 * times[i])));
    }
    return error;
  };
  const Scalar coarse = worst(40), fine = worst(80);
  EXPECT_GT(coarse / fine, 6.0) << coarse << " " << fine;
  EXPECT_LT(fine, 1e-3);
  expectDerivativesMatch(Profile::trajectory({0, 1, 2, 4, 5}, {0, 0.3, -0.1, 0.2, 0.1}), 2.7);
}

TEST(Profile, TrajectoryRejectsTooFewOrUnorderedPoints) {
  EXPECT_THROW(Profile::trajectory({0, 1, 2}, {0, 1, 2}), InvalidArgument);
  EXPECT_THROW(Profile::trajectory({0, 1, 1, 2}, {0, 1, 2, 3}), InvalidArgument);
  EXPECT_THROW(Profile::trajectory({0, 1, 2, 3}, {0, 1, 2, 3}, {1, 1}), InvalidArgument);
}

}  // namespace
}  // namespace loopdyn
