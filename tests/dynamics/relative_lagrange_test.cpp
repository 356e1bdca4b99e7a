// Lagrange's equations in relative coordinates (issue 15) against the absolute lagrange
// formulation on every bundled model: the same body accelerations and the same unique reactions,
// closed loops, redundant constraints, drivers, knife edges and singular configurations included.

#include "loopdyn/dynamics/relative_lagrange.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/dynamics/formulation_choice.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

TEST(RelativeLagrange, EveryBundledModelMovesAndLoadsItsJointsAsInAbsoluteCoordinates) {
  int models = 0, unique_pairs = 0;
  for (const auto& entry : fs::directory_iterator(LOOPDYN_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().stem().string();
    const Model model = compile(io::readModelFile(entry.path().string()));
    KinematicsWorkspace kws(model);
    const AssemblyResult assembled = assemble(model, kws, initialState(model));
    ASSERT_TRUE(assembled.converged) << name;
    const State& x = assembled.state;

    // the absolute lagrange formulation at x
    FormulationChoice choice;
    choice.method = "lagrange";
    const BuiltFormulation built = buildFormulation(model, x, choice);
    ASSERT_TRUE(built.formulation) << name << ": " << built.problem;
    DynamicsWorkspace dws(model);
    ASSERT_EQ(built.formulation->solve(model, dws, x), "") << name;

    // the same state in joint coordinates
    const RelativeLagrangeFormulation relative(model);
    DynamicsWorkspace rws(model);
    ASSERT_EQ(relative.solve(model, rws, x), "") << name;
    struct {
      const VecX& A;
      const VecX& lambda;
    } rel{rws.a, rws.lambda};

    // accelerations: unique for ideal constraints; both solve well-conditioned systems here, to
    // rounding amplified by the Gram matrices' conditioning (1e-9 of the accelerations' size)
    const Scalar a_scale = 1 + dws.a.cwiseAbs().maxCoeff();
    EXPECT_LT((rel.A - dws.a).cwiseAbs().maxCoeff(), 1e-9 * a_scale) << name;

    // reactions: each unique pair's generalized force C_X^T lambda_X is the same (non-unique
    // ones differ by a self-equilibrated set, docs/uniqueness.md)
    const UniquenessReport u = analyzeReactionUniqueness(model, kws, x);
    evaluateConstraints(model, kws, x);
    const VecX f_scale = (kws.C.transpose() * dws.lambda).cwiseAbs();
    for (const PairUniqueness& p : u.pairs) {
      if (!p.reaction.unique()) continue;
      const Pair& pair = model.pairs()[static_cast<std::size_t>(p.pair)];
      const auto C_X = kws.C.middleRows(pair.row, pair.rows);
      const VecX f_abs = C_X.transpose() * dws.lambda.segment(pair.row, pair.rows);
      const VecX f_rel = C_X.transpose() * rel.lambda.segment(pair.row, pair.rows);
      EXPECT_LT((f_rel - f_abs).cwiseAbs().maxCoeff(), 1e-8 * (1 + f_scale.maxCoeff())) << name << ", " << pair.name;
      ++unique_pairs;
    }
    ++models;
  }
  EXPECT_GE(models, 15);
  EXPECT_GE(unique_pairs, 30);  // 33 unique pairs among the bundled models
}

}  // namespace
}  // namespace loopdyn
