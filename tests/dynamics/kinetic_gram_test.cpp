// The kinetic Gram matrix G = C_r M^-1 C_r^T and its pivoted LDL^T (kinetic_gram.hpp): on random
// mechanisms with redundant joints (singular G), planar and spatial, the solve returns a solution
// of G w = r for every r in the range of G, the least-norm one's C_r^T w, and the assembled G is
// the dense product.

#include <gtest/gtest.h>

#include <Eigen/SVD>

#include <random>
#include <string>

#include "loopdyn/dynamics/kinetic_gram.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// The dense products at a state, formed independently of KineticGram: C_r = diag(row) C and
/// M^-1 C_r^T with the dense mass matrix.
struct Dense {
  MatX Cr, MinvCt;
  MatX G() const { return Cr * MinvCt; }
};

/// G over all rows at x, and the dense products there.
Dense computeAt(const Model& model, const State& x, KineticGram& gram) {
  KinematicsWorkspace kin(model);
  evaluateConstraints(model, kin, x);
  InverseMass inverse_mass;
  inverse_mass.update(model, kin.motion);
  const ConstraintScaling scaling = model.scaling();
  gram.compute(model, kin, scaling, inverse_mass, model.nc());
  Dense dense;
  dense.Cr = scaling.row.asDiagonal() * kin.C.dense();
  MatX M;
  massMatrix(model, kin.motion, M);
  dense.MinvCt = M.ldlt().solve(MatX(dense.Cr.transpose()));
  return dense;
}

// Tolerance 1e-9 relative to |G| |w|: G's condition on its range (the ratio of its largest to its
// smallest nonzero pivot) stays below 1e5 on these mechanisms, and pivots below 1e-10 of the
// largest are dropped, which perturbs w by that ratio times rounding at most.
TEST(KineticGram, SolvesEveryConsistentSystemOfRedundantMechanisms) {
  std::mt19937 rng(11);
  for (const int dimension : {2, 3}) {
    for (int trial = 0; trial < 12; ++trial) {
      test::RandomMechanismOptions options;
      options.bodies = 3 + trial % 4;
      options.loop_closures = trial % 2;
      options.duplicate_joints = 1 + trial % 2;  // G singular
      const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
      KineticGram gram;
      const Dense dense = computeAt(model, test::stateOf(model), gram);

      const MatX G = dense.G();
      Eigen::JacobiSVD<MatX> svd(G, Eigen::ComputeThinU | Eigen::ComputeThinV);
      svd.setThreshold(1e-10);
      ASSERT_LT(svd.rank(), G.rows()) << "the duplicated joints make G singular";
      std::normal_distribution<Scalar> normal;
      VecX y(G.rows());
      for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = normal(rng);
      const VecX r = G * y;  // in the range of G
      VecX w = r;
      gram.solveInPlace(w);
      EXPECT_LT((G * w - r).norm(), 1e-9 * G.norm() * std::max<Scalar>(1, w.norm()))
          << dimension << "D, trial " << trial;
      // every solution gives the same C_r^T w (kinetic_gram.hpp): the least-norm one's
      const VecX w_min = svd.solve(r);
      const VecX force = dense.Cr.transpose() * w, force_min = dense.Cr.transpose() * w_min;
      EXPECT_LT((force - force_min).norm(), 1e-8 * std::max<Scalar>(1, force_min.norm())) << dimension << "D, trial " << trial;
    }
  }
}

// C_r and M^-1 C_r^T are kept by bodies (a row's entries on the bodies it touches): their products
// with vectors equal the dense ones, on random planar and spatial mechanisms, to 1e-13 relative
// (sums of at most 12 products, in another order).
TEST(KineticGram, ProductsByBodiesEqualTheDenseOnes) {
  std::mt19937 rng(3);
  std::normal_distribution<Scalar> normal;
  for (const int dimension : {2, 3}) {
    for (int trial = 0; trial < 6; ++trial) {
      test::RandomMechanismOptions options;
      options.bodies = 2 + trial;
      options.loop_closures = trial % 2;
      const Model model = compile(test::randomMechanismSpec(dimension, rng, options));
      KineticGram gram;
      const Dense dense = computeAt(model, test::stateOf(model), gram);
      VecX v(model.nv()), w(model.nc());
      for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = normal(rng);
      for (Eigen::Index i = 0; i < w.size(); ++i) w(i) = normal(rng);
      VecX Cv;
      gram.rowsTimes(v, Cv);
      const VecX Cv_dense = dense.Cr * v;
      EXPECT_LE((Cv - Cv_dense).norm(), 1e-13 * dense.Cr.norm() * v.norm()) << dimension << "D, trial " << trial;
      VecX a = v;
      gram.subtractInverseMassRowsTransposedTimes(w, a);
      const VecX a_dense = v - dense.MinvCt * w;
      EXPECT_LE((a - a_dense).norm(), 1e-13 * (v.norm() + dense.MinvCt.norm() * w.norm())) << dimension << "D, trial " << trial;
    }
  }
}

// Large G (kSparseGramRows rows or more) are factorised sparse where their rows are independent
// and well conditioned, and dense otherwise (kinetic_gram.hpp). A ladder of 32 four-bar loops
// (65 bodies, 194 rows) at a regular configuration takes the sparse path; random planar and
// spatial mechanisms of 40 / 18 bodies with duplicated joints (G singular) fall back to the dense one.
// Either way w solves G w = r, to 1e-10 relative to |G| |w| (the ladder's G is conditioned below
// 1e4 there; the fallback as in the test above).
TEST(KineticGram, LargeMechanismsFactoriseSparseWhereTheirRowsAreIndependent) {
  std::mt19937 rng(23);
  std::normal_distribution<Scalar> normal;
  const auto check = [&](const Model& model, bool expect_sparse, const std::string& label) {
    KineticGram gram;
    const MatX G = computeAt(model, test::assembledInitialState(model), gram).G();
    ASSERT_GE(model.nc(), kSparseGramRows) << label;
    EXPECT_EQ(gram.sparse(), expect_sparse) << label;
    VecX y(G.rows());
    for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = normal(rng);
    const VecX r = G * y;  // (in the range of G also where it is singular)
    VecX w = r;
    gram.solveInPlace(w);
    EXPECT_LT((G * w - r).norm(), 1e-10 * G.norm() * std::max<Scalar>(1, w.norm())) << label;
    if (expect_sparse) {
      EXPECT_EQ(gram.rank(), G.rows()) << label;
      EXPECT_LT((w - y).norm(), 1e-8 * y.norm()) << label << ": G regular, the solution unique";
    }
  };
  test::LadderOptions ladder;
  ladder.loops = 32;
  check(compile(test::fourBarLadderSpec(ladder)), true, "ladder of 32 loops");
  for (const int dimension : {2, 3}) {
    test::RandomMechanismOptions options;
    options.bodies = dimension == 2 ? 40 : 18;
    options.duplicate_joints = 2;
    check(compile(test::randomMechanismSpec(dimension, rng, options)), false,
          std::to_string(dimension) + "D random mechanism with duplicated joints");
  }
}

}  // namespace
}  // namespace loopdyn
