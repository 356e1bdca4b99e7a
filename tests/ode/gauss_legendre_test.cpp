// One Gauss-Legendre collocation step (ode/gauss_legendre.hpp): its order, its collocation
// polynomial and derivative, and the iteration started from a guess, on y'' = -y (y = cos t).

#include "loopdyn/ode/gauss_legendre.hpp"
#include "oscillator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace loopdyn::ode {
namespace {

using test::kOscillator;
const VecX& kStart = test::kOscillatorStart;

TEST(GaussLegendreStep, IsOfOrderEight) {
  // one period in n steps: halving h divides the global error by 2^8 = 256 (s = 4 stages, order
  // 2s). Measured 242 and 253 at n = 4 -> 8 -> 16 (errors 8.5e-6, 3.5e-8, 1.4e-10); bounds 200 and 300
  const Scalar T = 2 * std::numbers::pi;
  Scalar previous = 0;
  for (int n : {4, 8, 16}) {
    GaussLegendreStep step(2);
    VecX y = kStart, y1;
    for (int k = 0; k < n; ++k) {
      ASSERT_EQ(step.step(kOscillator, k * T / n, y, T / n, y1), "");
      y = y1;
    }
    const Scalar error = std::hypot(y(0) - 1, y(1));
    if (previous > 0) {
      EXPECT_GT(previous / error, 200) << "n = " << n;
      EXPECT_LT(previous / error, 300) << "n = " << n;
    }
    previous = error;
  }
}

TEST(GaussLegendreStep, PolynomialMeetsItsEndsAndTheStages) {
  // the collocation polynomial u of a converged step: u(t0) = y0, u(t0 + h) = y1; at the nodes it
  // is the stage values Y_i, so a step over the first c_i of it from y0 lands on u(c_i h) to the
  // order of the shorter step (its error, 8th order in 0.07-0.93 h: below 1e-9 at h = 0.5)
  GaussLegendreStep step(2), part(2);
  VecX y1, u, y_part;
  const Scalar h = 0.5;
  ASSERT_EQ(step.step(kOscillator, 0, kStart, h, y1), "");
  step.interpolate(0, u);
  EXPECT_LT((u - kStart).norm(), 1e-15);
  step.interpolate(1, u);
  EXPECT_LT((u - y1).norm(), 1e-15);
  for (const Scalar c : GaussLegendreStep::nodes()) {
    step.interpolate(c, u);
    EXPECT_LT(std::hypot(u(0) - std::cos(c * h), u(1) + std::sin(c * h)), 1e-6) << "node " << c;
    ASSERT_EQ(part.step(kOscillator, 0, kStart, c * h, y_part), "");
    EXPECT_LT((y_part - (VecX(2) << std::cos(c * h), -std::sin(c * h)).finished()).norm(), 1e-9) << "node " << c;
  }
}

TEST(GaussLegendreStep, DerivativeIsFAtTheNodesAndOfOrderFourBetween) {
  // u' = f(u) at the nodes (to the iteration's tolerance, 1e-14 relative); between them u' is f's
  // interpolant, of order 4: at mid-step its error falls by 2^4 = 16 when h is halved (measured
  // 1.4e-5 at h = 0.5, 8.7e-7 at h = 0.25; ratio 16.0; bounds 12 and 20)
  GaussLegendreStep step(2);
  VecX y1, u, du, f(2);
  const Scalar h = 0.5;
  ASSERT_EQ(step.step(kOscillator, 0, kStart, h, y1), "");
  for (const Scalar c : GaussLegendreStep::nodes()) {
    step.interpolate(c, u);
    step.derivative(c, du);
    kOscillator(c * h, u.data(), f.data());
    EXPECT_LT((du - f).norm(), 1e-13) << "node " << c;
  }
  const auto midError = [&](Scalar length) {
    GaussLegendreStep s(2);
    VecX y, dy;
    EXPECT_EQ(s.step(kOscillator, 0, kStart, length, y), "");
    s.derivative(0.5, dy);
    return std::hypot(dy(0) + std::sin(0.5 * length), dy(1) + std::cos(0.5 * length));
  };
  const Scalar ratio = midError(h) / midError(h / 2);
  EXPECT_GT(ratio, 12);
  EXPECT_LT(ratio, 20);
}

TEST(GaussLegendreStep, AGuessFromAnEarlierStepSavesIterationsNotAccuracy) {
  // a step over the first 0.3 of an earlier one, started from that step's derivative, ends
  // where the one started from f(y0) does (1e-14; measured: the same bits) in fewer iterations
  // (measured 8 against 10), and evaluates nothing at y0
  GaussLegendreStep whole(2), plain(2), guessed(2);
  VecX y1, a, b;
  const Scalar h = 0.5;
  ASSERT_EQ(whole.step(kOscillator, 0, kStart, h, y1), "");
  ASSERT_EQ(plain.step(kOscillator, 0, kStart, 0.3 * h, a), "");
  ASSERT_EQ(guessed.step(kOscillator, 0, kStart, 0.3 * h, b, 1e-14, 1e-9, 60,
                         [&](Scalar t, VecX& dy) { whole.derivative(t / h, dy); }),
            "");
  EXPECT_LT((a - b).norm(), 1e-14);
  EXPECT_LT(guessed.iterations(), plain.iterations());
  EXPECT_EQ(guessed.evaluations(), 4 * guessed.iterations());
}

}  // namespace
}  // namespace loopdyn::ode
