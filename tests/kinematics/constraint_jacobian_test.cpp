// C stored by rows (constraint_jacobian.hpp): its products and views against the dense matrix it
// forms, on mechanisms with every pair type, planar and spatial.

#include <gtest/gtest.h>

#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

// The sparse products sum the same few terms (at most 12 a row) as the dense ones in another
// order: they differ by rounding, a few ulp of entries of order 1-10 times |v| <= 10.
constexpr Scalar kRounding = 1e-12;

class ConstraintJacobianTest : public ::testing::TestWithParam<int> {};

TEST_P(ConstraintJacobianTest, ProductsAndViewsEqualTheDenseMatrix) {
  const int dimension = GetParam();
  std::mt19937 rng(23 + dimension);
  for (int trial = 0; trial < 10; ++trial) {
    const Model model = compile(test::everyPairTypeSpec(dimension, rng));
    KinematicsWorkspace ws(model);
    const State x = test::randomState(model, rng);
    evaluateConstraints(model, ws, x);
    const ConstraintJacobian& C = ws.C;
    const MatX& dense = C.dense();
    ASSERT_EQ(dense.rows(), model.nc());
    ASSERT_EQ(dense.cols(), model.nv());
    const int w = model.vPerBody();

    // every nonzero of the dense matrix lies in a block of its row's pair's bodies
    for (Eigen::Index row = 0; row < C.rows(); ++row) {
      const Pair& pair = model.pairs()[static_cast<std::size_t>(model.equations()[static_cast<std::size_t>(row)].pair)];
      for (BodyIndex b = 0; b < model.nb(); ++b) {
        const auto entries = dense.row(row).segment(b * w, w);
        if (b != pair.body1 && b != pair.body2) {
          EXPECT_EQ(entries.squaredNorm(), 0) << "row " << row << " body " << b;
        }
        EXPECT_EQ(VecX(entries.transpose()), VecX(C.onBody(row, b))) << "row " << row << " body " << b;
      }
    }

    std::uniform_real_distribution<Scalar> uniform(-10, 10);
    VecX v(model.nv()), w_rows(model.nc());
    for (Eigen::Index k = 0; k < v.size(); ++k) v(k) = uniform(rng);
    for (Eigen::Index k = 0; k < w_rows.size(); ++k) w_rows(k) = uniform(rng);
    VecX Cv(model.nc());
    C.times(v, Cv);
    EXPECT_LE((Cv - dense * v).lpNorm<Eigen::Infinity>(), kRounding);
    for (Eigen::Index row = 0; row < C.rows(); ++row) EXPECT_EQ(C.rowTimes(row, v), Cv(row));
    VecX Ctw = VecX::Ones(model.nv());
    C.addTransposedTimes(w_rows, Ctw);
    EXPECT_LE((Ctw - VecX::Ones(model.nv()) - dense.transpose() * w_rows).lpNorm<Eigen::Infinity>(), kRounding);
    const MatX X = MatX::Random(model.nv(), 3);
    MatX CX = MatX::Zero(model.nc(), 3);
    for (Eigen::Index row = 0; row < C.rows(); ++row) C.addRowTimes(row, X, CX.row(row));
    EXPECT_LE((CX - dense * X).lpNorm<Eigen::Infinity>(), kRounding);
  }
}

INSTANTIATE_TEST_SUITE_P(PlanarAndSpatial, ConstraintJacobianTest, ::testing::Values(2, 3));

}  // namespace
}  // namespace loopdyn
