// The 8th-order Dormand-Prince method (ode/dop853.hpp): its order, its dense output's order, its
// step-size control and its failures, on y'' = -y (y = cos t).

#include "loopdyn/ode/dop853.hpp"

#include "loopdyn/common/errors.hpp"
#include "oscillator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace loopdyn::ode {
namespace {

using test::kOscillator;
const VecX& kStart = test::kOscillatorStart;

/// Steps of exactly h: tolerances so loose that every step is accepted and max_step decides.
Options fixedStep(Scalar h) {
  Options options;
  options.rtol = options.atol = 1e3;
  options.max_step = h;
  return options;
}

TEST(Dop853, IsEighthOrder) {
  // one period in n steps of 2 pi / n: halving h divides the global error by 2^8 = 256. Measured
  // ratios 230 and 255 at n = 8 -> 16 -> 32 (the asymptotic range; the error at n = 32 is 9e-13,
  // far above rounding); bounds 200 and 300 leave a 7th-order method (128) and a 9th (512) out
  const Scalar T = 2 * std::numbers::pi;
  Scalar previous = 0;
  for (int n : {8, 16, 32}) {
    Dop853 method(kOscillator, 0, kStart, fixedStep(T / n));
    while (method.time() < T) ASSERT_TRUE(method.step(T).ok);
    const Scalar error = std::hypot(method.state()(0) - 1, method.state()(1));
    EXPECT_LE(method.statistics().steps, n + 1);
    EXPECT_EQ(method.statistics().rejected_steps, 0);
    if (previous > 0) {
      EXPECT_GT(previous / error, 200) << "n = " << n;
      EXPECT_LT(previous / error, 300) << "n = " << n;
    }
    previous = error;
  }
}

TEST(Dop853, DenseOutputIsSeventhOrder) {
  // inside a step of length h from y0 the interpolant's error against the exact flow from y0 (a
  // rotation by t - t0) is O(h^8): halving h divides it by 256 at every point. Measured at theta =
  // 0.3 and 0.7 for h = 0.8, 0.4, 0.2: ratios 257-263; bounds 200 and 300 (a 6th-order
  // interpolant gives 128)
  for (const Scalar theta : {0.3, 0.7}) {
    Scalar previous = 0;
    for (const Scalar h : {0.8, 0.4, 0.2}) {
      Dop853 method(kOscillator, 0, kStart, fixedStep(h));
      VecX y0;
      Scalar t0 = 0;
      do {  // (the first steps may be shorter: the starting step size is the method's choice)
        y0 = method.state(), t0 = method.time();
        ASSERT_TRUE(method.step(100).ok);
      } while (method.time() - t0 < h * (1 - 1e-12));
      VecX y;
      const Scalar s = theta * h;
      method.interpolate(t0 + s, y);
      const VecX exact = (VecX(2) << std::cos(s) * y0(0) + std::sin(s) * y0(1), -std::sin(s) * y0(0) + std::cos(s) * y0(1)).finished();
      const Scalar error = (y - exact).norm();
      if (previous > 0) {
        EXPECT_GT(previous / error, 200) << "theta " << theta << ", h " << h;
        EXPECT_LT(previous / error, 300) << "theta " << theta << ", h " << h;
      }
      previous = error;
      // and it meets the step's ends
      method.interpolate(method.time(), y);
      EXPECT_LT((y - method.state()).norm(), 1e-15);
      method.interpolate(t0, y);
      EXPECT_LT((y - y0).norm(), 1e-15);
    }
  }
}

TEST(Dop853, StopsAtTheStopTimeAndKeepsItsStepSize) {
  Options options;
  options.rtol = options.atol = 1e-10;
  Dop853 method(kOscillator, 0, kStart, options);
  for (int k = 0; k < 5; ++k) ASSERT_TRUE(method.step(100).ok);
  const Scalar h = method.nextStepSize();
  const Scalar t_stop = method.time() + 0.1 * h;
  ASSERT_TRUE(method.step(t_stop).ok);
  EXPECT_EQ(method.time(), t_stop);
  // the clipped step met its tolerance: the next one is tried at least as long as before
  EXPECT_GE(method.nextStepSize(), h);
  EXPECT_NEAR(method.state()(0), std::cos(t_stop), 1e-9);
}

TEST(Dop853, RetriesSmallerWhereTheRightHandSideAsksAndStopsWhereItFails) {
  Options options;
  options.rtol = options.atol = 1e-8;
  int refusals = 0;
  const Rhs refuses_once = [&](Scalar t, const Scalar* y, Scalar* ydot) {
    if (t > 1 && refusals == 0) return ++refusals;  // (> 0: retry with a smaller step)
    return kOscillator(t, y, ydot);
  };
  Dop853 retried(refuses_once, 0, kStart, options);
  while (retried.time() < 3) ASSERT_TRUE(retried.step(3).ok);
  EXPECT_EQ(refusals, 1);
  EXPECT_GE(retried.statistics().rejected_steps, 1);
  EXPECT_NEAR(retried.state()(0), std::cos(3.0), 1e-7);

  const Rhs fails = [](Scalar t, const Scalar* y, Scalar* ydot) { return t > 1 ? -1 : kOscillator(t, y, ydot); };
  Dop853 stopped(fails, 0, kStart, options);
  StepResult r;
  while (r.ok && stopped.time() < 3) r = stopped.step(3);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.failure, StepFailure::EquationsFailed) << stepFailureName(r.failure);
  EXPECT_GT(r.t, 1);  // (the stage that failed lies past t = 1, inside the step it could not take)
  EXPECT_LE(stopped.time(), 1);
  VecX y;
  EXPECT_THROW(stopped.interpolate(stopped.time(), y), InvalidArgument);  // (no accepted step to interpolate in)
}

}  // namespace
}  // namespace loopdyn::ode
