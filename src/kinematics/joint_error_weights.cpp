#include "loopdyn/kinematics/joint_error_weights.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {

namespace {

/// Movement of a point at c and of the body's orientation by a twist [xi_v; xi_w] about the world
/// origin: [xi_v + xi_w x c; xi_w].
Eigen::Matrix<Scalar, 6, 6> centreMap(const Vec3& c) {
  Eigen::Matrix<Scalar, 6, 6> B = Eigen::Matrix<Scalar, 6, 6>::Identity();
  B.topRightCorner<3, 3>() = -skew(c);
  return B;
}

}  // namespace

JointErrorWeights::JointErrorWeights(const TreeKinematics& tree, Scalar rtol, Scalar atol, int carried, int absolute)
    : tree_(tree),
      rtol_(rtol),
      atol_(atol),
      ratio_(static_cast<Scalar>(carried) / absolute),
      position_(static_cast<std::size_t>(tree.model().nb())),
      velocity_(position_.size()) {}

void JointErrorWeights::bodyForms(const State& x, const BodyMotion& m, BodyIndex b, Mat6& position,
                                  Mat6& velocity) const {
  const Model& model = tree_.model();
  const auto squared = [&](Scalar c, Scalar cap = std::numeric_limits<Scalar>::infinity()) {
    const Scalar w = 1 / (atol_ + rtol_ * std::min(std::abs(c), cap));
    return w * w;
  };
  Eigen::Matrix<Scalar, 6, 1> dq = Eigen::Matrix<Scalar, 6, 1>::Zero(), dv = dq;
  if (model.dimension() == 2) {
    const Scalar* q = x.q.data() + 3 * b;
    const Scalar* v = x.v.data() + 3 * b;
    dq << squared(q[0]), squared(q[1]), 0, 0, 0, squared(q[2], std::numbers::pi);
    dv << squared(v[0]), squared(v[1]), 0, 0, 0, squared(v[2]);
  } else {
    const Scalar* q = x.q.data() + 7 * b;
    const Scalar* v = x.v.data() + 6 * b;
    // a turn dphi moves the unit quaternion by dphi / 2: its four weights' mean, over 4
    const Scalar turn = (squared(q[3]) + squared(q[4]) + squared(q[5]) + squared(q[6])) / 16;
    dq << squared(q[0]), squared(q[1]), squared(q[2]), turn, turn, turn;
    for (int i = 0; i < 6; ++i) dv(i) = squared(v[i]);
  }
  const Mat6 B = centreMap(m.r);
  position = B.transpose() * dq.asDiagonal() * B;
  velocity = B.transpose() * dv.asDiagonal() * B;
}

void JointErrorWeights::compute(const State& x, const VecX& q_r, const std::vector<BodyMotion>& motion, Scalar* wq,
                                Scalar* wv) {
  const Model& model = tree_.model();
  const Topology& topology = model.topology();
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const auto i = static_cast<std::size_t>(b);
    bodyForms(x, motion[i], b, position_[i], velocity_[i]);
  }
  // subtree sums, leaves inwards (every parent before its children in `order`)
  for (auto it = topology.order.rbegin(); it != topology.order.rend(); ++it) {
    const BodyIndex parent = topology.links[static_cast<std::size_t>(*it)].parent;
    if (parent == kGround) continue;
    const auto i = static_cast<std::size_t>(*it), p = static_cast<std::size_t>(parent);
    position_[p] += position_[i], velocity_[p] += velocity_[i];
  }
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const auto i = static_cast<std::size_t>(b);
    const TreeLink& link = topology.links[i];
    tree_.linkAxes(b, q_r, nullptr, motion, axes_);
    Scalar largest = 0;
    for (int k = 0; k < link.count.nv; ++k) {
      const auto s = axes_.S.col(k);
      const Scalar w_q = std::sqrt(ratio_ * s.dot(position_[i] * s));
      if (wv) wv[link.v_offset + k] = std::sqrt(ratio_ * s.dot(velocity_[i] * s));
      largest = std::max(largest, w_q);
      if (link.count.nq == link.count.nv) wq[link.q_offset + k] = w_q;
    }
    // a quaternion among the coordinates: each entry at twice the largest turn's weight
    if (link.count.nq != link.count.nv)
      std::fill(wq + link.q_offset, wq + link.q_offset + link.count.nq, 2 * largest);
  }
}

}  // namespace loopdyn
