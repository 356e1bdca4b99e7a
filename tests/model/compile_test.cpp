#include <gtest/gtest.h>

#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/model/model.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

TEST(Compile, NumbersRowsAsPaper001HolonomicThenDriversThenPfaffian) {
  // paper 001, sect. 4.4: equation 6 is revolute C's y-equation, 17 the driver, 18-22 W1..W5
  const Model model = test::loadModel("mobile_robot");
  ASSERT_EQ(model.nc(), 22);
  EXPECT_EQ(model.equations()[5].name, "C.y");
  EXPECT_EQ(model.equations()[16].name, "steer");
  EXPECT_EQ(model.equations()[17].name, "W1");
  EXPECT_EQ(model.equations()[20].name, "W4");
  EXPECT_EQ(model.m(), 17);
  EXPECT_EQ(model.h(), 5);
  EXPECT_TRUE(model.pairs()[static_cast<std::size_t>(model.pairIndex("W5"))].nonholonomic);
}

TEST(Compile, CollectsEveryProblemWithItsLocation) {
  ModelSpec spec;
  spec.dimension = 2;
  BodySpec a;
  a.name = "a";
  a.mass = -1;
  a.where = {"m.yaml", 3, 5};
  BodySpec b = a;
  b.where = {"m.yaml", 9, 5};
  spec.bodies = {a, b};
  JointSpec j;
  j.name = "J";
  j.type = JointType::Spherical;  // not planar
  j.first = {"a", "p", {"m.yaml", 12, 20}};
  j.second = {"grund", "o", {"m.yaml", 12, 28}};
  j.where = {"m.yaml", 12, 5};
  spec.joints = {j};
  try {
    compile(spec);
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("m.yaml:3:5: error: body 'a': mass must be positive"), std::string::npos) << text;
    EXPECT_NE(text.find("m.yaml:9:5: error: duplicate body name 'a'"), std::string::npos) << text;
    EXPECT_NE(text.find("type 'spherical' is not available in 2D"), std::string::npos) << text;
    EXPECT_NE(text.find("m.yaml:12:28: error: unknown body 'grund' (did you mean 'ground'?)"), std::string::npos)
        << text;
    EXPECT_GE(e.diagnostics().size(), 4u);
  }
}

/// 2500 revolute-chained bodies in 2D: n = 7500, beyond the dense limit of 6000.
ModelSpec chainBeyondTheDenseLimit() {
  test::RandomMechanismOptions chain;
  chain.bodies = 2500;
  chain.serial = true;
  chain.tree_types = {JointType::Revolute};
  std::mt19937 rng(1);
  return test::randomMechanismSpec(2, rng, chain);
}

// Issue 48: no fixed size limit at compile time (before: n > 6000 refused here). A model of any
// size compiles, and a constraint workspace holds no dense C until it is asked for; what keeps
// dense matrices refuses the model itself (denseSizeProblem, below; sim/formulation_choice.cpp).
TEST(Compile, ModelsOfAnySizeCompileWithoutDenseMatrices) {
  const Model model = compile(chainBeyondTheDenseLimit());
  EXPECT_EQ(model.nv(), 7500);
  const KinematicsWorkspace kin(model);
  EXPECT_EQ(kin.C.rows(), model.nc());  // (by rows: O(rows) storage, no 7500-column matrix)
}

// The refusal of a dense route names the route, the model's size, the memory of one dense matrix
// and what to use instead (issue 22: a 1e5-body file once ran into std::bad_alloc asking for
// 480 GB of dense C).
TEST(Compile, ADenseRouteRefusesAModelBeyondItsLimitAndSaysWhatFits) {
  const Model model = compile(chainBeyondTheDenseLimit());
  const std::string problem = denseSizeProblem(model, "the projection formulation", "use dca");
  EXPECT_NE(problem.find("the projection formulation keeps dense matrices of the model's size, n x (m + h) = 7500 x 5000 "
                         "here (0.3 GB each"),
            std::string::npos)
      << problem;
  EXPECT_NE(problem.find("beyond loopdyn's limit of 6000"), std::string::npos) << problem;
  EXPECT_NE(problem.find("use dca"), std::string::npos) << problem;
  test::RandomMechanismOptions chain;
  chain.bodies = 2000;  // (n = 6000: the limit itself is taken on)
  chain.serial = true;
  chain.tree_types = {JointType::Revolute};
  std::mt19937 rng(1);
  EXPECT_EQ(denseSizeProblem(compile(test::randomMechanismSpec(2, rng, chain)), "the projection formulation", "use dca"), "");
}

TEST(Compile, CharacteristicLengthFollowsModelScale) {
  // RMS lever arm of the markers used by pairs: scaling the model scales it
  ModelSpec spec;
  spec.dimension = 2;
  BodySpec bar{"bar", 1, Mat3::Identity(), Vec3::Zero(), Mat3::Identity(), {}, {}, {}, {}};
  bar.markers = {{"end", Vec3(0.5, 0, 0), Mat3::Identity(), {}}};
  spec.bodies = {bar};
  spec.ground_markers = {{"o", Vec3::Zero(), Mat3::Identity(), {}}};
  spec.joints = {{"O", JointType::Revolute, {"ground", "o", {}}, {"bar", "end", {}}, 0, {}, {}}};
  EXPECT_DOUBLE_EQ(compile(spec).characteristicLength(), 0.5);
  spec.bodies[0].markers[0].position *= 1000;
  EXPECT_DOUBLE_EQ(compile(spec).characteristicLength(), 500);
}

}  // namespace
}  // namespace loopdyn
