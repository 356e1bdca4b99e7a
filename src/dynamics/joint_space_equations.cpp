#include "loopdyn/dynamics/joint_space_equations.hpp"

#include <Eigen/QR>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/tree_dynamics.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"

namespace loopdyn {

std::vector<int> jointSpaceConstraintRows(const Model& model) {
  std::vector<bool> tree_row(static_cast<std::size_t>(model.nc()), false);
  for (std::size_t j = 0; j < model.joints().size(); ++j) {
    if (model.topology().roles[j] != JointRole::Tree) continue;
    const Joint& joint = model.joints()[j];
    for (int r = joint.row; r < joint.row + joint.rows; ++r) tree_row[static_cast<std::size_t>(r)] = true;
  }
  std::vector<int> rows;
  for (int r = 0; r < model.nc(); ++r)
    if (!tree_row[static_cast<std::size_t>(r)]) rows.push_back(r);
  return rows;
}

JointSpaceEquations::JointSpaceEquations(const Model& model, const TreeKinematics& tree)
    : rows(jointSpaceConstraintRows(model)), col(VecX::Ones(tree.nv())) {
  // a joint velocity turns its body when its motion subspace's column has an angular part
  const Scalar L = model.characteristicLength();
  for (const TreeKinematics::LinkCoordinates& link : tree.links()) {
    VecX q(link.model->nq());
    link.model->neutral(q.data());
    const MotionSubspace S = link.model->motionSubspace(q.data());
    for (int k = 0; k < link.model->nv(); ++k)
      if (S.col(k).tail<3>().norm() > 0) col(link.v_offset + k) = 1 / L;
  }
  for (const int row : rows) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(model.equations()[static_cast<std::size_t>(row)].pair)];
    row_bodies_.push_back({pair.body1, pair.body2 == pair.body1 ? kGround : pair.body2});
  }
}

void JointSpaceEquations::evaluateConstraints(const Model& model, const TreeKinematics& tree, DynamicsWorkspace& ws,
                                              const State& x) {
  worldLinkAxes(tree, x.q_r, ws.kin.motion, axes);
  const Topology& topology = model.topology();
  const int d = model.vPerBody();
  const auto k = static_cast<Eigen::Index>(rows.size());
  C.setZero(k, tree.nv());
  b.resize(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    const int row = rows[static_cast<std::size_t>(i)];
    for (const BodyIndex body : row_bodies_[static_cast<std::size_t>(i)]) {
      if (body == kGround) continue;
      // the row on this body as a wrench [f; n] at its centre of mass, moved to the world origin
      const auto c = ws.kin.C.onBody(row, body);
      Vec3 f = Vec3::Zero(), n = Vec3::Zero();
      if (d == 3) {
        f << c(0), c(1), 0;
        n.z() = c(2);
      } else {
        f = c.head<3>().transpose();
        n = c.tail<3>().transpose();
      }
      Vec6 w;
      w << f, n + ws.kin.motion[static_cast<std::size_t>(body)].r.cross(f);
      for (BodyIndex l = body; l != kGround; l = topology.links[static_cast<std::size_t>(l)].parent) {
        const TreeLink& link = topology.links[static_cast<std::size_t>(l)];
        if (link.count.nv > 0)
          C.row(i).segment(link.v_offset, link.count.nv).noalias() += w.transpose() * axes[static_cast<std::size_t>(l)].S;
      }
    }
    b(i) = ws.kin.b(row);
  }
}

void JointSpaceEquations::evaluate(const Model& model, const TreeKinematics& tree, DynamicsWorkspace& ws,
                                   const State& x, const Baumgarte& baumgarte) {
  loopdyn::evaluateConstraints(model, ws.kin, x);
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  stabilizedGamma(model, ws, x, baumgarte);
  evaluateConstraints(model, tree, ws, x);
  tree.absoluteAccelerations(x.q_r, x.v_r, VecX::Zero(tree.nv()), bias);  // Jdot v_r
  // M_r by the composite-rigid-body algorithm, Q_r by the Newton-Euler backward pass (tree_dynamics.hpp)
  compositeRigidBodyMassMatrix(model, tree, ws.kin.motion, axes, M);
  body_forces_ = ws.F;
  body_forces_.noalias() -= ws.M * bias;
  subtreeJointForces(model, tree, ws.kin.motion, axes, body_forces_, Q);
  const auto k = static_cast<Eigen::Index>(rows.size());
  gamma.resize(k);
  for (Eigen::Index i = 0; i < k; ++i) gamma(i) = ws.Gamma(rows[static_cast<std::size_t>(i)]) - ws.kin.C.rowTimes(rows[static_cast<std::size_t>(i)], bias);
}

void JointSpaceEquations::scaledTransposed(const ConstraintScaling& scaling, MatX& At) const {
  At.resize(C.cols(), C.rows());
  for (Eigen::Index i = 0; i < C.rows(); ++i)
    At.col(i) = scaling.row(rows[static_cast<std::size_t>(i)]) * col.cwiseProduct(C.row(i).transpose());
}

void JointSpaceEquations::constraintMultipliers(const ConstraintScaling& scaling, const VecX& a_r,
                                                const std::vector<int>* carrying, VecX& mu) const {
  const auto k = static_cast<Eigen::Index>(rows.size());
  const auto carried = carrying ? static_cast<Eigen::Index>(carrying->size()) : k;
  const auto rowOf = [&](Eigen::Index j) { return carrying ? (*carrying)[static_cast<std::size_t>(j)] : static_cast<int>(j); };
  mu.setZero(k);
  if (carried == 0) return;
  VecX force = Q;
  force.noalias() -= M * a_r;
  MatX At(C.cols(), carried);
  for (Eigen::Index j = 0; j < carried; ++j) {
    const int i = rowOf(j);
    At.col(j) = scaling.row(rows[static_cast<std::size_t>(i)]) * col.cwiseProduct(C.row(i).transpose());
  }
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;
  cod.setThreshold(kRankThreshold);
  cod.compute(At);
  const VecX mu_s = cod.solve(col.cwiseProduct(force));
  for (Eigen::Index j = 0; j < carried; ++j) {
    const int i = rowOf(j);
    mu(i) = scaling.row(rows[static_cast<std::size_t>(i)]) * mu_s(j);
  }
}

void JointSpaceEquations::treeMultipliers(const Model& model, DynamicsWorkspace& ws, const VecX& mu) const {
  using Block = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;
  using Column = Eigen::Matrix<Scalar, Eigen::Dynamic, 1, Eigen::ColMajor, 6, 1>;
  const int d = model.vPerBody();
  const ConstraintJacobian& Cm = ws.kin.C;
  const ConstraintScaling& scaling = ws.scaling;
  ws.lambda.setZero(model.nc());
  // each body's F_b - M_b A_b, less the rows K's forces on it
  body_forces_.resize(model.nv());
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const Eigen::Index o = static_cast<Eigen::Index>(b) * d;
    body_forces_.segment(o, d) = ws.F.segment(o, d);
    body_forces_.segment(o, d).noalias() -= ws.M.block(o, o, d, d) * ws.a.segment(o, d);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Scalar m = mu(static_cast<Eigen::Index>(i));
    ws.lambda(rows[i]) = m;
    for (const BodyIndex body : row_bodies_[i])
      if (body != kGround)
        body_forces_.segment(static_cast<Eigen::Index>(body) * d, d) -= m * Cm.onBody(rows[i], body);
  }
  // leaves to root
  const Topology& topology = model.topology();
  for (auto it = topology.order.rbegin(); it != topology.order.rend(); ++it) {
    const BodyIndex b = *it;
    const TreeLink& link = topology.links[static_cast<std::size_t>(b)];
    if (link.joint < 0) continue;  // a floating body: no joint to load
    const Joint& joint = model.joints()[static_cast<std::size_t>(link.joint)];
    const Eigen::Index o = static_cast<Eigen::Index>(b) * d;
    Block A(d, joint.rows);
    for (int k = 0; k < joint.rows; ++k)
      A.col(k) = scaling.row(joint.row + k) * scaling.col.segment(o, d).cwiseProduct(Cm.onBody(joint.row + k, b));
    const Column rhs = scaling.col.segment(o, d).cwiseProduct(body_forces_.segment(o, d));
    const Column lambda_s = A.colPivHouseholderQr().solve(rhs);
    for (int k = 0; k < joint.rows; ++k) ws.lambda(joint.row + k) = scaling.row(joint.row + k) * lambda_s(k);
    if (link.parent == kGround) continue;
    const Eigen::Index p = static_cast<Eigen::Index>(link.parent) * d;
    for (int k = 0; k < joint.rows; ++k)
      body_forces_.segment(p, d) -= ws.lambda(joint.row + k) * Cm.onBody(joint.row + k, link.parent);
  }
}

}  // namespace loopdyn
