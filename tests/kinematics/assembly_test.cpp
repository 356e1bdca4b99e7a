#include "loopdyn/kinematics/assembly.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/spatial/rotation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

constexpr Scalar kAssembled = 1e-12;  // AssemblyOptions default, relative to L

TEST(Assembly, ClosesLoopsFromApproximatePoses) {
  // four_bar_planar lists coupler and rocker poses good to ~1e-2 only
  const Model model = test::loadModel("four_bar_planar");
  KinematicsWorkspace ws(model);
  const AssemblyResult result = assemble(model, ws, initialState(model));
  ASSERT_TRUE(result.converged) << result.message;
  EXPECT_GT(result.iterations, 0);
  evaluateConstraints(model, ws, result.state);
  EXPECT_LT(ws.Phi.norm(), kAssembled * 10);
  EXPECT_LT((ws.C.dense() * result.state.v + ws.b).norm(), 1e-12);
}

// `hold: true` (issue 19): the held body stays exactly where the file puts it, the others close
// the loop around it. The four-bar's crank is held: assembly then moves only coupler and rocker
// (without hold it moves the crank by 1.75 mm).
TEST(Assembly, HeldBodiesStayWhereTheFilePutsThem) {
  ModelSpec spec = io::readModelFile(test::modelPath("four_bar_planar"));
  for (BodySpec& body : spec.bodies) body.hold = body.name == "crank";
  const Model model = compile(spec);
  KinematicsWorkspace ws(model);
  const State guess = initialState(model);
  const AssemblyResult result = assemble(model, ws, guess);
  ASSERT_TRUE(result.converged) << result.message;
  evaluateConstraints(model, ws, result.state);
  EXPECT_LT(ws.Phi.norm(), kAssembled * 10);
  const BodyIndex crank = model.bodyIndex("crank"), coupler = model.bodyIndex("coupler");
  EXPECT_EQ(result.state.q.segment<3>(3 * crank), guess.q.segment<3>(3 * crank));
  EXPECT_GT((result.state.q.segment<3>(3 * coupler) - guess.q.segment<3>(3 * coupler)).norm(), 1e-3);

  // a model file says it with `hold: true`, and a held body that cannot stay is an assembly failure
  const std::string text = R"(dimension: 2
ground:
  markers: [{name: O, position: [0, 0]}]
bodies:
  - name: bar
    mass: 1
    inertia: 0.1
    position: [0.7, 0.2]
    hold: true
    markers: [{name: O, position: [-0.5, 0]}]
joints:
  - {name: O, type: revolute, between: [ground.O, bar.O]}
)";
  const Model stuck = compile(io::parseModel(text, "held.yaml"));
  EXPECT_TRUE(stuck.heldBodies()[0]);
  KinematicsWorkspace ws2(stuck);
  const AssemblyResult failed = assemble(stuck, ws2, initialState(stuck));
  EXPECT_FALSE(failed.converged);
  EXPECT_NE(failed.message.find("the mechanism cannot be assembled"), std::string::npos) << failed.message;
  EXPECT_NE(failed.message.find("held where the file puts them (hold: true): bar"), std::string::npos) << failed.message;
}

TEST(Assembly, RedundantConstraintsDoNotBreakNewton) {
  // four parallel revolutes in 3D: rank deficiency 3 (the minimum-norm step ignores it)
  const Model model = test::loadModel("four_bar_spatial");
  KinematicsWorkspace ws(model);
  const AssemblyResult result = assemble(model, ws, initialState(model));
  ASSERT_TRUE(result.converged) << result.message;
  EXPECT_LE(result.position_residual, kAssembled);
}

TEST(Assembly, KeepsPrescribedVelocitiesAndCompletesTheOthers) {
  // double four-bar: the model prescribes crank 1 (v = (0.5, 0), w = -1); the rest follows
  const Model model = test::loadModel("double_four_bar");
  KinematicsWorkspace ws(model);
  const AssemblyResult result = assemble(model, ws, initialState(model));
  ASSERT_TRUE(result.converged);
  EXPECT_TRUE(result.prescribed_velocities_kept);
  const VecX& v = result.state.v;
  EXPECT_NEAR(v(0), 0.5, 1e-14);
  EXPECT_NEAR(v(2), -1, 1e-14);
  EXPECT_NEAR(v(3 * 3 + 0), 1.0, 1e-12);  // coupler 1 translates with the crank tops
  EXPECT_NEAR(v(3 * 1 + 2), -1, 1e-12);   // crank 2 turns like crank 1
}

TEST(Assembly, InconsistentPrescriptionIsChangedAndReported) {
  ModelSpec spec = io::readModelFile(test::modelPath("double_four_bar"));
  spec.bodies[1].angular_velocity = Vec3(0, 0, 2);  // crank 2 cannot turn faster than crank 1
  const Model model = compile(spec);
  KinematicsWorkspace ws(model);
  const AssemblyResult result = assemble(model, ws, initialState(model));
  EXPECT_TRUE(result.converged);
  EXPECT_FALSE(result.prescribed_velocities_kept);
  EXPECT_GT(result.velocity_change, 0.1);
}

/// A driven double pendulum, exactly assembled as written: crank b1 at 0.4 rad, b2 at `b2_angle`;
/// the drivers hold the joint angles the file's numbers give, whole turns included.
std::string drivenDoublePendulum(const std::string& marker_angle, const std::string& b2_angle,
                                 const std::string& j1_value, const std::string& j2_value) {
  return R"(
name: driven_double_pendulum
dimension: 2
gravity: [0, -9.81]
ground:
  markers: [{name: pivot, position: [0, 0]}]
bodies:
  - {name: b1, mass: 1, inertia: 0.0833, angle: 0.4, position: [0.4605304970014426, 0.1947091711543253],
     markers: [{name: base, position: [-0.5, 0], angle: )" + marker_angle + R"(}, {name: tip, position: [0.5, 0]}]}
  - {name: b2, mass: 1, inertia: 0.0833, angle: )" + b2_angle + R"(, position: [1.4, 0.5],
     markers: [{name: base, position: [-0.5, 0]}]}
joints:
  - {name: j1, type: revolute, between: [ground.pivot, b1.base]}
  - {name: j2, type: revolute, between: [b1.tip, b2.base]}
drivers:
  - {name: d1, joint: j1, profile: {type: constant, value: )" + j1_value + R"(}}
  - {name: d2, joint: j2, profile: {type: constant, value: )" + j2_value + R"(}}
)";
}

TEST(Assembly, DrivenAnglesCountTheWholeTurnsWrittenInTheFile) {
  // issue 22, defect 2: marker and body angles were reduced to (-pi, pi] and the drivers' joint
  // angles lost their whole turns; assembly then moved b1 from 0.4 to -1.38 rad
  const Scalar turn = 2 * std::numbers::pi;
  struct Case {
    const char* what;
    std::string marker_angle, b2_angle;
    Scalar j1, j2;
  };
  const Case cases[] = {
      {"as is", "0.2", "0.3", 0.6, -0.1},
      {"marker angle 0.2 + 2 pi", "6.483185307179586", "0.3", 0.6 + turn, -0.1},
      {"body angle 0.3 + 2 pi", "0.2", "6.583185307179586", 0.6, -0.1 + turn},
  };
  for (const Case& c : cases) {
    auto number = [](Scalar x) {
      std::ostringstream os;
      os.precision(17);
      os << x;
      return os.str();
    };
    ModelSpec spec = io::parseModel(drivenDoublePendulum(c.marker_angle, c.b2_angle, number(c.j1), number(c.j2)),
                                    "driven_double_pendulum.yaml");
    // b2's centre from b1's tip and b2's angle, so that the file is exactly assembled
    const Vec3 tip(std::cos(0.4), std::sin(0.4), 0);
    spec.bodies[1].position = tip + 0.5 * Vec3(std::cos(0.3), std::sin(0.3), 0);
    const Model model = compile(spec);
    KinematicsWorkspace ws(model);
    const State written = initialState(model);
    const AssemblyResult result = assemble(model, ws, written);
    ASSERT_TRUE(result.converged) << c.what << ": " << result.message;
    // assembled as written: nothing moves beyond rounding (1e-12 m on 1 m rods, 1e-12 rad)
    EXPECT_LT((result.state.q - written.q).cwiseAbs().maxCoeff(), 1e-12) << c.what;
    EXPECT_NEAR(result.state.q(2), 0.4, 1e-12) << c.what;
  }
}

/// `spec` with every position (bodies and ground markers) moved by `offset`.
ModelSpec shifted(ModelSpec spec, const Vec3& offset) {
  for (BodySpec& b : spec.bodies) b.position += offset;
  for (MarkerSpec& mk : spec.ground_markers) mk.position += offset;
  return spec;
}

TEST(Assembly, ExactlyAssembledMechanismsFarFromTheOriginAreAcceptedAsTheyAre) {
  // issue 22, defect 3: a 2 m four-bar at (1e4, 1e4) m and a 2 mm one at (30, 30) m failed with
  // "relative residual 2e-12 > 1e-12" while their residuals were rounding (3.6e-15 m)
  ModelSpec spec = io::readModelFile(test::modelPath("four_bar_planar"));
  {
    // write the assembled poses back: the file is then exactly assembled
    const Model model = compile(spec);
    KinematicsWorkspace ws(model);
    const AssemblyResult result = assemble(model, ws, initialState(model));
    ASSERT_TRUE(result.converged) << result.message;
    for (int b = 0; b < model.nb(); ++b) {
      spec.bodies[static_cast<std::size_t>(b)].position.head<2>() = result.state.q.segment<2>(3 * b);
      spec.bodies[static_cast<std::size_t>(b)].angle = result.state.q(3 * b + 2);
      spec.bodies[static_cast<std::size_t>(b)].orientation = rotationZ(result.state.q(3 * b + 2));
    }
  }
  struct Case {
    const char* what;
    ModelSpec spec;
  };
  const Case cases[] = {{"2 m four-bar at (1e4, 1e4) m", shifted(spec, Vec3(1e4, 1e4, 0))},
                        {"2 mm four-bar at (30, 30) m", shifted(test::scaled(spec, 1e-3), Vec3(30, 30, 0))}};
  for (const Case& c : cases) {
    const Model model = compile(c.spec);
    KinematicsWorkspace ws(model);
    const State written = initialState(model);
    const AssemblyResult result = assemble(model, ws, written);
    ASSERT_TRUE(result.converged) << c.what << ": " << result.message;
    // closed to rounding: every joint within 16 eps of the largest coordinate (1e4 m: 3.6e-11 m)
    const Scalar R = written.q.cwiseAbs().maxCoeff();
    evaluateConstraints(model, ws, result.state);
    EXPECT_LT(ws.Phi.cwiseAbs().maxCoeff(), 16 * std::numeric_limits<Scalar>::epsilon() * R) << c.what;
    // and nothing moved beyond that either
    EXPECT_LT((result.state.q - written.q).cwiseAbs().maxCoeff(), 1e-9 * model.characteristicLength()) << c.what;
  }
}

TEST(Assembly, ImpossibleClosureFailsNamingTheJoints) {
  ModelSpec spec = io::readModelFile(test::modelPath("four_bar_planar"));
  spec.ground_markers[1].position.x() = 9;  // rocker and coupler cannot reach: 9 > 1 + 4 + 3
  const Model model = compile(spec);
  KinematicsWorkspace ws(model);
  const AssemblyResult result = assemble(model, ws, initialState(model));
  EXPECT_FALSE(result.converged);
  // said in the model's terms (issue 49.6): the joints left open in metres, and the loop -- as
  // a code with its names and numbers (issue 47.2), and in words
  const AssemblyFailure& f = result.failure;
  EXPECT_EQ(f.kind, AssemblyFailure::Kind::Stalled) << assemblyFailureName(f.kind);
  ASSERT_FALSE(f.misfits.empty());
  EXPECT_EQ(f.misfits.front().type, "revolute");
  EXPECT_EQ(f.misfits.front().name, "B");
  // (stretched out, the links fall 1 m short of the pivots 9 m apart: the closest configuration
  // leaves gaps of that order at the joints it names)
  EXPECT_GT(f.misfits.front().gap, 0.1);
  EXPECT_LT(f.misfits.front().gap, 1);
  EXPECT_EQ(f.loop, (std::vector<std::string>{"B", "O4", "O2", "A"}));
  EXPECT_GT(f.residual, f.tolerance);
  EXPECT_EQ(result.message, assemblyFailureText(f));
  EXPECT_NE(result.message.find("the mechanism cannot be assembled"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("revolute 'B' open by "), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("the loop B - O4 - O2 - A cannot close"), std::string::npos) << result.message;
  EXPECT_EQ(result.message.find("(scaled)"), std::string::npos) << result.message;
}

/// The assembly of a model given as YAML text from its written state.
AssemblyResult assembledFromText(const std::string& text, const std::string& name) {
  const Model model = compile(io::parseModel(text, name));
  KinematicsWorkspace ws(model);
  return assemble(model, ws, initialState(model));
}

// A driver asking for more than the linkage reaches (issue 49.6): the words say so, with what it
// asks for and what the linkage comes to with every joint closed -- a rod of length 1 from its
// pivot, its tip asked to stand 1.5 m from it; a rotation driver's angle in degrees.
TEST(Assembly, ADriverBeyondTheLinkagesReachIsNamedWithItsReach) {
  const AssemblyResult result = assembledFromText(R"(
dimension: 2
ground:
  markers: [{name: o, position: [0, 0]}]
bodies:
  - {name: rod, mass: 1, inertia: 0.1, position: [0.5, 0], markers: [{name: a, position: [-0.5, 0]}, {name: b, position: [0.5, 0]}]}
joints:
  - {name: O, type: revolute, between: [ground.o, rod.a]}
drivers:
  - {name: lift, between: [ground.o, rod.b], profile: {type: constant, value: 1.5}}
)", "overdriven.yaml");
  EXPECT_FALSE(result.converged);
  ASSERT_EQ(result.failure.kind, AssemblyFailure::Kind::DriversUnreachable) << assemblyFailureName(result.failure.kind);
  ASSERT_EQ(result.failure.misfits.size(), 1u);
  const NamedMisfit& lift = result.failure.misfits.front();
  EXPECT_TRUE(lift.driver && !lift.angular);
  EXPECT_EQ(lift.name, "lift");
  EXPECT_DOUBLE_EQ(lift.asked, 1.5);
  EXPECT_NEAR(lift.reached, 1, 1e-9);  // (the rod's length: its tip as far as it goes)
  EXPECT_EQ(result.message, "the drivers ask for a pose the linkage cannot reach: driver 'lift' asks for 1.5 m at "
                            "t = 0 s; with every joint closed the linkage comes to 1 m");
}

// A model of drivers alone (no joint) asking for a pose it cannot take: the reach is searched with
// no joints to hold (it factorised an empty joint matrix: an assertion in Eigen, found by the
// model fuzzer), and the words name the driver.
TEST(Assembly, DriversAloneBeyondTheirReachAreNamed) {
  const AssemblyResult result = assembledFromText(R"(
dimension: 2
gravity: [0, -9.81]
ground:
  markers: [{name: left, position: [-1, 1]}, {name: right, position: [1, 1]}]
bodies:
  - {name: b, mass: 2, inertia: 0.5, markers: [{name: c, position: [0, 0]}, {name: d, position: [5.5, 0]}]}
drivers:
  - {name: hold_left, between: [ground.left, b.c], profile: {type: constant, value: 1.4142135623730951}}
  - {name: hold_right, between: [ground.right, b.c], profile: {type: constant, value: 1.4142135623730951}}
  - {name: hold_angle, between: [ground.left, b.d], profile: {type: constant, value: 1.8027756377319946}}
)", "drivers_beyond_reach.yaml");
  EXPECT_FALSE(result.converged);
  bool named = false;
  for (const NamedMisfit& m : result.failure.misfits) named |= m.driver && m.name == "hold_angle";
  EXPECT_TRUE(named) << result.message;
  EXPECT_NE(result.message.find("driver 'hold_angle' asks for 1.80278 m"), std::string::npos) << result.message;
}

// A driver on a body the joints leave no freedom (welded to ground) asking for what it cannot
// have: the reach search has no direction to move in (an empty least-squares problem: a
// segmentation fault in Release), and the words name the driver.
TEST(Assembly, ADriverOnABodyWithoutFreedomIsNamed) {
  const AssemblyResult result = assembledFromText(R"(
dimension: 2
ground:
  markers: [{name: o, position: [0, 0]}, {name: p, position: [3, 0]}]
bodies:
  - {name: plate, mass: 1, inertia: 0.1, position: [0.5, 0], markers: [{name: a, position: [-0.5, 0]}, {name: b, position: [0.5, 0]}]}
joints:
  - {name: W, type: fixed, between: [ground.o, plate.a]}
drivers:
  - {name: reach, between: [ground.p, plate.b], profile: {type: constant, value: 0.5}}
)", "welded.yaml");
  EXPECT_FALSE(result.converged);
  ASSERT_FALSE(result.failure.misfits.empty()) << result.message;
  EXPECT_EQ(result.failure.misfits.front().name, "reach");
  EXPECT_NE(result.message.find("driver 'reach' asks for 0.5 m"), std::string::npos) << result.message;
}

}  // namespace
}  // namespace loopdyn
