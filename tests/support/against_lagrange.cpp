#include "support/against_lagrange.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "test_models.hpp"

namespace loopdyn::test {

Scalar maxAbs(const VecX& v) { return v.size() == 0 ? 0 : v.cwiseAbs().maxCoeff(); }

int expectLagrangeDynamicsOnEveryBundledModel(const std::function<std::unique_ptr<Formulation>(const Model&)>& make,
                                              int& models, bool regular_only) {
  int unique_pairs = 0;
  models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LOOPDYN_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().stem().string();
    const Model model = compile(io::readModelFile(entry.path().string()));
    KinematicsWorkspace kws(model);
    const AssemblyResult assembled = assemble(model, kws, initialState(model));
    EXPECT_TRUE(assembled.converged) << name;
    if (!assembled.converged) continue;
    const State& x = assembled.state;
    if (regular_only && analyzeConstraints(model, kws, x, RankOptions{}).singular) continue;
    const LagrangeFormulation lagrange(model);
    const std::unique_ptr<Formulation> other = make(model);
    DynamicsWorkspace lws(model), ows(model);
    EXPECT_TRUE((lagrange.solve(model, lws, x)).empty()) << name;
    EXPECT_TRUE((other->solve(model, ows, x)).empty()) << name;
    EXPECT_LT(maxAbs(ows.a - lws.a), 1e-9 * (1 + maxAbs(lws.a))) << name << ", " << other->name();

    // each unique pair's generalized force C_X^T lambda_X is the same (non-unique ones differ by
    // a self-equilibrated set, docs/uniqueness.md)
    const UniquenessReport u = analyzeReactionUniqueness(model, kws, x);
    evaluateConstraints(model, kws, x);
    const VecX f_scale = kws.C.dense().transpose() * lws.lambda;
    for (const PairUniqueness& p : u.pairs) {
      if (!p.reaction.unique()) continue;
      const Pair& pair = model.pairs()[static_cast<std::size_t>(p.pair)];
      const auto C_X = kws.C.dense().middleRows(pair.row, pair.rows);
      const VecX f_lagrange = C_X.transpose() * lws.lambda.segment(pair.row, pair.rows);
      const VecX f_other = C_X.transpose() * ows.lambda.segment(pair.row, pair.rows);
      EXPECT_LT(maxAbs(f_other - f_lagrange), 1e-8 * (1 + maxAbs(f_scale))) << name << ", " << pair.name;
      ++unique_pairs;
    }
    ++models;
  }
  return unique_pairs;
}

Model randomTree(int dimension, int bodies, bool serial, std::mt19937& rng) {
  std::uniform_real_distribution<Scalar> u(-2, 2);
  RandomMechanismOptions options;
  options.bodies = bodies;
  options.serial = serial;
  for (JointType type : {JointType::Revolute, JointType::Prismatic, JointType::Cylindrical, JointType::Universal,
                         JointType::Spherical, JointType::Planar, JointType::Fixed})
    if (jointTypeAllowed(type, dimension)) options.tree_types.push_back(type);
  ModelSpec spec = randomMechanismSpec(dimension, rng, options);
  spec.gravity = dimension == 2 ? Vec3(0, -9.81, 0) : Vec3(u(rng), u(rng), -9.81);
  for (std::size_t j = 0; j < spec.joints.size(); j += 2) std::swap(spec.joints[j].first, spec.joints[j].second);
  return compile(spec);
}

void randomJointState(const Model& model, const TreeKinematics& tree, std::mt19937& rng, VecX& q, VecX& v) {
  std::uniform_real_distribution<Scalar> u(-2, 2);
  VecX neutral(tree.nq());
  v.resize(tree.nv());
  for (BodyIndex b = 0; b < model.nb(); ++b)
    tree.joint(b).neutral(neutral.data() + model.topology().links[static_cast<std::size_t>(b)].q_offset);
  for (Eigen::Index k = 0; k < v.size(); ++k) v(k) = u(rng);
  tree.integrate(neutral, v, 1, q);
  for (Eigen::Index k = 0; k < v.size(); ++k) v(k) = u(rng);
}

}  // namespace loopdyn::test
