// The joint coordinates' error weights (issue 46): an absolute run's weights pulled back through
// the tree, by subtree sums in O(n), equal the columns' norms in the absolute weights formed from
// the dense Jacobian J (TreeKinematics::jacobian), on random planar and spatial trees.

#include "loopdyn/kinematics/joint_error_weights.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "support/against_lagrange.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

constexpr Scalar kRtol = 1e-6, kAtol = 1e-8;

Scalar squaredWeight(Scalar c, Scalar cap = std::numeric_limits<Scalar>::infinity()) {
  const Scalar w = 1 / (kAtol + kRtol * std::min(std::abs(c), cap));
  return w * w;
}

/// Per row of J (Model's velocity layout), the squared weight of what that row moves: the body's
/// centre coordinates and its turn (3D: a quaternion's four weights / 16 per axis), or its
/// velocities.
void rowWeights(const Model& model, const State& x, VecX& position, VecX& velocity) {
  const int nv = model.vPerBody(), nq = model.qPerBody();
  position.resize(model.nv()), velocity.resize(model.nv());
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const Scalar* q = x.q.data() + nq * b;
    for (int i = 0; i < nv; ++i) velocity(nv * b + i) = squaredWeight(x.v(nv * b + i));
    if (model.dimension() == 2) {
      position.segment(3 * b, 3) << squaredWeight(q[0]), squaredWeight(q[1]), squaredWeight(q[2], std::numbers::pi);
    } else {
      const Scalar turn = (squaredWeight(q[3]) + squaredWeight(q[4]) + squaredWeight(q[5]) + squaredWeight(q[6])) / 16;
      position.segment(6 * b, 6) << squaredWeight(q[0]), squaredWeight(q[1]), squaredWeight(q[2]), turn, turn, turn;
    }
  }
}

TEST(JointErrorWeights, AreTheAbsoluteNormsOfTheJacobiansColumns) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 16; ++trial) {
    test::RandomMechanismOptions options;
    options.bodies = 2 + trial % 6;
    options.loop_closures = 1 + trial % 2;  // joints traversed both ways
    const Model model = compile(test::randomMechanismSpec(trial % 2 == 0 ? 2 : 3, rng, options));
    const TreeKinematics tree(model);
    if (tree.nv() == 0) continue;  // (every joint fixed: nothing to weigh)
    VecX q_r, v_r;
    test::randomJointState(model, tree, rng, q_r, v_r);
    State x;
    tree.absoluteState(q_r, v_r, 0, x);
    std::vector<BodyMotion> motion;
    for (BodyIndex b = 0; b < model.nb(); ++b) motion.push_back(bodyMotion(model, x.q, x.v, b));
    const int carried = tree.nq() + tree.nv() + 1, absolute = model.nq() + model.nv() + 1;
    JointErrorWeights weights(tree, kRtol, kAtol, carried, absolute);
    VecX wq(tree.nq()), wv(tree.nv());
    weights.compute(x, q_r, motion, wq.data(), wv.data());

    MatX J;
    tree.jacobian(q_r, J);
    VecX position, velocity;
    rowWeights(model, x, position, velocity);
    const Scalar ratio = static_cast<Scalar>(carried) / absolute;
    const VecX wq_columns = (ratio * position.asDiagonal() * J.cwiseAbs2()).colwise().sum().cwiseSqrt().transpose();
    const VecX wv_columns = (ratio * velocity.asDiagonal() * J.cwiseAbs2()).colwise().sum().cwiseSqrt().transpose();
    EXPECT_LT((wv - wv_columns).cwiseQuotient(wv_columns).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
    for (const TreeKinematics::LinkCoordinates& link : tree.links()) {
      const int nq = link.model->nq(), nv = link.model->nv();
      const VecX columns = wq_columns.segment(link.v_offset, nv);
      for (int k = 0; k < nq; ++k) {
        // a quaternion among the coordinates: every entry at twice the largest column
        const Scalar expected = nq == nv ? columns(k) : 2 * columns.maxCoeff();
        EXPECT_NEAR(wq(link.q_offset + k), expected, 1e-9 * expected) << "trial " << trial << " entry " << k;
      }
    }
  }
}

}  // namespace
}  // namespace loopdyn
