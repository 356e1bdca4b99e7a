#include "loopdyn/dynamics/joint_space_equations.hpp"

#include <Eigen/QR>

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
      const auto c = ws.kin.C.row(row).segment(static_cast<Eigen::Index>(body) * d, d);
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

void JointSpaceEquations::bodyAccelerations(const TreeKinematics& tree, const State& x, const VecX& a_r, VecX& A) {
  tree.absoluteAccelerations(x.q_r, x.v_r, a_r, A);
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
  ws.r = ws.F;
  ws.r.noalias() -= ws.M * bias;
  subtreeJointForces(model, tree, ws.kin.motion, axes, ws.r, Q);
  const auto k = static_cast<Eigen::Index>(rows.size());
  gamma.resize(k);
  for (Eigen::Index i = 0; i < k; ++i) gamma(i) = ws.Gamma(rows[static_cast<std::size_t>(i)]) - ws.kin.C.row(rows[static_cast<std::size_t>(i)]).dot(bias);
}

void JointSpaceEquations::scaledTransposed(const ConstraintScaling& scaling, MatX& At) const {
  At.resize(C.cols(), C.rows());
  for (Eigen::Index i = 0; i < C.rows(); ++i)
    At.col(i) = scaling.row(rows[static_cast<std::size_t>(i)]) * col.cwiseProduct(C.row(i).transpose());
}

void JointSpaceEquations::multipliersWithout(const Model& model, DynamicsWorkspace& ws, const std::vector<int>& zero) {
  std::vector<bool> gone(static_cast<std::size_t>(model.nc()), false);
  for (const int row : zero) gone[static_cast<std::size_t>(row)] = true;
  std::vector<int> left;
  for (int row = 0; row < model.nc(); ++row)
    if (!gone[static_cast<std::size_t>(row)]) left.push_back(row);
  ws.r = ws.F;
  ws.r.noalias() -= ws.M * ws.a;
  MatX Cs_t(model.nv(), static_cast<Eigen::Index>(left.size()));
  for (std::size_t j = 0; j < left.size(); ++j)
    Cs_t.col(static_cast<Eigen::Index>(j)) =
        ws.scaling.row(left[j]) * ws.scaling.col.cwiseProduct(ws.kin.C.row(left[j]).transpose());
  const VecX lambda_s = Cs_t.colPivHouseholderQr().solve(ws.scaling.col.cwiseProduct(ws.r));
  ws.lambda.setZero(model.nc());
  for (std::size_t j = 0; j < left.size(); ++j)
    ws.lambda(left[j]) = ws.scaling.row(left[j]) * lambda_s(static_cast<Eigen::Index>(j));
}

}  // namespace loopdyn
