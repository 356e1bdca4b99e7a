// Every integrator reaches its tolerance on a problem with a known solution.

#include "loopdyn/ode/integrator.hpp"
#include "oscillator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace loopdyn::ode {
namespace {

/// y'' = -y, y(0) = 1, y'(0) = 0: y = cos t. Integrated over one period; the error is measured
/// against the exact solution at the time reached.
Scalar errorAfterOnePeriod(Method method, const Options& options, Statistics* stats = nullptr) {
  const Rhs& rhs = test::kOscillator;
  const Scalar T = 2 * std::numbers::pi;
  Integrator integrator(method, rhs, 0, (VecX(2) << 1, 0).finished(), options);
  while (integrator.time() < T) {
    const StepResult r = integrator.step(T);
    EXPECT_TRUE(r.ok) << stepFailureName(r.failure);
    if (!r.ok) break;
  }
  if (stats != nullptr) *stats = integrator.statistics();
  const Scalar t = integrator.time();
  return std::hypot(integrator.state()(0) - std::cos(t), integrator.state()(1) + std::sin(t));
}

TEST(Integrator, AdaptiveMethodsReachTheirTolerance) {
  for (Method method : {Method::Dopri5, Method::Bs23, Method::Adams, Method::Dop853}) {
    Scalar previous = 1;
    for (Scalar rtol : {1e-4, 1e-7, 1e-10}) {
      Options options;
      options.rtol = rtol;
      options.atol = rtol;
      Statistics stats;
      const Scalar error = errorAfterOnePeriod(method, options, &stats);
      // global error over one period: a bounded multiple of the local tolerance, and it must
      // shrink as the tolerance does. Local errors accumulate over the steps: measured 0.4-60 x
      // rtol for the Runge-Kutta pairs, up to 140 x for variable-order Adams (whose local error
      // estimate is cruder); bounds: 100 x and 1000 x
      const Scalar factor = method == Method::Adams ? 1000 : 100;
      EXPECT_LT(error, factor * rtol) << methodName(method) << " rtol " << rtol;
      EXPECT_LT(error, previous) << methodName(method) << " rtol " << rtol;
      EXPECT_GT(stats.steps, 0);
      EXPECT_GE(stats.rhs_evaluations, stats.steps);
      previous = error;
    }
  }
}

TEST(Integrator, Rk4IsFourthOrderWithFourEvaluationsPerStep) {
  // Halving the step must divide the global error by 2^4 = 16 (ratio between 14 and 18: the
  // asymptotic range is reached at h = T/64 for y'' = -y), at 4 right-hand sides per step.
  Scalar previous = 0;
  for (int n : {64, 128, 256}) {
    Options options;
    options.fixed_step = 2 * std::numbers::pi / n;
    Statistics stats;
    const Scalar error = errorAfterOnePeriod(Method::Rk4, options, &stats);
    EXPECT_EQ(stats.steps, n);
    EXPECT_LE(stats.rhs_evaluations, 4 * n + 1);
    EXPECT_GE(stats.rhs_evaluations, 4 * n);
    if (previous > 0) {
      EXPECT_GT(previous / error, 14) << "n = " << n;
      EXPECT_LT(previous / error, 18) << "n = " << n;
    }
    previous = error;
  }
}

TEST(Integrator, DenseOutputInsideTheLastStep) {
  const Rhs& rhs = test::kOscillator;
  Options options;
  options.rtol = options.atol = 1e-10;
  Integrator integrator(Method::Dopri5, rhs, 0, (VecX(2) << 1, 0).finished(), options);
  VecX y;
  for (int k = 0; k < 5; ++k) {
    const Scalar t0 = integrator.time();
    ASSERT_TRUE(integrator.step(10).ok);
    const Scalar t = 0.5 * (t0 + integrator.time());
    integrator.interpolate(t, y);
    // ARKODE's Hermite interpolant: accurate to about the local tolerance
    EXPECT_NEAR(y(0), std::cos(t), 1e-8);
  }
}

TEST(Integrator, ResetKeepsCountingAndContinuesFromTheNewState) {
  const Rhs& rhs = test::kOscillator;
  for (Method method : {Method::Dopri5, Method::Bs23, Method::Adams, Method::Rk4, Method::Dop853}) {
    Options options;
    options.rtol = options.atol = 1e-10;
    options.fixed_step = 1e-3;
    Integrator integrator(method, rhs, 0, (VecX(2) << 1, 0).finished(), options);
    for (int k = 0; k < 20; ++k) ASSERT_TRUE(integrator.step(10).ok);
    const Statistics before = integrator.statistics();
    // restart on the exact solution shifted by a quarter period: sin-like from here on
    const Scalar t = integrator.time();
    integrator.reset(t, (VecX(2) << std::cos(t - 1), -std::sin(t - 1)).finished());
    while (integrator.time() < t + 0.5) ASSERT_TRUE(integrator.step(t + 0.5).ok);
    const Statistics after = integrator.statistics();
    EXPECT_GT(after.steps, before.steps) << methodName(method);
    EXPECT_GT(after.rhs_evaluations, before.rhs_evaluations) << methodName(method);
    // the solution after the reset is the one through the new state (error at the tolerance)
    EXPECT_NEAR(integrator.state()(0), std::cos(integrator.time() - 1), 1e-7) << methodName(method);
  }
}

TEST(Integrator, NamesRoundTrip) {
  for (Method m : {Method::Dopri5, Method::Bs23, Method::Adams, Method::Rk4, Method::Dop853}) EXPECT_EQ(methodFromName(methodName(m)), m);
  EXPECT_FALSE(methodFromName("euler"));
}

}  // namespace
}  // namespace loopdyn::ode
