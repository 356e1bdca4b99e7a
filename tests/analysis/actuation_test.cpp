// The actuation of a mechanism (loopdyn/actuation_analysis.hpp, analysis/actuation.hpp): what its
// actuators control, their redundancy and preloads, and where actuation is singular -- at the pose
// and along a sweep of one actuator, against derivations by hand.

#include "loopdyn/actuation_analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "loopdyn/io/model_reader.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

ActuationReport actuationOf(const std::string& model, const std::vector<std::string>& actuators, const std::string& sweep = "") {
  ActuationRequest request;
  request.actuators = actuators;
  if (!sweep.empty()) {
    EXPECT_EQ(parseSweep(sweep, request.sweep), "");
  }
  return analyzeActuation(io::readModelFile(test::modelPath(model)), request);
}

// The 3-RPR with radial legs (models/three_rpr_singular.yaml), its drivers the actuators: they
// control the platform's three freedoms but not at this pose, where equal forces in the three
// legs (unit vectors at 120 degrees summing to zero, no moment about the centre) balance.
TEST(Actuation, SaysWhereTheActuatorsStopControllingAndAlongWhichTheEffortsGrow) {
  const ActuationReport r = actuationOf("three_rpr_singular", {"D1", "D2", "D3"});
  EXPECT_EQ(r.freedoms, 3);
  EXPECT_EQ(r.controlled, 3);
  EXPECT_EQ(r.redundancy, 0);
  ASSERT_TRUE(r.pose.singular);
  ASSERT_EQ(r.pose.unbounded.size(), 1u);
  EXPECT_LT((r.pose.unbounded.front() - Vec3::Constant(1 / std::sqrt(3.0))).norm(), 1e-9);
}

// The lift's two motors and a third actuator in the passive arm: one freedom, three actuators,
// two preloads; none of the efforts is determined.
TEST(Actuation, CountsTheRedundancyOfActuationAndItsPreloads) {
  const ActuationReport r = actuationOf("parallelogram_lift_two_motors", {"G3"});
  EXPECT_EQ(r.drivers, (std::vector<std::string>{"motor1", "motor2", "G3.actuator"}));
  EXPECT_EQ(r.freedoms, 1);
  EXPECT_EQ(r.controlled, 1);
  EXPECT_EQ(r.redundancy, 2);
  EXPECT_EQ(r.preloads.size(), 2u);
  EXPECT_EQ(r.non_unique_efforts.size(), 3u);
  EXPECT_FALSE(r.pose.singular);
}

// The slider-crank driven by its slider (crank 0.2 m, rod 0.6 m): the slider's reach ends at the
// dead centres x = 0.6 -+ 0.2 m, where it cannot turn the crank -- the sweep finds each edge
// between its points and calls it singular.
TEST(Actuation, ASweepOfOneActuatorEndsAtTheSingularityWhereItsPathTurns) {
  for (const auto& [sweep, edge] : {std::pair{"rail.distance=0.7:0.9:4", 0.8}, std::pair{"rail.distance=0.5:0.33:4", 0.4}}) {
    const ActuationReport r = actuationOf("slider_crank", {"rail"}, sweep);
    ASSERT_EQ(r.sweep.size(), 4u) << sweep;
    EXPECT_TRUE(r.sweep[0].assembled && r.sweep[1].assembled && !r.sweep[3].assembled) << sweep;
    ASSERT_EQ(r.crossings.size(), 1u) << sweep;
    EXPECT_TRUE(r.crossings.front().edge);
    EXPECT_TRUE(r.crossings.front().singular);
    EXPECT_NEAR(r.crossings.front().value, edge, 1e-6) << sweep;
  }
}

// A sweep moves an actuator: of another joint, or with freedoms left free, its path is not
// determined; a joint the model drives already is named by its driver.
TEST(Actuation, RequestProblemsNameTheField) {
  const auto problem = [](const std::string& model, const std::vector<std::string>& actuators, const std::string& sweep) {
    try {
      actuationOf(model, actuators, sweep);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(problem("slider_crank", {"rail"}, "O.angle=0:1:3").rfind("sweep: 'O' is not an actuated joint", 0), 0u);
  EXPECT_EQ(problem("hdca_case1_four_body_loop", {"A"}, "A.angle=0:1:3").rfind("sweep: the actuators leave 1 freedom(s)", 0), 0u);
  EXPECT_EQ(problem("five_bar", {"A"}, "").rfind("actuators: joint 'A' is driven by the model's driver 'drive1'", 0), 0u);
}

}  // namespace
}  // namespace loopdyn
