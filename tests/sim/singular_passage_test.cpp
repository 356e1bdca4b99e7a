// Through singular configurations exactly (issue 14): the IFToMM double four-bar and its N-loop
// ladders against their exact motion.
//
// The exact motion: support/ladder_oracle.hpp. All bars are horizontal, the rank of C drops by
// 2 N, whenever cos theta = 0: ten times in 10 s for N = 2.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/projection.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "support/ladder_oracle.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

constexpr Scalar kEnd = 10, kSample = 0.01;

using Oracle = test::LadderOracle;

struct LadderRun {
  SimulationResult result;
  Scalar position_error = 0, velocity_error = 0;  ///< of B0, max over the samples (m, m/s)
};

/// Simulates the ladder and compares B0 (twice crank 1's centre) with the oracle at each sample.
LadderRun simulateLadder(const Model& model, const Oracle& oracle, const std::string& method, ode::Method integrator, Scalar rtol) {
  const State x0 = test::assembledInitialState(model);
  KinematicsWorkspace kin(model);
  const int rank = analyzeConstraints(model, kin, x0).generic_rank;
  LagrangeFormulation lagrange;
  ProjectionFormulation projection(model, rank);
  Formulation& formulation = method == "lagrange" ? static_cast<Formulation&>(lagrange) : projection;
  SimulationOptions options = test::accurateOptions(kEnd, rtol, kSample);
  options.integrator = integrator;
  options.generic_rank = rank;
  LadderRun out;
  std::size_t k = 0;
  out.result = simulate(model, formulation, x0, options, [&](const Sample& s, const DynamicsWorkspace&) {
    const Vec2 B0(2 * s.x.q(0), 2 * s.x.q(1)), V0(2 * s.x.v(0), 2 * s.x.v(1));
    Vec2 exact, exact_v;
    oracle.tip(k, exact.x(), exact.y(), exact_v.x(), exact_v.y());
    out.position_error = std::max(out.position_error, (B0 - exact).norm());
    out.velocity_error = std::max(out.velocity_error, (V0 - exact_v).norm());
    ++k;
  });
  return out;
}

/// Crossings of the horizontal in 10 s: cos theta changes sign between samples.
int horizontalCrossings(const Oracle& oracle) {
  int count = 0;
  for (std::size_t k = 1; k < oracle.theta.size(); ++k)
    count += std::cos(oracle.theta[k - 1]) * std::cos(oracle.theta[k]) < 0;
  return count;
}

struct Series {
  const char* method;
  ode::Method integrator;
  std::vector<Scalar> rtols;
  /// B0's position error at the tightest rtol must stay below this (m). Why each: the
  /// integrators' own error on the exact one-degree-of-freedom equation at these tolerances,
  /// measured with the same SUNDIALS methods: dopri5 7e-8 at rtol 1e-10 on theta (which grows to
  /// 31 rad) and 5e-10 at 1e-12; adams 4e-7 at 1e-10 and 1.7e-8 at 1e-12. The mechanism's runs do
  /// better (angles measured modulo pi, ode/integrator.hpp): measured at the tightest rtol, 2 / 4
  /// loops, lagrange/dopri5 7e-10 / 3.6e-9, projection/dopri5 1.2e-8 / 4.8e-9, lagrange/adams
  /// 4.3e-9 / 1.9e-9, projection/adams 1.9e-7 / 7.7e-8 at 1e-10. Projection with adams goes no
  /// further: every re-orthogonalisation of its basis restarts adams at order 1 (at 1e-12: 50 000
  /// steps, error 6e-8), docs/formulations.md.
  Scalar final_bound;
};

class LadderPassage : public testing::TestWithParam<int> {};

// Every crossing is passed on the parallelogram branch, the error of B0 falls with the tolerance
// (by more than 3x per decade of rtol, as the integration error does) and reaches the exact
// motion to the integrator's accuracy; a convergence table is printed.
TEST_P(LadderPassage, FollowsItsExactMotionThroughEveryCrossing) {
  const int loops = GetParam();
  const Model model = compile(test::fourBarLadderSpec({loops, true, false}));
  const Oracle oracle(loops, kEnd, kSample);
  const int crossings = horizontalCrossings(oracle);
  ASSERT_GE(crossings, 8);
  const std::vector<Series> series{
      {"lagrange", ode::Method::Dopri5, {1e-6, 1e-8, 1e-10}, 1e-8},
      {"projection", ode::Method::Dopri5, {1e-6, 1e-8, 1e-10}, 3e-8},
      {"lagrange", ode::Method::Adams, {1e-8, 1e-10, 1e-12}, 1e-8},
      {"projection", ode::Method::Adams, {1e-8, 1e-10}, 3e-7},
  };
  std::printf("%d-loop ladder, 10 s, %d crossings of the horizontal\n", loops, crossings);
  for (const Series& s : series) {
    Scalar previous = 0;
    for (std::size_t i = 0; i < s.rtols.size(); ++i) {
      const LadderRun r = simulateLadder(model, oracle, s.method, s.integrator, s.rtols[i]);
      ASSERT_TRUE(r.result.ok) << s.method << " rtol " << s.rtols[i] << ": " << r.result.failure;
      // (every crossing is an event, at every tolerance)
      EXPECT_EQ(static_cast<int>(r.result.passages.size()), crossings) << s.method << " rtol " << s.rtols[i];
      for (const SingularPassage& p : r.result.passages) EXPECT_LT(p.branch_change, kBranchChange);
      std::printf("  %-10s %-6s rtol %.0e: B0 position %.2e m, velocity %.2e m/s, energy %.1e, %ld steps\n", s.method,
                  std::string(ode::methodName(s.integrator)).c_str(), s.rtols[i], r.position_error, r.velocity_error,
                  r.result.energy_drift_max / r.result.energy_scale, r.result.statistics.steps);
      if (i > 0) {
        EXPECT_LT(r.position_error, previous / 3) << s.method << " rtol " << s.rtols[i];
      }
      previous = r.position_error;
    }
    EXPECT_LT(previous, s.final_bound) << s.method << " " << ode::methodName(s.integrator);
  }
}

INSTANTIATE_TEST_SUITE_P(Ladders, LadderPassage, testing::Values(2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "_loops"; });

// The variants of the same mechanism and motion: the rod inertia written with 11 digits
// (0.08333333333, the bundled file) and the initial velocity given for every body instead of one
// crank's. They follow the exact motion as closely (lagrange, dopri5, rtol 1e-10): the outcome no
// longer depends on the 11th digit of an inertia (with 0.08333333333, J differs from the exact
// one by 4e-11 relative: 4e-10 m of B0 over 10 s).
TEST(LadderPassage, SameMotionWhateverTheDigitsOfTheInertiaOrTheVelocitiesGiven) {
  const Oracle oracle(2, kEnd, kSample);
  for (const bool exact : {true, false}) {
    for (const bool bodies : {false, true}) {
      const Model model = compile(test::fourBarLadderSpec({2, exact, bodies}));
      const LadderRun r = simulateLadder(model, oracle, "lagrange", ode::Method::Dopri5, 1e-10);
      ASSERT_TRUE(r.result.ok) << r.result.failure;
      EXPECT_LT(r.position_error, 1e-8) << "exact inertia " << exact << ", body velocities " << bodies;
      EXPECT_LT(r.velocity_error, 1e-7) << "exact inertia " << exact << ", body velocities " << bodies;
      EXPECT_EQ(r.result.passages.size(), 10u);
    }
  }
}

}  // namespace
}  // namespace loopdyn
