// The kinetic Gram matrix G = C_r M^-1 C_r^T and its pivoted LDL^T (kinetic_gram.hpp): on random
// mechanisms with redundant joints (singular G), planar and spatial, the solve returns a solution
// of G w = r for every r in the range of G, the least-norm one's C_r^T w, and the assembled G is
// the dense product.

#include <gtest/gtest.h>

#include <Eigen/SVD>

#include <random>

#include "loopdyn/dynamics/kinetic_gram.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

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
      const State x = test::stateOf(model);
      KinematicsWorkspace kin(model);
      evaluateConstraints(model, kin, x);
      const ConstraintScaling scaling = constraintScaling(model);
      InverseMass inverse_mass;
      inverse_mass.update(model, kin.motion);
      KineticGram gram;
      gram.compute(model, kin, scaling, inverse_mass, model.nc());

      const MatX G = gram.scaledRows() * gram.inverseMassTimesCt();  // the dense product
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
      const VecX force = gram.scaledRows().transpose() * w, force_min = gram.scaledRows().transpose() * w_min;
      EXPECT_LT((force - force_min).norm(), 1e-8 * std::max<Scalar>(1, force_min.norm())) << dimension << "D, trial " << trial;
    }
  }
}

}  // namespace
}  // namespace loopdyn
