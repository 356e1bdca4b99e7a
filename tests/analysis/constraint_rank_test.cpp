// The papers' figures for every bundled model, and invariance of the rank decisions.

#include "loopdyn/analysis/constraint_rank.hpp"

#include <gtest/gtest.h>

#include <random>

#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

struct Expected {
  const char* model;
  int n, m, h, rank, rank_holonomic, rank_nonholonomic, generic_rank;
  const char* source;
};

void PrintTo(const Expected& e, std::ostream* os) { *os << e.model; }

RankReport analyze(const Model& model) {
  KinematicsWorkspace ws(model);
  const AssemblyResult assembled = assemble(model, ws, initialState(model));
  EXPECT_TRUE(assembled.converged) << model.name() << ": " << assembled.message;
  return analyzeConstraints(model, ws, assembled.state);
}

class PaperFigures : public ::testing::TestWithParam<Expected> {};

TEST_P(PaperFigures, RanksRedundancyMobilityAndSingularityMatch) {
  const Expected& e = GetParam();
  const Model model = test::loadModel(e.model);
  const RankReport r = analyze(model);
  EXPECT_EQ(r.n, e.n) << e.source;
  EXPECT_EQ(r.m, e.m) << e.source;
  EXPECT_EQ(r.h, e.h) << e.source;
  EXPECT_EQ(r.rank, e.rank) << e.source;
  EXPECT_EQ(r.rank_holonomic, e.rank_holonomic) << e.source;
  EXPECT_EQ(r.rank_nonholonomic, e.rank_nonholonomic) << e.source;
  EXPECT_EQ(r.redundancy, e.m + e.h - e.rank) << e.source;
  EXPECT_EQ(r.mobility, e.n - e.rank) << e.source;
  EXPECT_EQ(r.grubler, e.n - e.m - e.h);
  EXPECT_EQ(r.generic_rank, e.generic_rank) << e.source;
  EXPECT_EQ(r.singular, e.rank < e.generic_rank) << e.source;
  EXPECT_EQ(static_cast<int>(r.dependent_equations.size()), e.m + e.h - e.rank);
  EXPECT_EQ(static_cast<int>(r.independent_equations.size()), e.rank);
}

INSTANTIATE_TEST_SUITE_P(
    BundledModels, PaperFigures,
    ::testing::Values(
        Expected{"double_four_bar", 15, 14, 0, 14, 14, 0, 14, "paper 004, sect. 3.2"},
        Expected{"double_four_bar_singular", 15, 14, 0, 12, 12, 0, 14, "paper 004, sect. 3.2: rank 12 horizontal"},
        Expected{"modified_double_four_bar", 12, 12, 0, 11, 11, 0, 11, "paper 004, sect. 3.3"},
        Expected{"modified_double_four_bar_singular", 12, 12, 0, 10, 10, 0, 11, "paper 004, sect. 3.3"},
        Expected{"modified_triple_four_bar", 15, 16, 0, 14, 14, 0, 14, "paper 004, sect. 3.4"},
        Expected{"modified_triple_four_bar_singular", 15, 16, 0, 13, 13, 0, 14, "paper 004, sect. 3.4"},
        Expected{"modified_2x2_four_bar", 24, 24, 0, 22, 22, 0, 22, "paper 004, sect. 3.5"},
        Expected{"modified_2x2_four_bar_singular", 24, 24, 0, 21, 21, 0, 22, "paper 004, sect. 3.5"},
        Expected{"redundant_pendulum", 3, 2, 0, 1, 1, 0, 1, "paper 004, sect. 3.1, eq. (30)"},
        Expected{"mobile_robot", 21, 17, 5, 20, 17, 4, 20, "paper 001, eqs. (35)-(36)"},
        Expected{"spatial_parallelogram", 60, 45, 0, 44, 44, 0, 44, "paper 000, sect. 4"},
        Expected{"four_bar_spatial", 18, 20, 0, 17, 17, 0, 17, "four parallel revolutes: Grubler -2, mobility 1"},
        Expected{"four_bar_planar", 9, 8, 0, 8, 8, 0, 8, "planar four-bar"},
        Expected{"three_rpr_singular", 21, 21, 0, 20, 20, 0, 21, "3-RPR, legs meeting in one point (issue 14)"}),
    [](const auto& info) { return std::string(info.param.model); });

TEST(ConstraintRank, DoubleFourBarSingularityHasTwoVanishingPivots) {
  // paper 004, Fig. 2: two diagonal entries of R1 vanish at the horizontal configuration
  const RankReport r = analyze(test::loadModel("double_four_bar_singular"));
  ASSERT_EQ(r.scaled_diagonal.size(), 14u);
  EXPECT_GT(r.scaled_diagonal[11], 1e-3);
  EXPECT_LT(r.scaled_diagonal[12], 1e-12);
  EXPECT_LT(r.scaled_diagonal[13], 1e-12);
}

// A fully driven platform cannot move with its drivers held, so its generic rank comes from
// configurations with the drivers released (C's rows do not depend on the values they prescribe);
// at the radial pose the extra motion is the platform turning about its centre, the point where the
// three leg lines meet (the legs turn with it; the platform centre stays: rate 0 by 1e-12).
TEST(ConstraintRank, DrivenPlatformAtItsSingularPoseHasTheRotationAboutTheLegsMeetingPoint) {
  const Model model = test::loadModel("three_rpr_singular");
  const RankReport r = analyze(model);
  EXPECT_TRUE(r.singular);
  EXPECT_TRUE(r.generic_from_free_drivers);
  EXPECT_GT(r.generic_samples_used, 0);
  KinematicsWorkspace ws(model);
  const State x = assemble(model, ws, initialState(model)).state;
  evaluateConstraints(model, ws, x);
  const AdmissibleMotions motions = admissibleMotions(model, ws, kRankThreshold);
  ASSERT_EQ(motions.motions.cols(), 1);
  const VecX platform = motions.motions.col(0).head(3);  // body 0: x, y, phi
  EXPECT_GT(std::abs(platform(2)), 0.1);
  EXPECT_LT(platform.head(2).norm(), 1e-12 * std::abs(platform(2)));
}

TEST(ConstraintRank, UnchangedWhenModelScaledByThousand) {
  // every length x1000 (mm instead of m): the scaled matrix and all decisions are the same
  ModelSpec spec = io::readModelFile(test::modelPath("modified_triple_four_bar_singular"));
  const RankReport before = analyze(compile(spec));
  for (MarkerSpec& mk : spec.ground_markers) mk.position *= 1000;
  for (BodySpec& b : spec.bodies) {
    b.position *= 1000;
    b.inertia *= 1e6;
    for (MarkerSpec& mk : b.markers) mk.position *= 1000;
  }
  const RankReport after = analyze(compile(spec));
  EXPECT_EQ(after.rank, before.rank);
  EXPECT_EQ(after.generic_rank, before.generic_rank);
  EXPECT_EQ(after.dependent_equations, before.dependent_equations);
  for (std::size_t k = 0; k < before.scaled_diagonal.size(); ++k)
    EXPECT_NEAR(after.scaled_diagonal[k], before.scaled_diagonal[k], 1e-9);
}

TEST(ConstraintRank, DependentEquationsAreCombinationsOfKeptOnes) {
  // robot: the rows QR marks dependent lie in the span of the kept rows (least-squares residual 0)
  const Model model = test::loadModel("mobile_robot");
  KinematicsWorkspace ws(model);
  const AssemblyResult x = assemble(model, ws, initialState(model));
  const RankReport r = analyzeConstraintsAt(model, ws, x.state);
  MatX kept(r.independent_equations.size(), model.nv());
  for (std::size_t k = 0; k < r.independent_equations.size(); ++k) kept.row(k) = ws.C.dense().row(r.independent_equations[k]);
  for (int row : r.dependent_equations) {
    const VecX target = ws.C.dense().row(row).transpose();
    const VecX coefficients = kept.transpose().colPivHouseholderQr().solve(target);
    EXPECT_LT((kept.transpose() * coefficients - target).norm(), 1e-10) << model.equations()[row].name;
  }
}

// A tree of joints has no singular configuration (fullRankEverywhere: the watch leaves it
// alone): random trees of every joint type but the distance joint, 2D and 3D, at random joint
// coordinates -- far from where they were built -- keep C at full row rank by a margin (the
// scaled QR's |R_rr| / |R_11|); a loop, a driver, a knife edge or a distance joint makes the
// structure no proof.
TEST(FullRankEverywhere, TreesOfJointsKeepFullRankAtEveryConfiguration) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<Scalar> angle(-3, 3);
  for (const int dimension : {2, 3}) {
    test::RandomMechanismOptions options;
    options.bodies = 6;
    options.tree_types = dimension == 2 ? std::vector<JointType>{JointType::Revolute, JointType::Prismatic, JointType::Fixed}
                                        : std::vector<JointType>{JointType::Revolute, JointType::Prismatic,
                                                                 JointType::Cylindrical, JointType::Universal,
                                                                 JointType::Spherical, JointType::Planar, JointType::Fixed};
    for (int trial = 0; trial < 10; ++trial) {
      const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
      ASSERT_TRUE(fullRankEverywhere(model)) << dimension << "D trial " << trial;
      const TreeKinematics tree(model);
      KinematicsWorkspace ws(model);
      for (int pose = 0; pose < 5; ++pose) {
        VecX q_r(tree.nq());
        for (Eigen::Index k = 0; k < q_r.size(); ++k) q_r(k) = angle(rng);
        tree.normalize(q_r);
        State x = initialState(model);
        tree.absolutePositions(q_r, 0, x);
        const RankReport report = analyzeConstraintsAt(model, ws, x);
        EXPECT_EQ(report.rank, model.nc()) << dimension << "D trial " << trial << " pose " << pose;
      }
      // so its generic rank is every row, without samples
      const RankReport generic = analyzeConstraints(model, ws, initialState(model));
      EXPECT_TRUE(generic.full_rank_by_structure);
      EXPECT_EQ(generic.generic_rank, model.nc());
      EXPECT_EQ(generic.generic_samples_used, 0);
      EXPECT_FALSE(generic.singular);
    }
  }
  test::RandomMechanismOptions loop;
  loop.bodies = 4;
  loop.loop_closures = 1;
  EXPECT_FALSE(fullRankEverywhere(compile(test::randomMechanismSpec(2, rng, loop))));
  test::RandomMechanismOptions edge = loop;
  edge.loop_closures = 0;
  edge.knife_edges = 1;
  EXPECT_FALSE(fullRankEverywhere(compile(test::randomMechanismSpec(2, rng, edge))));
  test::RandomMechanismOptions distance;
  distance.tree_types = {JointType::Distance};
  EXPECT_FALSE(fullRankEverywhere(compile(test::randomMechanismSpec(3, rng, distance))));
  EXPECT_FALSE(fullRankEverywhere(test::loadModel("slider_crank")));     // a closed loop
  EXPECT_FALSE(analyze(test::loadModel("slider_crank")).full_rank_by_structure);  // (sampled)
  EXPECT_FALSE(fullRankEverywhere(test::loadModel("mobile_robot")));     // knife edges
  EXPECT_FALSE(fullRankEverywhere(test::loadModel("parallelogram_lift")));  // a driver and loops
}

}  // namespace
}  // namespace loopdyn
