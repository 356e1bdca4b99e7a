// Inverse dynamics (issue 50): a prescribed motion's efforts and reactions against forward
// dynamics, redundant actuation's non-unique efforts, and the poses where actuation fails.

#include "loopdyn/inverse.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/loopdyn.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// Column `name` of a table's values.
VecX column(const std::vector<std::string>& names, const MatX& values, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return it == names.end() ? VecX() : VecX(values.col(it - names.begin()));
}

/// The largest difference of the columns both tables have (but t, the violations -- the integration's
/// drift against the inverse run's residuals -- and `skip`) whose values are unique in both,
/// relative to the forward column's largest value (at least 1e-3).
Scalar worstRelativeDifference(const Trajectory& forward, const InverseTable& inverse,
                               const std::vector<std::string>& skip) {
  Scalar worst = 0;
  for (std::size_t j = 0; j < inverse.columns.size(); ++j) {
    const std::string& name = inverse.columns[j];
    const auto in = [&](const std::vector<std::string>& list) { return std::find(list.begin(), list.end(), name) != list.end(); };
    if (name == "t" || name.rfind("violation.", 0) == 0 || in(skip) || in(inverse.non_unique) || in(forward.non_unique)) continue;
    const auto f = std::find(forward.columns.begin(), forward.columns.end(), name);
    if (f == forward.columns.end()) continue;
    const VecX a = forward.values.col(f - forward.columns.begin()), b = inverse.values.col(static_cast<Eigen::Index>(j));
    worst = std::max(worst, (a - b).cwiseAbs().maxCoeff() / std::max<Scalar>(a.cwiseAbs().maxCoeff(), 1e-3));
  }
  return worst;
}

/// `loopdyn simulate`'s table written as its CSV would be (every digit kept).
std::string writeCsv(const Trajectory& run, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream out(path);
  for (std::size_t j = 0; j < run.columns.size(); ++j) out << (j ? "," : "") << run.columns[j];
  out << '\n';
  char text[32];
  for (Eigen::Index i = 0; i < run.values.rows(); ++i) {
    for (Eigen::Index j = 0; j < run.values.cols(); ++j) {
      std::snprintf(text, sizeof text, "%.17g", run.values(i, j));
      out << (j ? "," : "") << text;
    }
    out << '\n';
  }
  return path;
}

SimulationRequest accurate(Scalar t_end, Scalar sample) {
  SimulationRequest r;
  r.t_end = t_end;
  r.sample = sample;
  r.rtol = 1e-11;
  r.columns = {"all"};
  return r;
}

// The bundled models whose drivers prescribe every freedom: the efforts and the unique reactions
// of the prescribed motion are forward dynamics' own (which integrates that motion to rtol).
TEST(InverseDynamics, DriversEffortsAndReactionsAreForwardDynamicsOwn) {
  for (const char* name : {"five_bar", "three_rpr", "stewart_platform", "jansen_linkage"}) {
    const ModelSpec spec = io::readModelFile(test::modelPath(name));
    const Trajectory forward = simulateModel(compile(spec), accurate(0.5, 0.05));
    ASSERT_TRUE(forward.result.ok) << name;
    InverseRequest request;
    request.t_end = 0.5;
    request.sample = 0.05;
    const InverseTable inverse = inverseModel(spec, request);
    ASSERT_TRUE(inverse.result.ok()) << name;
    ASSERT_EQ(inverse.values.rows(), forward.values.rows()) << name;
    EXPECT_LT(worstRelativeDifference(forward, inverse, {}), 1e-8) << name;
    EXPECT_LT(inverse.result.max_acceleration_residual, 1e-9) << name;
  }
}

// A motor's torque recovered from the motion it caused: simulate's CSV (joint angles and rates
// every 1 ms) is the trajectory of the crank's joint. Inside it the effort comes back to 1e-8 of
// the 2 N m and every unique reaction and the bodies' motion are simulate's; at the last knots the
// spline's end condition and the one-sided differentiation of the data leave more (measured
// 3.4e-7 relative at the last knot, decaying inwards by 2 - sqrt(3) a knot: profile.hpp).
TEST(InverseDynamics, RecoversAJointEffortFromTheMotionItCaused) {
  const ModelSpec spec = io::readModelFile(test::modelPath("slider_crank"));
  const Trajectory forward = simulateModel(compile(spec), accurate(0.4, 0.001));
  ASSERT_TRUE(forward.result.ok);
  InverseRequest request;
  request.actuators = {"motor"};
  request.trajectory = writeCsv(forward, "loopdyn_inverse_slider_crank.csv");
  const InverseTable inverse = inverseModel(spec, request);
  std::filesystem::remove(request.trajectory);
  ASSERT_TRUE(inverse.result.ok());
  EXPECT_EQ(inverse.drivers, std::vector<std::string>{"motor"});
  const VecX error = column(inverse.columns, inverse.values, "motor.effort").array() - 2;
  const Eigen::Index inside = error.size() - 8;  // (the end condition's error decays below 1e-8 by then)
  EXPECT_LT(error.head(inside).cwiseAbs().maxCoeff(), 2e-8);
  EXPECT_LT(error.cwiseAbs().maxCoeff(), 2e-6);
  Trajectory forward_inside = forward;
  forward_inside.values = forward.values.topRows(inside);
  InverseTable inverse_inside = inverse;
  inverse_inside.values = inverse.values.topRows(inside);
  EXPECT_LT(worstRelativeDifference(forward_inside, inverse_inside, {"motor.effort"}), 1e-8);
}

// A planned trajectory with its rates and accelerations (J.q1, J.v1, J.a1): the five-bar's two
// sines every 20 ms, written from the drivers' own profiles, in as the trajectory of actuators in
// A and E. At every knot -- the ends too -- the profiles take the data's f, f' and f'', so the
// efforts are those of the drivers' exact profiles to rounding; from the values and rates alone
// the spline's f'' misses at the ends.
TEST(InverseDynamics, GivenAccelerationsMakeEveryKnotExact) {
  const ModelSpec spec = io::readModelFile(test::modelPath("five_bar"));
  InverseRequest exact_request;
  exact_request.t_end = 0.4;
  exact_request.sample = 0.02;
  const InverseTable exact = inverseModel(spec, exact_request);
  ASSERT_TRUE(exact.result.ok());
  const std::string path = (std::filesystem::temp_directory_path() / "loopdyn_inverse_five_bar_planned.csv").string();
  const auto write = [&](bool accelerations) {
    std::ofstream out(path);
    out << "t,A.q1,A.v1" << (accelerations ? ",A.a1" : "") << ",E.q1,E.v1" << (accelerations ? ",E.a1" : "") << '\n';
    char text[32];
    for (Eigen::Index i = 0; i < exact.values.rows(); ++i) {
      const Scalar t = column(exact.columns, exact.values, "t")(i);
      std::snprintf(text, sizeof text, "%.17g", t);
      out << text;
      for (const DriverSpec& d : spec.drivers) {
        const ProfileValue f = d.profile.evaluate(t);
        const Scalar values[] = {f.f, f.df, f.ddf};
        for (int k = 0; k < (accelerations ? 3 : 2); ++k) {
          std::snprintf(text, sizeof text, "%.17g", values[k]);
          out << ',' << text;
        }
      }
      out << '\n';
    }
  };
  ModelSpec undriven = spec;
  undriven.drivers.clear();
  InverseRequest request;
  request.actuators = {"A", "E"};
  request.trajectory = path;
  const auto worst = [&](const InverseTable& run) {
    Scalar w = 0;
    for (const auto& [mine, theirs] : {std::pair{"A.actuator.effort", "drive1.effort"}, std::pair{"E.actuator.effort", "drive2.effort"}}) {
      const VecX a = column(run.columns, run.values, mine), b = column(exact.columns, exact.values, theirs);
      w = std::max(w, (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff());
    }
    return w;
  };
  write(true);
  const InverseTable planned = inverseModel(undriven, request);
  write(false);
  const InverseTable rates_only = inverseModel(undriven, request);
  std::filesystem::remove(path);
  ASSERT_TRUE(planned.result.ok());
  ASSERT_TRUE(rates_only.result.ok());
  EXPECT_LT(worst(planned), 1e-9);
  EXPECT_GT(worst(rates_only), 1e-6);  // (the end knots' spline error)
}

// The five-bar with a third actuator in the passive joint B: three efforts for two freedoms. None
// is unique (an internal preload between the three leaves the motion as it is), and the run says
// so; what is unique is their power along the motion, sum_i effort_i * rate_i = (F - M a) . v
// (the joints' reactions do no work on an admissible motion), which equals the two-actuator run's.
TEST(InverseDynamics, RedundantActuationHasNonUniqueEffortsWithTheirPowerUnique) {
  const ModelSpec spec = io::readModelFile(test::modelPath("five_bar"));
  const Trajectory forward = simulateModel(compile(spec), accurate(0.3, 0.001));
  ASSERT_TRUE(forward.result.ok);
  InverseRequest request;
  request.trajectory = writeCsv(forward, "loopdyn_inverse_five_bar.csv");
  const InverseTable two = inverseModel(spec, request);
  request.actuators = {"B"};
  const InverseTable three = inverseModel(spec, request);
  std::filesystem::remove(request.trajectory);
  ASSERT_TRUE(two.result.ok());
  ASSERT_TRUE(three.result.ok()) << three.result.max_acceleration_residual;
  for (const char* effort : {"drive1.effort", "drive2.effort"}) {
    EXPECT_EQ(std::count(two.non_unique.begin(), two.non_unique.end(), effort), 0) << effort;
    EXPECT_EQ(std::count(three.non_unique.begin(), three.non_unique.end(), effort), 1) << effort;
  }
  EXPECT_EQ(std::count(three.non_unique.begin(), three.non_unique.end(), "B.actuator.effort"), 1);
  const auto power = [&](const InverseTable& run, bool with_b) {
    VecX p = column(run.columns, run.values, "drive1.effort").cwiseProduct(column(forward.columns, forward.values, "A.v1")) +
             column(run.columns, run.values, "drive2.effort").cwiseProduct(column(forward.columns, forward.values, "E.v1"));
    if (with_b) p += column(run.columns, run.values, "B.actuator.effort").cwiseProduct(column(forward.columns, forward.values, "B.v1"));
    return p;
  };
  const VecX p2 = power(two, false), p3 = power(three, true);
  EXPECT_LT((p2 - p3).cwiseAbs().maxCoeff(), 1e-7 * p2.cwiseAbs().maxCoeff());
  // one preload, and the two runs' efforts differ along it: the three-actuator efforts are the
  // two-actuator ones (B's zero) plus a multiple of the preload
  EXPECT_TRUE(two.preloads.empty());
  ASSERT_EQ(three.preloads.size(), 1u);
  const Eigen::Index start = 0;  // (the preload is the start's)
  const Vec3 difference(column(three.columns, three.values, "drive1.effort")(start) - column(two.columns, two.values, "drive1.effort")(start),
                        column(three.columns, three.values, "drive2.effort")(start) - column(two.columns, two.values, "drive2.effort")(start),
                        column(three.columns, three.values, "B.actuator.effort")(start));
  const Vec3 preload = three.preloads.front();
  EXPECT_NEAR(std::abs(difference.normalized().dot(preload)), 1, 1e-9) << difference.transpose() << " " << preload.transpose();
  // and the individual efforts do differ from the two-actuator ones: a choice was made
  EXPECT_GT((column(two.columns, two.values, "drive1.effort") - column(three.columns, three.values, "drive1.effort"))
                .cwiseAbs()
                .maxCoeff(),
            0.1);
}

/// The two-motor lift's samples (efforts -lambda of the drivers' rows) under a resolution.
std::vector<Sample> liftSamples(const InverseRequest& request, InverseStatus expected = InverseStatus::Completed) {
  const InverseSetup setup = setUpInverse(io::readModelFile(test::modelPath("parallelogram_lift_two_motors")), request);
  std::vector<Sample> out;
  const InverseResult result = inverseDynamics(setup.model, setup.start.state, setup.times,
                                               [&](const Sample& s) { out.push_back(s); }, setup.options);
  EXPECT_EQ(result.status, expected) << request.resolution;
  return out;
}

// The parallelogram lift raised by two motors on parallel arms (models/parallelogram_lift_two_motors.yaml):
// by virtual work only their sum T = tau1 + tau2 is determined (the arms turn alike) -- the one
// motor's torque when the other is taken away -- and each resolution's split follows by hand:
// least-norm tau1 = tau2 = T/2; weighted by k = (1, 2), min (tau1/1)^2 + (tau2/2)^2 on the line
// tau1 + tau2 = T: tau = T (1, 4)/5; bounded |tau2| <= 100 besides: tau2 = clamp(4T/5), tau1 = T - tau2;
// motor1 within 50 and motor2 within [-10, 60] cannot give T(0) = 112.8: the run stops. Every
// choice differs from another by a self-stress (C^T delta lambda = 0): the reactions move with the efforts.
TEST(InverseDynamics, ResolutionsSplitTheLiftAsDerivedByHand) {
  InverseRequest request;
  request.t_end = 2;
  request.sample = 0.05;
  const std::vector<Sample> least = liftSamples(request);
  ModelSpec one_motor = io::readModelFile(test::modelPath("parallelogram_lift_two_motors"));
  one_motor.drivers.pop_back();
  const InverseSetup single = setUpInverse(one_motor, request);
  std::vector<Scalar> T;
  inverseDynamics(single.model, single.start.state, single.times,
                  [&](const Sample& s) { T.push_back(-s.lambda(single.model.pairs()[single.model.pairs().size() - 1].row)); });
  request.resolution = "weighted";
  request.motor_constants = {{"motor2", 2}};
  const std::vector<Sample> weighted = liftSamples(request);
  request.resolution = "bounded";
  request.effort_limits = {{"motor2", {-100, 100}}};
  const std::vector<Sample> bounded = liftSamples(request);
  ASSERT_EQ(T.size(), least.size());
  ASSERT_EQ(weighted.size(), least.size());
  ASSERT_EQ(bounded.size(), least.size());
  const Model model = compile(io::readModelFile(test::modelPath("parallelogram_lift_two_motors")));
  const int row1 = model.pairs()[model.pairs().size() - 2].row, row2 = model.pairs().back().row;
  const auto tau = [&](const Sample& s) { return Vec2(-s.lambda(row1), -s.lambda(row2)); };
  KinematicsWorkspace kin(model);
  Scalar clamped = 0;
  for (std::size_t i = 0; i < least.size(); ++i) {
    const Scalar scale = std::max<Scalar>(std::abs(T[i]), 1), tau2 = std::clamp<Scalar>(0.8 * T[i], -100, 100);
    EXPECT_LT((tau(least[i]) - Vec2(T[i] / 2, T[i] / 2)).norm(), 1e-9 * scale) << i;
    EXPECT_LT((tau(weighted[i]) - Vec2(T[i] / 5, 0.8 * T[i])).norm(), 1e-9 * scale) << i;
    EXPECT_LT((tau(bounded[i]) - Vec2(T[i] - tau2, tau2)).norm(), 1e-9 * scale) << i;
    clamped = std::max(clamped, std::abs(0.8 * T[i]) - 100);
    evaluateConstraints(model, kin, least[i].x);
    const MatX Ct = kin.C.dense().transpose();
    EXPECT_LT((Ct * (weighted[i].lambda - least[i].lambda)).norm(), 1e-9 * scale) << i;
    EXPECT_LT((Ct * (bounded[i].lambda - least[i].lambda)).norm(), 1e-9 * scale) << i;
  }
  EXPECT_GT(clamped, 50);  // (the bound does bind: 4T/5 reaches 213 N m)
  request.effort_limits = {{"motor1", {-50, 50}}, {"motor2", {-10, 60}}};
  EXPECT_TRUE(liftSamples(request, InverseStatus::EffortLimitsExceeded).empty());
}

// 3-RPR at its type-II singular pose (models/three_rpr_singular.yaml): the drivers' rows lose rank
// there, the actuators do not control one freedom; a mechanism whose drivers leave a freedom
// (the mobile robot) is not a prescribed motion. Neither gives a row.
TEST(InverseDynamics, SaysWhereActuationIsSingularOrTheMotionNotPrescribed) {
  InverseRequest request;
  request.t_end = 0.1;
  const InverseTable singular = inverseModel(io::readModelFile(test::modelPath("three_rpr_singular")), request);
  EXPECT_EQ(singular.result.status, InverseStatus::ActuationSingular);
  EXPECT_EQ(singular.result.freedoms, 1);
  EXPECT_EQ(singular.values.rows(), 0);
  // the efforts' unbounded direction: the self-stress of the locked legs, equal forces in the
  // three (their radial unit vectors at 120 degrees sum to zero, their moments about the centre vanish)
  ASSERT_EQ(singular.result.unbounded_efforts.size(), 1u);
  EXPECT_FALSE(singular.result.unbounded_with_preloads);
  EXPECT_LT((singular.result.unbounded_efforts.front() - Vec3::Constant(1 / std::sqrt(3.0))).norm(), 1e-9)
      << singular.result.unbounded_efforts.front().transpose();
  // a leg held where the others do not let it reach: no start, said so (not thrown)
  ModelSpec unreachable = io::readModelFile(test::modelPath("three_rpr_singular"));
  unreachable.drivers.front().profile = Profile::constant(0.7);
  const InverseTable no_start = inverseModel(unreachable, request);
  EXPECT_EQ(no_start.result.status, InverseStatus::AssemblyFailed);
  EXPECT_EQ(no_start.values.rows(), 0);
  const InverseTable free = inverseModel(io::readModelFile(test::modelPath("mobile_robot")), request);
  EXPECT_EQ(free.result.status, InverseStatus::MotionNotPrescribed);
  EXPECT_EQ(free.result.freedoms, 1);
}

// The legs drive the 3-RPR's platform through its type-II singular pose at t = 0.1 s
// (tests/data/actuation/three_rpr_crossing.yaml): the run stops there whether a time falls on
// it or the pose lies between two times (the search between them), with the same direction.
TEST(InverseDynamics, StopsAtAnActuationSingularityOnOrBetweenItsTimes) {
  const ModelSpec spec = io::readModelFile(std::string(LOOPDYN_TEST_DATA_DIR) + "/actuation/three_rpr_crossing.yaml");
  for (const Scalar sample : {0.01, 0.003}) {
    InverseRequest request;
    request.t_end = 0.2;
    request.sample = sample;
    const InverseTable run = inverseModel(spec, request);
    EXPECT_EQ(run.result.status, InverseStatus::ActuationSingular) << sample;
    EXPECT_NEAR(run.result.t, 0.1, 1e-6) << sample;
    EXPECT_EQ(run.values.rows(), static_cast<Eigen::Index>(std::ceil(0.1 / sample - 1e-9))) << sample;
    ASSERT_EQ(run.result.unbounded_efforts.size(), 1u) << sample;
    EXPECT_LT((run.result.unbounded_efforts.front() - Vec3::Constant(1 / std::sqrt(3.0))).norm(), 1e-5) << sample;
  }
}

// A redundant actuator whose trajectory disagrees with the others' (splines through 20 ms samples)
// is no prescribed motion: the run stops, and says by how much they disagree.
TEST(InverseDynamics, InconsistentRedundantTrajectoriesStopTheRun) {
  const ModelSpec spec = io::readModelFile(test::modelPath("five_bar"));
  SimulationRequest coarse = accurate(0.3, 0.02);
  const Trajectory forward = simulateModel(compile(spec), coarse);
  InverseRequest request;
  request.actuators = {"B"};
  request.trajectory = writeCsv(forward, "loopdyn_inverse_five_bar_coarse.csv");
  const InverseTable three = inverseModel(spec, request);
  std::filesystem::remove(request.trajectory);
  EXPECT_EQ(three.result.status, InverseStatus::InconsistentMotion);
  EXPECT_GT(three.result.max_acceleration_residual, three.result.acceleration_bound);
}

/// The prescribed five-bar's state and accelerations at `times`, assembled from `start`.
std::vector<Sample> fiveBarSamples(const InverseSetup& setup, const State& start, const std::vector<Scalar>& times) {
  std::vector<Sample> out;
  const InverseResult result = inverseDynamics(setup.model, start, times, [&](const Sample& s) { out.push_back(s); });
  EXPECT_TRUE(result.ok());
  return out;
}

// The continuity check (kinematics/motion_continuity.hpp) between two times of one motion and
// between a time and the other assembly branch at the next: the five-bar's arms folded the other
// way (their joint C mirrored through the line of B and D) satisfy the same drivers at the same
// time, and only their motion tells them apart.
TEST(InverseDynamics, ContinuityTellsTheMotionsBranchFromTheOther) {
  InverseRequest request;
  request.t_end = 0.5;
  const InverseSetup setup = setUpInverse(io::readModelFile(test::modelPath("five_bar")), request);
  const Model& model = setup.model;
  const std::vector<Sample> motion = fiveBarSamples(setup, setup.start.state, {0.2, 0.21});
  ASSERT_EQ(motion.size(), 2u);
  const ContinuityMiss same = continuityMiss(model, motion[0].x, motion[0].a, motion[1].x, motion[1].a);
  EXPECT_GT(same.step, 1e-3);
  EXPECT_LT(same.miss, 1e-6 * same.step);

  State mirrored = motion[1].x;  // the arms reflected through the horizontal line of B and D
  const Scalar line = bodyMotion(model, mirrored.q, mirrored.v, model.bodyIndex("crank1")).r.y() * 2;
  for (const char* arm : {"arm1", "arm2"}) {
    const Eigen::Index k = static_cast<Eigen::Index>(model.bodyIndex(arm)) * model.qPerBody();
    mirrored.q(k + 1) = line - mirrored.q(k + 1);
    mirrored.q(k + 2) = -mirrored.q(k + 2);
  }
  const std::vector<Sample> other = fiveBarSamples(setup, mirrored, {0.21});
  ASSERT_EQ(other.size(), 1u);
  const Eigen::Index c_arm = static_cast<Eigen::Index>(model.bodyIndex("arm1")) * model.qPerBody();
  ASSERT_GT(std::abs(other[0].x.q(c_arm + 1) - motion[1].x.q(c_arm + 1)), 0.1);  // (the other branch)
  const ContinuityMiss jump = continuityMiss(model, motion[0].x, motion[0].a, other[0].x, other[0].a);
  EXPECT_GT(jump.miss, InverseOptions{}.continuity_tolerance * jump.step);
}

TEST(InverseDynamics, RequestProblemsNameTheField) {
  const ModelSpec spec = io::readModelFile(test::modelPath("slider_crank"));
  InverseRequest request;
  request.actuators = {"motr"};
  request.trajectory = "unused.csv";
  try {
    inverseModel(spec, request);
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("actuators: 'motr' is neither"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'motor'"), std::string::npos) << e.what();
  }
  request.actuators = {"rail"};  // a prismatic joint: fine; a table that is not there is the file's error
  request.trajectory = "/nonexistent/trajectory.csv";
  EXPECT_THROW(inverseModel(spec, request), ModelError);
  request.actuators = {"motor"};
  request.trajectory.clear();
  EXPECT_THROW(inverseModel(spec, request), InvalidArgument);  // an actuator needs a trajectory
}

}  // namespace
}  // namespace loopdyn
