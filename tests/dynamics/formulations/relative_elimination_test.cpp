// Elimination in joint coordinates (relative_elimination.hpp, issue 15): with the same rows
// eliminated it is the absolute elimination formulation written on fewer unknowns, so the body
// accelerations and *every* multiplier -- the non-unique ones included, which the elimination
// decides -- equal the absolute formulation's; the choice of rows, the refusals and the stop at a
// singular configuration.

#include "loopdyn/dynamics/formulations/elimination.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/sim/formulation_choice.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "support/against_lagrange.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

// Every regular bundled model, the rows QR picks in joint coordinates eliminated in both: the
// accelerations to 1e-9 of their size and every multiplier to 1e-8 of the largest (two solves of
// the same well-conditioned equations in different unknowns; measured 1.2e-13 and 4.8e-15).
TEST(RelativeElimination, EqualsAbsoluteEliminationOfTheSameRowsOnEveryBundledModel) {
  int models = 0, redundant = 0;
  Scalar worst_a = 0, worst_lambda = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LOOPDYN_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().stem().string();
    const Model model = test::loadModel(name);
    const State x0 = test::assembledInitialState(model);
    KinematicsWorkspace kin(model);
    const RankReport rank = analyzeConstraints(model, kin, x0, RankOptions{});
    if (rank.singular) continue;
    FormulationChoice choice;
    choice.method = "elimination";
    choice.coordinates = "relative";
    const BuiltFormulation built = buildFormulation(model, x0, choice);
    ASSERT_TRUE(built.formulation) << name << ": " << built.problem;
    const std::vector<int> rows = built.formulation->eliminatedEquations();
    EXPECT_EQ(static_cast<int>(rows.size()), model.nc() - rank.rank) << name;
    const EliminationFormulation absolute(model, rows);
    DynamicsWorkspace wa(model), wr(model);
    ASSERT_TRUE((absolute.solve(model, wa, x0)).empty()) << name;
    ASSERT_TRUE((built.formulation->solve(model, wr, x0)).empty()) << name;
    EXPECT_LT(test::maxAbs(wr.a - wa.a), 1e-9 * (1 + test::maxAbs(wa.a))) << name;
    EXPECT_LT(test::maxAbs(wr.lambda - wa.lambda), 1e-8 * (1 + test::maxAbs(wa.lambda))) << name;
    for (const int row : rows) EXPECT_EQ(wr.lambda(row), 0) << name << ", " << row;
    worst_a = std::max(worst_a, test::maxAbs(wr.a - wa.a) / (1 + test::maxAbs(wa.a)));
    worst_lambda = std::max(worst_lambda, test::maxAbs(wr.lambda - wa.lambda) / (1 + test::maxAbs(wa.lambda)));
    ++models;
    redundant += !rows.empty();
  }
  std::printf("%d models, %d with redundant rows: accelerations %.2g, multipliers %.2g (relative)\n", models,
              redundant, worst_a, worst_lambda);
  EXPECT_GE(models, 21);
  EXPECT_GE(redundant, 6);
}

BuiltFormulation eliminating(const Model& model, const State& x0, std::vector<std::string> names) {
  FormulationChoice choice;
  choice.coordinates = "relative";
  choice.eliminate = std::move(names);
  return buildFormulation(model, x0, choice);
}

// A user's choice: an equation of a cut joint goes (and gives the same motion as the automatic
// choice); a tree joint's equation cannot (joint coordinates satisfy it), nor too few or too many.
TEST(RelativeElimination, NamedEquationsMustBeRedundantRowsOutsideTheSpanningTree) {
  const Model model = test::loadModel("modified_double_four_bar");
  const State x0 = test::assembledInitialState(model);
  FormulationChoice automatic;
  automatic.method = "elimination";
  automatic.coordinates = "relative";
  const BuiltFormulation chosen = buildFormulation(model, x0, automatic);
  ASSERT_TRUE(chosen.formulation) << chosen.problem;
  ASSERT_EQ(chosen.eliminated.size(), 1u);

  const BuiltFormulation named = eliminating(model, x0, chosen.eliminated);
  ASSERT_TRUE(named.formulation) << named.problem;
  DynamicsWorkspace w1(model), w2(model);
  ASSERT_TRUE((named.formulation->solve(model, w1, x0)).empty());
  ASSERT_TRUE((chosen.formulation->solve(model, w2, x0)).empty());
  EXPECT_LT(test::maxAbs(w1.a - w2.a), 1e-12);

  // a tree joint's equation (the first equation of the first tree joint)
  std::string tree_equation;
  for (std::size_t j = 0; j < model.joints().size() && tree_equation.empty(); ++j)
    if (model.topology().roles[j] == JointRole::Tree)
      tree_equation = model.equations()[static_cast<std::size_t>(model.joints()[j].row)].name;
  const BuiltFormulation tree = eliminating(model, x0, {tree_equation});
  EXPECT_FALSE(tree.formulation);
  EXPECT_NE(tree.problem.find("spanning tree"), std::string::npos) << tree.problem;

  std::vector<std::string> two = chosen.eliminated;
  for (const int row : jointSpaceConstraintRows(model))
    if (model.equations()[static_cast<std::size_t>(row)].name != two.front()) {
      two.push_back(model.equations()[static_cast<std::size_t>(row)].name);
      break;
    }
  const BuiltFormulation too_many = eliminating(model, x0, two);
  EXPECT_FALSE(too_many.formulation);
  EXPECT_NE(too_many.problem.find("removes too many"), std::string::npos) << too_many.problem;
}

// At a singular configuration the kept rows turn dependent: the solve says so, naming them
// (the same mechanism at its horizontal pose, the bundled *_singular model).
TEST(RelativeElimination, StopsAtASingularConfigurationNamingTheDependentEquations) {
  const Model model = test::loadModel("modified_double_four_bar");
  const Model singular = test::loadModel("modified_double_four_bar_singular");
  ASSERT_EQ(model.nc(), singular.nc());
  ASSERT_EQ(model.nq(), singular.nq());
  FormulationChoice choice;
  choice.method = "elimination";
  choice.coordinates = "relative";
  const BuiltFormulation built = buildFormulation(model, test::assembledInitialState(model), choice);
  ASSERT_TRUE(built.formulation) << built.problem;
  DynamicsWorkspace ws(model);
  const Problem problem = built.formulation->solve(model, ws, test::assembledInitialState(singular));
  EXPECT_EQ(problem.kind, Problem::Kind::KeptRowsSingular) << problem;
  EXPECT_FALSE(problem.names.empty()) << problem;
  EXPECT_LT(problem.rank, problem.count) << problem;
  EXPECT_FALSE(built.formulation->passesSingularConfigurations());
}

}  // namespace
}  // namespace loopdyn
