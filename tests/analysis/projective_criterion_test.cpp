// The projective criterion (paper 003, eqs. (23a), (23b), (26)) and the choice of a set of
// independent coordinates.

#include "loopdyn/analysis/projective_criterion.hpp"

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
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
  spec.joints.push_back({"O", JointType::Revolute, {"ground", "pivot", {}}, {"G", "pin", {}}, 0, {}, {}});
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
    const ConstraintScaling scaling = model.scaling();
    const MatX Cs = scaling.row.asDiagonal() * kin.C.dense() * scaling.col.asDiagonal();
    ASSERT_EQ(static_cast<int>(c.best_set.size()), model.nv() - c.rank) << model.name();
    EXPECT_TRUE(regularSet(Cs, c.rank, c.best_set)) << model.name();
    for (std::size_t j = 0; j < c.set_pivots.size(); ++j) EXPECT_GT(c.set_pivots[j], 1e-7) << model.name() << " pivot " << j;
  }
}

/// Paper 003, sect. 6: the planar four-bar cut at O4 as a 3R manipulator in relative coordinates
/// q = [alpha1 alpha2 alpha3] whose end must stay at O4. The paper's lengths were lost with its
/// Fig. 2; these make a Grashof crank-rocker (shortest link the crank: 1 + 3 <= 2.5 + 3) so
/// that alpha1 turns fully, as its Fig. 3 assumes: crank l1 = 1, coupler l2 = 3, rocker
/// l3 = 2.5, ground O1 O4 = 3 along y. Uniform rods of 1 kg per metre.
struct RelativeFourBar {
  static constexpr Scalar l1 = 1, l2 = 3, l3 = 2.5, l0 = 3;
  MatX M = MatX::Zero(3, 3), C = MatX::Zero(2, 3);

  explicit RelativeFourBar(Scalar alpha1) {
    auto e = [](Scalar t) { return Eigen::Vector2d(std::cos(t), std::sin(t)); };
    auto perp = [](Scalar t) { return Eigen::Vector2d(-std::sin(t), std::cos(t)); };
    // closure: O3 at distance l2 from O2 and l3 from O4 (one assembly branch)
    const Eigen::Vector2d O2 = l1 * e(alpha1), O4(0, l0);
    const Eigen::Vector2d d = O4 - O2;
    const Scalar dist = d.norm();
    const Scalar along = (l2 * l2 - l3 * l3 + dist * dist) / (2 * dist);
    const Eigen::Vector2d O3 = O2 + along * d / dist + std::sqrt(l2 * l2 - along * along) * Eigen::Vector2d(d.y(), -d.x()) / dist;
    const std::array<Scalar, 3> length{l1, l2, l3};
    const std::array<Scalar, 3> theta{alpha1, std::atan2(O3.y() - O2.y(), O3.x() - O2.x()),
                                       std::atan2(O4.y() - O3.y(), O4.x() - O3.x())};
    // theta_i = alpha_1 + ... + alpha_i: d theta_i / d alpha_j = 1 for j <= i
    for (int i = 0; i < 3; ++i) {
      const Scalar m = length[i], J = m * length[i] * length[i] / 12;
      Eigen::Matrix<Scalar, 2, 3> Jc = Eigen::Matrix<Scalar, 2, 3>::Zero();  // centre velocity per alpha_j rate
      Eigen::Vector3d w = Eigen::Vector3d::Zero();
      for (int j = 0; j <= i; ++j) {
        for (int p = j; p < i; ++p) Jc.col(j) += length[p] * perp(theta[p]);
        Jc.col(j) += 0.5 * length[i] * perp(theta[i]);
        w(j) = 1;
      }
      M += m * Jc.transpose() * Jc + J * w * w.transpose();
    }
    for (int j = 0; j < 3; ++j)
      for (int p = j; p < 3; ++p) C.col(j) += length[p] * perp(theta[p]);  // d(end point)/d alpha_j
  }

  ProjectiveCriterion criterion() const {
    return projectiveCriterion(M, C, ConstraintScaling{VecX::Ones(2), VecX::Ones(3)});
  }
};

// Paper 003, Fig. 3: over a full turn of the crank, alpha3 (the coupler-rocker angle) is the
// worst coordinate and a singular one where the crank lines up with the ground link
// (alpha1 = pi/2, 3 pi/2: the transmission angle is extremal there, alpha3' = 0 on the motion);
// alpha1 and alpha2 stay acceptable everywhere. Bounds: 1e-20 at the exact poses (rounding of
// squares of O(1) numbers); 0.1 for "acceptable" (measured minima printed; an acceptable
// coordinate keeps its cos^2 alpha an order of magnitude above singular).
TEST(ProjectiveCriterion, PaperFourBarInRelativeCoordinatesAlpha3SingularWhereCrankMeetsGround) {
  for (const Scalar alpha1 : {std::numbers::pi / 2, 3 * std::numbers::pi / 2}) {
    const ProjectiveCriterion c = RelativeFourBar(alpha1).criterion();
    ASSERT_EQ(c.rank, 2);
    EXPECT_LT(c.cos2_alpha[2], 1e-20) << alpha1;
    EXPECT_NE(c.best_set[0], 2) << alpha1;
  }
  Scalar min1 = 1, min2 = 1, min3 = 1;
  for (int k = 0; k < 360; ++k) {
    const Scalar alpha1 = 2 * std::numbers::pi * k / 360;
    const ProjectiveCriterion c = RelativeFourBar(alpha1).criterion();
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(c.cos2_alpha[i] + c.cos2_beta[i], 1, 1e-12);
    min1 = std::min(min1, c.cos2_alpha[0]);
    min2 = std::min(min2, c.cos2_alpha[1]);
    min3 = std::min(min3, c.cos2_alpha[2]);
  }
  EXPECT_GT(min1, 0.1);
  EXPECT_GT(min2, 0.1);
  EXPECT_LT(min3, std::min(min1, min2));
  std::printf("paper 003 four-bar: min cos^2 alpha over a crank turn: alpha1 %.3f, alpha2 %.3f, alpha3 %.2g\n", min1,
              min2, min3);
}

}  // namespace
}  // namespace loopdyn
