// A run's failure in words (reports/failure_text.hpp): each reason's sentence from its fields, as
// the command line and Python print it (the library keeps the codes: sim/simulation.hpp).

#include <gtest/gtest.h>

#include "failure_text.hpp"

namespace loopdyn {
namespace {

using Reason = RunFailure::Reason;

RunFailure failure(Reason reason, Scalar t) {
  RunFailure f;
  f.reason = reason;
  f.t = t;
  return f;
}

TEST(FailureText, AFailedStepSaysWhereTheMechanismWasAndWhatFailedIt) {
  RunFailure f = failure(Reason::TooManySteps, 0.5);
  f.steps = 1000;
  f.near = NearSingularity{14, 12, {"O3", "O2"}};
  f.cause = Problem::of(Problem::Kind::TreeMassNotPositiveDefinite);
  EXPECT_EQ(reports::failureText(f),
            "more than 1000 steps (step size collapsed) at t = 0.500000 s near a singular configuration (rank 14 -> 12) "
            "involving O3, O2 (the tree's mass matrix J^T M J is not positive definite)");
  f = failure(Reason::IntegratorGaveUp, 1);
  f.integrator = {false, ode::StepFailure::SolverError, 0.875, -22};
  EXPECT_EQ(reports::failureText(f), "integrator error -22 at t = 0.875 s");
  f.integrator = {false, ode::StepFailure::ErrorTestFailures, 0.5, 0};
  EXPECT_EQ(reports::failureText(f), "step size too small: repeated error-test failures at t = 0.5 s");
}

TEST(FailureText, ACollapsedStepSizeSaysByHowMuch) {
  RunFailure f = failure(Reason::StepsCollapsed, 0.25);
  f.t_from = 0.125;
  f.steps = 5000;
  f.value = 2.5e-8;
  f.limit = 1e-6;
  f.scale = 0.23;
  f.rtol = 1e-10;
  EXPECT_EQ(reports::failureText(f),
            "from t = 0.125000 s to t = 0.250000 s the integrator took 5000 steps of 2.5e-08 s on average, below 1e-06 "
            "of the motion's time scale (0.23 s): its error test cannot pass on a right-hand side that is not smooth at "
            "rtol 1e-10 (the rounding of an ill-conditioned evaluation, or a lock-up forming); a looser rtol, another "
            "integrator or another method may pass");
}

TEST(FailureText, TheChecksSayTheirNumbersAndWhere) {
  RunFailure f = failure(Reason::PositionsViolated, 2);
  f.value = 0.05;
  f.limit = 0.01;
  f.bound = 0.01;
  EXPECT_EQ(reports::failureText(f),
            "the integrated positions violated the constraints by 0.05 (scaled) at a sample, above 0.01 (0.01 of the "
            "characteristic length) at t = 2.000000 s");
  f.at_step_end = true;
  f.limit = 1e-6;
  EXPECT_EQ(reports::failureText(f),
            "the integrated positions violated the constraints by 0.05 (scaled) at a step's end, above 1e-06 (the "
            "smaller of 100 x the projection trigger and 0.01 of the characteristic length) at t = 2.000000 s");
  f = failure(Reason::EnergyDrift, 0.75);
  f.value = 0.002;
  f.limit = 1e-4;
  f.rtol = 1e-8;
  EXPECT_EQ(reports::failureText(f),
            "the energy balance drifted by 0.002 of the energy scale, above the 0.0001 a correct run keeps at rtol 1e-08 "
            "(largest at t = 0.750000 s): the result is not trustworthy");
}

TEST(FailureText, TheConstraintsThatNoLongerHoldTheMotionAreNamed) {
  RunFailure f = failure(Reason::VelocitiesUnheld, 0.5);
  f.value = 3e-5;
  f.limit = 100;
  EXPECT_EQ(reports::failureText(f),
            "at t = 0.500000 s the velocities violate the constraints by 3e-05 (scaled, per unit of speed) after their "
            "projection, above 100 x the projection trigger: the constraints no longer admit the motion's velocities");
  f = failure(Reason::ProjectionFailed, 0.5);
  f.detail = "no convergence";
  EXPECT_EQ(reports::failureText(f),
            "at t = 0.500000 s the state could not be projected onto the constraints: no convergence");
  f = failure(Reason::LeftBranch, 0.714);
  f.near = NearSingularity{14, 12, {"O3"}};
  EXPECT_EQ(reports::failureText(f), "the motion left its branch at the singular configuration at t = 0.714000 s near a "
                                     "singular configuration (rank 14 -> 12) involving O3");
  f = failure(Reason::LockUp, 0.5);
  f.t_from = 0.25;
  f.rank_regular = 8;
  f.equation = "WFR.y of WFR";
  f.ratio = 0.01;
  f.motions = 0;
  EXPECT_EQ(reports::failureText(f),
            "between t = 0.250000 s and t = 0.500000 s the constraints lock the mechanism: the rank of C rose from 8 to 9 "
            "(WFR.y of WFR became independent of the others; |R_rr|/|R_11| = 0.01), so 0 motion(s) are admissible "
            "where the motion so far had 1; a rigid model stops it with an impulse that the equations of motion do not "
            "contain (drivers or knife edges that contradict each other, e.g. steering angles whose wheel axles no "
            "longer meet in one point)");
  EXPECT_EQ(reports::failureText(RunFailure{}), "");
}

}  // namespace
}  // namespace loopdyn
