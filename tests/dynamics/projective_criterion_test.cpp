// The projective criterion (paper 003, eqs. (23a), (23b), (26)) and the choice of a set of
// independent coordinates.

#include "loopdyn/dynamics/projective_criterion.hpp"

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/spatial/rotation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// Paper 003, sect. 3: a physical pendulum, body of mass m and inertia J whose centre is at
/// (rho cos gamma, rho sin gamma) from the pivot.
Model physicalPendulum(Scalar m, Scalar J, Scalar rho, Scalar gamma) {
  ModelSpec spec;
  spec.name = "physical_pendulum";
  spec.dimension = 2;
  spec.ground_markers.push_back({"pivot", Vec3::Zero(), Mat3::Identity(), {}});
  BodySpec body;
  body.name = "G";
  body.mass = m;
  body.inertia = Mat3::Identity() * J;
  body.orientation = rotationZ(gamma);
  body.position = Vec3(rho * std::cos(gamma), rho * std::sin(gamma), 0);
  body.markers.push_back({"pin", Vec3(-rho, 0, 0), Mat3::Identity(), {}});
  spec.bodies.push_back(body);
  spec.joints.push_back({"O", JointType::Revolute, {"ground", "pivot", {}}, {"G", "pin", {}}, 0, {}});
  return compile(spec);
}

ProjectiveCriterion criterionAt(const Model& model, const State& x) {
  KinematicsWorkspace ws(model);
  evaluateConstraints(model, ws, x);
  MatX M;
  massMatrix(model, ws.motion, M);
  return projectiveCriterion(model, ws, M, x);
}

TEST(ProjectiveCriterion, PhysicalPendulumMatchesEquation26) {
  const Scalar m = 2, J = 0.3, rho = 0.7;
  const Scalar share = m * rho * rho / (m * rho * rho + J);
  for (const Scalar gamma : {0.1, 0.6, std::numbers::pi / 4 + 0.2, 1.3, 2.0, 3.5, -0.8}) {
    const Model model = physicalPendulum(m, J, rho, gamma);
    const ProjectiveCriterion c = criterionAt(model, initialState(model));
    ASSERT_EQ(c.rank, 2);
    const Scalar s = std::sin(gamma), co = std::cos(gamma);
    // eq. (26); 1e-12: a few roundings of O(1) quantities
    EXPECT_NEAR(c.cos2_alpha[0], share * s * s, 1e-12) << gamma;
    EXPECT_NEAR(c.cos2_alpha[1], share * co * co, 1e-12) << gamma;
    EXPECT_NEAR(c.cos2_alpha[2], 1 - share, 1e-12) << gamma;
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(c.cos2_alpha[i] + c.cos2_beta[i], 1, 1e-12) << gamma << " " << i;
    // one degree of freedom: the best coordinate is the one of largest cos^2 alpha in (26)
    const std::array<Scalar, 3> expected{share * s * s, share * co * co, 1 - share};
    const int best = static_cast<int>(std::max_element(expected.begin(), expected.end()) - expected.begin());
    ASSERT_EQ(c.best_set.size(), 1u);
    EXPECT_EQ(c.best_set[0], best) << gamma;
  }
}

TEST(ProjectiveCriterion, BestCoordinateSwitchesBetweenXAndYAtFortyFiveDegrees) {
  // J small: gamma (cos^2 alpha = J / (m rho^2 + J)) is never best; y below pi/4, x above
  const Scalar m = 1, J = 0.01, rho = 1;
  auto best = [&](Scalar gamma) {
    const Model model = physicalPendulum(m, J, rho, gamma);
    return criterionAt(model, initialState(model)).best_set[0];
  };
  for (const Scalar gamma : {0.5, 0.78}) EXPECT_EQ(best(gamma), 1) << gamma;
  for (const Scalar gamma : {0.80, 1.2}) EXPECT_EQ(best(gamma), 0) << gamma;
}

/// True when the velocity coordinates in `set` can be independent: the columns of C outside the
/// set have the rank of C (C_D invertible on the range of C).
bool regularSet(const MatX& Cs, int rank, const std::vector<int>& set) {
  std::vector<int> dependent;
  for (int i = 0; i < Cs.cols(); ++i)
    if (std::find(set.begin(), set.end(), i) == set.end()) dependent.push_back(i);
  Eigen::ColPivHouseholderQR<MatX> qr(Cs(Eigen::all, dependent));
  qr.setThreshold(1e-7);
  return qr.rank() == rank;
}

TEST(ProjectiveCriterion, ChosenSetIsRegularWheneverARegularSetExists) {
  // bundled models at their configurations (the singular ones included: a regular set exists
  // there too, for the lower rank) and random mechanisms with loops and redundant bearings
  std::vector<Model> models;
  for (const char* name : {"four_bar_planar", "double_four_bar", "double_four_bar_singular", "modified_double_four_bar",
                           "modified_double_four_bar_singular", "redundant_pendulum", "four_bar_spatial", "mobile_robot"})
    models.push_back(test::loadModel(name));
  std::mt19937 rng(7);
  for (int trial = 0; trial < 10; ++trial) {
    test::RandomMechanismOptions options;
    options.loop_closures = 1;
    options.duplicate_joints = trial % 3;
    models.push_back(compile(test::randomMechanismSpec(trial % 2 == 0 ? 2 : 3, rng, options)));
  }
  for (const Model& model : models) {
    KinematicsWorkspace kin(model);
    const State x = assemble(model, kin, initialState(model)).state;
    const ProjectiveCriterion c = criterionAt(model, x);
    evaluateConstraints(model, kin, x);
    const ConstraintScaling scaling = constraintScaling(model);
    const MatX Cs = scaling.row.asDiagonal() * kin.C * scaling.col.asDiagonal();
    ASSERT_EQ(static_cast<int>(c.best_set.size()), model.nv() - c.rank) << model.name();
    EXPECT_TRUE(regularSet(Cs, c.rank, c.best_set)) << model.name();
    for (std::size_t j = 0; j < c.set_pivots.size(); ++j) EXPECT_GT(c.set_pivots[j], 1e-7) << model.name() << " pivot " << j;
  }
}

}  // namespace
}  // namespace loopdyn
