#include "loopdyn/dynamics/tree_dynamics.hpp"

#include <Eigen/Cholesky>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"

namespace loopdyn {

namespace {

using Mat6 = Eigen::Matrix<Scalar, 6, 6>;

Mat3 cross(const Vec3& c) {
  Mat3 out;
  out << 0, -c.z(), c.y(), c.z(), 0, -c.x(), -c.y(), c.x(), 0;
  return out;
}

}  // namespace

void worldLinkAxes(const TreeKinematics& tree, const VecX& q_r, const std::vector<BodyMotion>& motion,
                   std::vector<TreeKinematics::LinkAxes>& axes) {
  axes.resize(motion.size());
  for (BodyIndex b = 0; b < static_cast<BodyIndex>(motion.size()); ++b)
    tree.linkAxes(b, q_r, nullptr, motion, axes[static_cast<std::size_t>(b)]);
}

void compositeRigidBodyMassMatrix(const Model& model, const TreeKinematics& tree, const std::vector<BodyMotion>& motion,
                                  const std::vector<TreeKinematics::LinkAxes>& axes, MatX& M_r) {
  const Topology& topology = model.topology();
  const auto nb = static_cast<std::size_t>(model.nb());
  // the bodies' spatial inertias about the origin, summed over their subtrees
  std::vector<Mat6> composite(nb);
  for (std::size_t b = 0; b < nb; ++b) {
    const Body& body = model.bodies()[b];
    const BodyMotion& m = motion[b];
    const Mat3 I_w = model.dimension() == 2 ? Mat3(body.inertia) : Mat3(m.R * body.inertia * m.R.transpose());
    const Mat3 C = cross(m.r);
    Mat6& I = composite[b];
    I << body.mass * Mat3::Identity(), -body.mass * C, body.mass * C, I_w - body.mass * C * C;
  }
  for (auto it = topology.order.rbegin(); it != topology.order.rend(); ++it) {
    const BodyIndex parent = topology.links[static_cast<std::size_t>(*it)].parent;
    if (parent != kGround) composite[static_cast<std::size_t>(parent)] += composite[static_cast<std::size_t>(*it)];
  }
  const std::vector<TreeKinematics::LinkCoordinates> links = tree.links();
  M_r.setZero(tree.nv(), tree.nv());
  for (const TreeKinematics::LinkCoordinates& link : links) {
    const auto i = static_cast<std::size_t>(link.body);
    const int ni = link.model->nv();
    if (ni == 0) continue;
    // F = I^c_i s_i, and M_r(j, i) = s_j^T F up the path to ground
    const Eigen::Matrix<Scalar, 6, Eigen::Dynamic, Eigen::ColMajor, 6, 6> F = composite[i] * axes[i].S;
    M_r.block(link.v_offset, link.v_offset, ni, ni) = axes[i].S.transpose() * F;
    for (BodyIndex j = topology.links[i].parent; j != kGround; j = topology.links[static_cast<std::size_t>(j)].parent) {
      const TreeLink& up = topology.links[static_cast<std::size_t>(j)];
      const int nj = up.count.nv;
      if (nj == 0) continue;
      M_r.block(up.v_offset, link.v_offset, nj, ni) = axes[static_cast<std::size_t>(j)].S.transpose() * F;
      M_r.block(link.v_offset, up.v_offset, ni, nj) = M_r.block(up.v_offset, link.v_offset, nj, ni).transpose();
    }
  }
}

void subtreeJointForces(const Model& model, const TreeKinematics& tree, const std::vector<BodyMotion>& motion,
                        const std::vector<TreeKinematics::LinkAxes>& axes, const VecX& w, VecX& Q_r) {
  const Topology& topology = model.topology();
  const auto nb = static_cast<std::size_t>(model.nb());
  const int d = model.vPerBody();
  std::vector<Vec6> sum(nb);
  for (std::size_t b = 0; b < nb; ++b) {
    Vec6 W = Vec6::Zero();  // [f; n] in 3D form
    if (d == 3)
      W << w(3 * static_cast<Eigen::Index>(b)), w(3 * static_cast<Eigen::Index>(b) + 1), 0, 0, 0,
          w(3 * static_cast<Eigen::Index>(b) + 2);
    else
      W = w.segment<6>(6 * static_cast<Eigen::Index>(b));
    sum[b] << W.head<3>(), W.tail<3>() + motion[b].r.cross(W.head<3>());
  }
  for (auto it = topology.order.rbegin(); it != topology.order.rend(); ++it) {
    const BodyIndex parent = topology.links[static_cast<std::size_t>(*it)].parent;
    if (parent != kGround) sum[static_cast<std::size_t>(parent)] += sum[static_cast<std::size_t>(*it)];
  }
  Q_r.resize(tree.nv());
  for (const TreeKinematics::LinkCoordinates& link : tree.links())
    Q_r.segment(link.v_offset, link.model->nv()) =
        axes[static_cast<std::size_t>(link.body)].S.transpose() * sum[static_cast<std::size_t>(link.body)];
}

void treeForwardDynamics(const Model& model, const TreeKinematics& tree, Scalar t, const VecX& q_r, const VecX& v_r,
                         VecX& a_r) {
  LOOPDYN_CHECK(model.topology().cut_joints.empty() && model.drivers().empty(),
                "relative-coordinate forward dynamics handles open trees only so far: the model has ",
                model.topology().cut_joints.size(), " joints outside its spanning tree and ", model.drivers().size(),
                " drivers");
  State x;
  tree.absoluteState(q_r, v_r, t, x);
  std::vector<BodyMotion> motion;
  for (BodyIndex b = 0; b < model.nb(); ++b) motion.push_back(bodyMotion(model, x.q, x.v, b));
  MatX M;
  VecX F, F_nc, bias;
  massMatrix(model, motion, M);
  appliedForces(model, motion, t, F, F_nc);
  std::vector<TreeKinematics::LinkAxes> axes;
  worldLinkAxes(tree, q_r, motion, axes);
  tree.absoluteAccelerations(q_r, v_r, VecX::Zero(tree.nv()), bias);  // Jdot v
  // M_r = J^T M J (composite rigid bodies) is positive definite for a tree of bodies with mass:
  // every joint motion moves a body; Q_r = J^T (F - M Jdot v) by the Newton-Euler backward pass
  MatX M_r;
  VecX Q_r;
  compositeRigidBodyMassMatrix(model, tree, motion, axes, M_r);
  subtreeJointForces(model, tree, motion, axes, F - M * bias, Q_r);
  const Eigen::LLT<MatX> factor(M_r);
  LOOPDYN_CHECK(factor.info() == Eigen::Success, "the tree's mass matrix J^T M J is not positive definite");
  a_r = factor.solve(Q_r);
}

}  // namespace loopdyn
