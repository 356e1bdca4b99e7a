// Redundant mechanisms against hand-reduced equivalents: the same bodies, the redundant
// constraints replaced by hand with fewer equations that allow the same motion. The lagrange
// formulation on the redundant model must give the motion of the non-redundant one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/model/model.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "loopdyn/spatial/rotation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

ModelSpec specOf(const std::string& name) { return io::readModelFile(test::modelPath(name)); }

JointSpec& jointNamed(ModelSpec& spec, const std::string& name) {
  const auto it = std::find_if(spec.joints.begin(), spec.joints.end(), [&](const JointSpec& j) { return j.name == name; });
  EXPECT_NE(it, spec.joints.end()) << name;
  return *it;
}

BodySpec& bodyNamed(ModelSpec& spec, const std::string& name) {
  const auto it = std::find_if(spec.bodies.begin(), spec.bodies.end(), [&](const BodySpec& b) { return b.name == name; });
  EXPECT_NE(it, spec.bodies.end()) << name;
  return *it;
}

/// A hinge between a crank's top and a point of a bar that the other cranks keep translating
/// (parallelogram): replaced by one equation, the crank's top at `length` from another point of
/// that bar. Two coinciding circles at the bars' horizontal poses, exactly where the original is
/// singular too.
void hingeToDistance(ModelSpec& spec, const std::string& joint, const std::string& bar_point, Scalar length) {
  JointSpec& j = jointNamed(spec, joint);
  j.type = JointType::Distance;
  j.second.marker = bar_point;
  j.length = length;
}

struct Motion {
  std::vector<Scalar> t;
  std::vector<VecX> q;
  SimulationResult result;
};

Motion simulateFor(const Model& model, Scalar t_end) {
  const State x0 = test::assembledInitialState(model);
  SimulationOptions options;
  options.t_end = t_end;
  options.sample_interval = 0.05;
  options.ode.rtol = 1e-10;
  options.ode.atol = 1e-12;
  LagrangeFormulation lagrange(model);
  Motion out;
  out.result = simulate(model, lagrange, x0, options, [&](const Sample& s, const DynamicsWorkspace&) {
    out.t.push_back(s.x.t);
    out.q.push_back(s.x.q);
  });
  return out;
}

/// Both models simulated for t_end (the reduced one checked to be the non-redundant equivalent);
/// `difference[k]`: the largest coordinate difference (m, rad or quaternion component) at sample k.
struct Comparison {
  Motion redundant, reduced;
  std::vector<Scalar> difference;
  /// largest difference over the samples with t < until
  Scalar upTo(Scalar until) const {
    Scalar d = 0;
    for (std::size_t k = 0; k < difference.size() && redundant.t[k] < until; ++k) d = std::max(d, difference[k]);
    return d;
  }
};

Comparison compare(const ModelSpec& redundant_spec, const ModelSpec& reduced_spec, Scalar t_end) {
  const Model redundant = compile(redundant_spec), reduced = compile(reduced_spec);
  KinematicsWorkspace kin_a(redundant), kin_b(reduced);
  const RankReport a = analyzeConstraints(redundant, kin_a, assemble(redundant, kin_a, initialState(redundant)).state);
  const RankReport b = analyzeConstraints(reduced, kin_b, assemble(reduced, kin_b, initialState(reduced)).state);
  EXPECT_GT(a.redundancy, 0);
  EXPECT_EQ(b.redundancy, 0) << "the hand-reduced model still has redundant equations";
  EXPECT_EQ(b.mobility, a.mobility) << "the hand-reduced model moves differently";
  Comparison c{simulateFor(redundant, t_end), simulateFor(reduced, t_end), {}};
  EXPECT_TRUE(c.redundant.result.ok) << c.redundant.result.failure;
  EXPECT_TRUE(c.reduced.result.ok) << c.reduced.result.failure;
  EXPECT_EQ(c.redundant.q.size(), c.reduced.q.size());
  for (std::size_t k = 0; k < std::min(c.redundant.q.size(), c.reduced.q.size()); ++k)
    c.difference.push_back((c.redundant.q[k] - c.reduced.q[k]).cwiseAbs().maxCoeff());
  return c;
}

/// Time of the first sample at which a crank (bodies named crank*) turns through the horizontal,
/// the modified four-bars' singular configuration; t_end if none does.
Scalar firstSingularCrossing(const ModelSpec& spec, const Motion& motion) {
  for (std::size_t k = 1; k < motion.q.size(); ++k)
    for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
      if (spec.bodies[b].name.rfind("crank", 0) != 0) continue;
      const auto phi = static_cast<Eigen::Index>(3 * b + 2);
      if (std::sin(motion.q[k - 1](phi)) * std::sin(motion.q[k](phi)) <= 0) return motion.t[k - 1];
    }
  return motion.t.back();
}

// Both runs at rtol 1e-10 and compared at every sample (0.05 s): a difference below 1e-6 leaves
// room for two independent integrations (each about 1e-9 per second of motion) over the window.
constexpr Scalar kSameMotion = 1e-6;

TEST(RedundantEquivalence, RedundantPendulumMovesLikeOneRod) {
  const ModelSpec redundant = specOf("redundant_pendulum");
  ModelSpec reduced = redundant;
  reduced.joints.erase(reduced.joints.begin() + 1);  // rod2, the copy of rod1
  EXPECT_LT(compare(redundant, reduced, 10).upTo(10), kSameMotion);
}

TEST(RedundantEquivalence, SpatialFourBarMovesLikeRRSU) {
  // four parallel revolutes in 3D (redundancy 3) against R-R-S-U: B spherical, O4 universal with
  // the rocker's cross axis, so that the rocker may neither spin about its length nor leave the plane
  const ModelSpec redundant = specOf("four_bar_spatial");
  ModelSpec reduced = redundant;
  jointNamed(reduced, "B").type = JointType::Spherical;
  jointNamed(reduced, "O4").type = JointType::Universal;
  for (MarkerSpec& marker : bodyNamed(reduced, "rocker").markers)
    if (marker.name == "a") marker.orientation = frameWithZAxis(Vec3::UnitY());  // marker z = rocker y
  EXPECT_LT(compare(redundant, reduced, 10).upTo(10), kSameMotion);
}

/// The same motion up to the first singular crossing, and both models through all crossings of
/// 10 s. Across a crossing the two agree only to about 1e-5 (measured: 1.7e-5 for the double
/// four-bar's first, with the default release; 7e-5 with release 1e-5, 1.5e-4 with 1e-3): the
/// released constraint force is missing over a short window on both sides, differently in each
/// model. That is the known limit of the absolute-coordinate formulations at singular
/// configurations (docs/simulation.md); the continuation formulations of paper 004 address it.
void expectSameMotionUpToTheFirstCrossing(const ModelSpec& redundant, const ModelSpec& reduced) {
  const Comparison c = compare(redundant, reduced, 10);
  const Scalar crossing = firstSingularCrossing(redundant, c.redundant);
  EXPECT_GT(crossing, 0.4) << redundant.name << ": too short a window to compare";
  EXPECT_LT(crossing, 10) << redundant.name << ": no singular crossing in 10 s";
  EXPECT_LT(c.upTo(crossing), kSameMotion) << redundant.name << " before t = " << crossing << " s";
  EXPECT_LT(c.redundant.result.energy_drift_max / c.redundant.result.energy_scale, 1e-6) << redundant.name;
}

TEST(RedundantEquivalence, ModifiedFourBarsMoveLikeTheirReducedParallelograms) {
  {
    const ModelSpec redundant = specOf("modified_double_four_bar");
    ModelSpec reduced = redundant;
    hingeToDistance(reduced, "T2", "p1", 1);
    expectSameMotionUpToTheFirstCrossing(redundant, reduced);
  }
  {
    const ModelSpec redundant = specOf("modified_triple_four_bar");
    ModelSpec reduced = redundant;
    hingeToDistance(reduced, "T2", "p1", 1);
    hingeToDistance(reduced, "T3", "p2", 1);
    expectSameMotionUpToTheFirstCrossing(redundant, reduced);
  }
  {
    const ModelSpec redundant = specOf("modified_2x2_four_bar");
    ModelSpec reduced = redundant;
    hingeToDistance(reduced, "T2", "p1", 1);
    hingeToDistance(reduced, "V2", "p1", 1);
    expectSameMotionUpToTheFirstCrossing(redundant, reduced);
  }
}

TEST(RedundantEquivalence, SpatialParallelogramMovesLikeItsReducedVersion) {
  // Spherical N (rod 6 on the platform, 3 equations) replaced by two distances from rod 6's end to
  // platform points X1, X2 (2 equations): the end stays on a circle through N whose tangent there
  // is the platform's z, and the rods always descend along z, so the circle crosses rod 6's sphere
  // transversally and N is kept.
  const ModelSpec redundant = specOf("spatial_parallelogram");
  ModelSpec reduced = redundant;
  BodySpec& platform = bodyNamed(reduced, "platform");
  platform.markers.push_back({"X1", Vec3(1.5, -0.5, 0), Mat3::Identity(), {}});
  platform.markers.push_back({"X2", Vec3(0.5, -0.5, 0), Mat3::Identity(), {}});
  JointSpec& n = jointNamed(reduced, "H");
  n.type = JointType::Distance;
  n.second.marker = "X1";
  n.length = std::sqrt(0.5);
  JointSpec second = n;
  second.name = "N2";
  second.second.marker = "X2";
  reduced.joints.push_back(second);
  // the triple pendulum is chaotic: differences of 1e-11 at 1 s grow tenfold per second or so
  // (measured: 2e-8 at 5 s, 1e-6 at 9.5 s), so the motions are compared over 6 s
  EXPECT_LT(compare(redundant, reduced, 6).upTo(6), kSameMotion);
}

}  // namespace
}  // namespace loopdyn
