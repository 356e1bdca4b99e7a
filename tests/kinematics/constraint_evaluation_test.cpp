// Finite-difference checks of Phi_q (= C), Phi_t, Psi and Gamma for every pair and driver type.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

// Central differences with step 1e-5 have truncation error ~1e-10 and round-off ~1e-11 on
// quantities of order 1; the tolerance leaves a factor of ~100 of margin and still catches any
// wrong term. Gamma is checked as the first difference of Phi' = C v + Phi_t along the path (C and
// Phi_t themselves checked against Phi first), extrapolated (Richardson): a second difference of
// Phi needs a step of 1e-4, whose truncation error, h^2 Phi''''/12, reaches 3e-5 on a random
// driver state.
constexpr Scalar kFirstStep = 1e-5;
constexpr Scalar kFirstTolerance = 1e-7;

/// Phi at positions q (+) tau v and time t + tau_t: the path on which velocities stay constant.
VecX phiAlong(const Model& model, KinematicsWorkspace& ws, const State& x, Scalar tau, Scalar tau_t) {
  State y = x;
  displacePositions(model, x.q, tau * x.v, y.q);
  y.t = x.t + tau_t;
  evaluateConstraints(model, ws, y);
  return ws.Phi;
}

/// Phi' = C v + Phi_t at q (+) tau v and t + tau: the rate of the holonomic rows along the path.
VecX phiRateAlong(const Model& model, KinematicsWorkspace& ws, const State& x, Scalar tau) {
  State y = x;
  displacePositions(model, x.q, tau * x.v, y.q);
  y.t = x.t + tau;
  evaluateConstraints(model, ws, y);
  return ws.C.dense().topRows(model.m()) * x.v + ws.b.head(model.m());
}

/// Psi(q (+) tau v) v: the Pfaffian rows along the same path.
VecX psiVelocityAlong(const Model& model, KinematicsWorkspace& ws, const State& x, Scalar tau) {
  State y = x;
  displacePositions(model, x.q, tau * x.v, y.q);
  evaluateConstraints(model, ws, y);
  return ws.C.dense().bottomRows(model.h()) * x.v;
}

class ConstraintDerivatives : public ::testing::TestWithParam<int> {};

TEST_P(ConstraintDerivatives, MatchFiniteDifferencesAtRandomStates) {
  const int dimension = GetParam();
  std::mt19937 rng(7 + dimension);
  for (int trial = 0; trial < 20; ++trial) {
    const Model model = compile(test::everyPairTypeSpec(dimension, rng));
    KinematicsWorkspace ws(model), probe(model);
    const State x = test::randomState(model, rng);
    evaluateConstraints(model, ws, x);
    const int m = model.m();

    // C v against d/dtau Phi(q (+) tau v, t)
    const VecX Cv = ws.C.dense().topRows(m) * x.v;
    const VecX fd_Cv = (phiAlong(model, probe, x, kFirstStep, 0) - phiAlong(model, probe, x, -kFirstStep, 0)) /
                       (2 * kFirstStep);
    for (int r = 0; r < m; ++r)
      EXPECT_NEAR(Cv(r), fd_Cv(r), kFirstTolerance) << "row " << model.equations()[r].name << " trial " << trial;

    // Phi_t against d/dt Phi(q, t)
    const VecX fd_t = (phiAlong(model, probe, x, 0, kFirstStep) - phiAlong(model, probe, x, 0, -kFirstStep)) /
                      (2 * kFirstStep);
    for (int r = 0; r < m; ++r)
      EXPECT_NEAR(ws.b(r), fd_t(r), kFirstTolerance) << "Phi_t row " << model.equations()[r].name;

    // Gamma = -d2/dtau2 Phi(q (+) tau v, t + tau) = -d/dtau (C v + Phi_t) (paper 001, eq. (9))
    // (Richardson's extrapolation of two central differences, truncation O(h^4): near a
    // degenerate direction a driver's rate has third derivatives of 3e4, 5e-7 error at h = 1e-5)
    const auto rateDifference = [&](Scalar h) {
      return VecX((phiRateAlong(model, probe, x, h) - phiRateAlong(model, probe, x, -h)) / (2 * h));
    };
    const VecX fd_rate = (4 * rateDifference(kFirstStep) - rateDifference(2 * kFirstStep)) / 3;
    for (int r = 0; r < m; ++r)
      EXPECT_NEAR(ws.Gamma(r), -fd_rate(r), kFirstTolerance) << "Gamma row " << model.equations()[r].name;

    // Pfaffian rows: Gamma = -d/dtau (Psi v) along the path
    if (model.h() > 0) {
      const VecX fd_psi = (psiVelocityAlong(model, probe, x, kFirstStep) - psiVelocityAlong(model, probe, x, -kFirstStep)) /
                          (2 * kFirstStep);
      for (int r = 0; r < model.h(); ++r)
        EXPECT_NEAR(ws.Gamma(m + r), -fd_psi(r), kFirstTolerance) << "Gamma row " << model.equations()[m + r].name;
    }
  }
}

/// C at q (+) tau v: the constraint matrix along the path of constant velocities.
MatX constraintMatrixAlong(const Model& model, KinematicsWorkspace& ws, const State& x, Scalar tau) {
  State y = x;
  displacePositions(model, x.q, tau * x.v, y.q);
  evaluateConstraints(model, ws, y);
  return ws.C.dense();
}

// C_rate (the rate jets' d(grad)/dt, every row: holonomic, Pfaffian and drivers) against the
// central difference of C along the same path, Richardson-extrapolated (truncation O(h^4), so the
// differences' error is rounding, 1e-16 / h ~ 1e-11 on entries of order 1-10: kFirstTolerance has
// 100x margin and catches any missing term, e.g. a rate of a marker's lever arm). The rest of the
// evaluation is bit for bit the plain one's: the rates ride along without changing C, b, Gamma.
TEST_P(ConstraintDerivatives, RateOfCMatchesFiniteDifferencesAtRandomStates) {
  const int dimension = GetParam();
  std::mt19937 rng(11 + dimension);
  for (int trial = 0; trial < 20; ++trial) {
    const Model model = compile(test::everyPairTypeSpec(dimension, rng));
    KinematicsWorkspace ws(model), plain(model), probe(model);
    const State x = test::randomState(model, rng);
    evaluateConstraintsAndRates(model, ws, x);
    evaluateConstraints(model, plain, x);
    EXPECT_EQ(ws.C.dense(), plain.C.dense());
    EXPECT_EQ(ws.b, plain.b);
    EXPECT_EQ(ws.Gamma, plain.Gamma);
    EXPECT_EQ(ws.Phi, plain.Phi);
    EXPECT_EQ(plain.C_rate.rows(), 0);  // (sized by a rates evaluation only)
    const auto difference = [&](Scalar h) {
      return MatX((constraintMatrixAlong(model, probe, x, h) - constraintMatrixAlong(model, probe, x, -h)) / (2 * h));
    };
    const MatX fd = (4 * difference(kFirstStep) - difference(2 * kFirstStep)) / 3;
    ASSERT_EQ(ws.C_rate.rows(), model.nc());
    for (int r = 0; r < model.nc(); ++r)
      for (int c = 0; c < model.nv(); ++c)
        EXPECT_NEAR(ws.C_rate.dense()(r, c), fd(r, c), kFirstTolerance)
            << "row " << model.equations()[static_cast<std::size_t>(r)].name << ", column " << c << ", trial " << trial;
  }
}

INSTANTIATE_TEST_SUITE_P(Planar, ConstraintDerivatives, ::testing::Values(2));
INSTANTIATE_TEST_SUITE_P(Spatial, ConstraintDerivatives, ::testing::Values(3));

TEST(ConstraintEvaluation, KnifeEdgeRowIsNormalVelocityOfContactPoint) {
  // paper 001, eq. (30): Psi v = n . v_K with n the marker's y-axis in world components
  const Model model = test::loadModel("mobile_robot");
  KinematicsWorkspace ws(model);
  std::mt19937 rng(3);
  const State x = test::randomState(model, rng);
  evaluateConstraints(model, ws, x);
  const Joint& w1 = model.joints()[static_cast<std::size_t>(model.pairIndex("W1"))];
  const BodyMotion m = bodyMotion(model, x.q, x.v, w1.first.body);
  const Vec3 n = m.R * w1.first.orientation.col(1);
  const Vec3 vk = m.v + m.w.cross(m.R * w1.first.position);
  EXPECT_NEAR((ws.C.dense().row(w1.row) * x.v)(0), n.dot(vk), 1e-14);
  EXPECT_EQ(ws.b(w1.row), 0.0);
}

// A workspace overwrites each row's blocks, and its dense C keeps its zeros between formations
// and is formed again after each evaluation: evaluating at x after other states (each one's dense
// C formed) gives exactly what a fresh workspace gives, for every pair type, planar and spatial
// (no stale entries, no stale dense copy).
TEST(ConstraintEvaluation, ReusedWorkspaceGivesWhatAFreshOneGives) {
  for (const int dimension : {2, 3}) {
    std::mt19937 rng(17 + dimension);
    const Model model = compile(test::everyPairTypeSpec(dimension, rng));
    KinematicsWorkspace reused(model);
    for (int trial = 0; trial < 5; ++trial) {
      const State x = test::randomState(model, rng);
      evaluateConstraints(model, reused, x);
      KinematicsWorkspace fresh(model);
      evaluateConstraints(model, fresh, x);
      EXPECT_EQ(reused.C.dense(), fresh.C.dense()) << dimension << "D, trial " << trial;
      EXPECT_EQ(reused.Phi, fresh.Phi) << dimension << "D, trial " << trial;
      EXPECT_EQ(reused.b, fresh.b) << dimension << "D, trial " << trial;
    }
  }
}

TEST(ConstraintEvaluation, RejectsStateOfWrongSize) {
  const Model model = test::loadModel("four_bar_planar");
  KinematicsWorkspace ws(model);
  State x{0, VecX::Zero(model.nq() + 1), VecX::Zero(model.nv()), {}, {}};
  EXPECT_THROW(evaluateConstraints(model, ws, x), InvalidArgument);
}

TEST(ConstraintScaling, AngularRowsAndRotationalColumnsUseCharacteristicLength) {
  const Model model = test::loadModel("four_bar_spatial");
  const ConstraintScaling s = model.scaling();
  const Scalar L = model.characteristicLength();
  EXPECT_EQ(s.row(model.pairs()[0].row + 3), L);  // O2.rx
  EXPECT_EQ(s.row(model.pairs()[0].row), 1.0);    // O2.x
  EXPECT_EQ(s.col(3), 1 / L);                     // crank w_x
  EXPECT_EQ(s.col(0), 1.0);                       // crank v_x
}

}  // namespace
}  // namespace loopdyn
