// The equations of motion in joint coordinates (issue 15) against their dense definitions, on
// every bundled model at its assembled state (cut joints, distance joints, knife edges and drivers
// kept as rows; 2D and 3D): C_r = C_K J, M_r = J^T M J and Q_r = J^T (F - M Jdot v_r), with J
// formed column by column by the tree pass (TreeKinematics::jacobian).
// JointSpaceEquations forms none of them through J. Tolerance: 1e-12 of the largest entry (sums
// of a few dozen products of O(1..100) numbers, in another order).

#include "loopdyn/dynamics/joint_space_equations.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "support/against_lagrange.hpp"

namespace loopdyn {
namespace {

using test::maxAbs;

Scalar maxAbs(const MatX& m) { return m.size() == 0 ? 0 : m.cwiseAbs().maxCoeff(); }

TEST(JointSpaceEquations, EqualTheirDefinitionsThroughJOnEveryBundledModel) {
  int models = 0, with_rows = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LOOPDYN_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().stem().string();
    const Model model = compile(io::readModelFile(entry.path().string()));
    const TreeKinematics tree(model);
    KinematicsWorkspace kin(model);
    State x = assemble(model, kin, initialState(model)).state;
    tree.relativeState(x, x.q_r, x.v_r);
    tree.absoluteState(x.q_r, x.v_r, x.t, x);
    DynamicsWorkspace ws(model);
    JointSpaceEquations e(model, tree);
    e.evaluate(model, tree, ws, x, Baumgarte{});

    MatX J;
    tree.jacobian(x.q_r, J);
    VecX bias;
    tree.absoluteAccelerations(x.q_r, x.v_r, VecX::Zero(tree.nv()), bias);
    MatX C_K(static_cast<Eigen::Index>(e.rows.size()), model.nv());
    for (std::size_t i = 0; i < e.rows.size(); ++i) C_K.row(static_cast<Eigen::Index>(i)) = ws.kin.C.dense().row(e.rows[i]);
    const MatX C_r = C_K * J, M_r = J.transpose() * ws.M * J;
    const VecX Q_r = J.transpose() * (ws.F - ws.M * bias);
    EXPECT_LT(maxAbs(MatX(e.C - C_r)), 1e-12 * (1 + maxAbs(C_r))) << name;
    EXPECT_LT(maxAbs(MatX(e.M - M_r)), 1e-12 * (1 + maxAbs(M_r))) << name;
    EXPECT_LT(maxAbs(VecX(e.Q - Q_r)), 1e-12 * (1 + maxAbs(Q_r))) << name;
    EXPECT_LT(maxAbs(VecX(e.bias - bias)), 1e-12 * (1 + maxAbs(bias))) << name;

    ++models;
    with_rows += !e.rows.empty();
  }
  EXPECT_GE(models, 23);
  EXPECT_GE(with_rows, 20);  // every bundled model but the open ones has rows outside its tree
}

// Every row's multiplier from the rows K's and the Newton-Euler backward pass: on every bundled
// model (relative lagrange's mu at the assembled state, its body accelerations) the multipliers
// satisfy every body's equation, C^T lambda = F - M A, to 1e-10 of the largest force (each tree
// joint's few rows solved exactly, the rounding carried down the tree), and the rows K keep mu
// bit for bit. (Equal unique reactions to absolute lagrange's: relative_lagrange_test.cpp.)
TEST(JointSpaceEquations, TreeMultipliersBalanceEveryBodyOnEveryBundledModel) {
  int models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LOOPDYN_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().stem().string();
    const Model model = compile(io::readModelFile(entry.path().string()));
    KinematicsWorkspace kin(model);
    const State x = assemble(model, kin, initialState(model)).state;
    const LagrangeFormulation relative(model, true);
    DynamicsWorkspace ws(model);
    ASSERT_TRUE((relative.solve(model, ws, x)).empty()) << name;
    const VecX force = ws.F - ws.M * ws.a;
    const VecX residual = ws.kin.C.dense().transpose() * ws.lambda - force;
    EXPECT_LT(maxAbs(residual), 1e-10 * (1 + maxAbs(force))) << name;
    const std::vector<int> rows = jointSpaceConstraintRows(model);
    for (std::size_t i = 0; i < rows.size(); ++i)
      EXPECT_EQ(ws.lambda(rows[i]), relative.rowsLeftMultipliers(ws)(static_cast<Eigen::Index>(i))) << name;
    ++models;
  }
  EXPECT_GE(models, 23);
}

}  // namespace
}  // namespace loopdyn
