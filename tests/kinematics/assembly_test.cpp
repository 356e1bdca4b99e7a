#include "loopdyn/kinematics/assembly.hpp"

#include <gtest/gtest.h>

#include "loopdyn/io/model_reader.hpp"
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
  EXPECT_LT((ws.C * result.state.v + ws.b).norm(), 1e-12);
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

TEST(Assembly, ImpossibleClosureFailsNamingTheJoints) {
  ModelSpec spec = io::readModelFile(test::modelPath("four_bar_planar"));
  spec.ground_markers[1].position.x() = 9;  // rocker and coupler cannot reach: 9 > 1 + 4 + 3
  const Model model = compile(spec);
  KinematicsWorkspace ws(model);
  const AssemblyResult result = assemble(model, ws, initialState(model));
  EXPECT_FALSE(result.converged);
  EXPECT_NE(result.message.find("assembly failed"), std::string::npos);
  EXPECT_NE(result.message.find("revolute '"), std::string::npos) << result.message;
}

}  // namespace
}  // namespace loopdyn
