#include "loopdyn/dynamics/mass_and_forces.hpp"

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {

Vec3 worldPoint(const BodyMotion& m, const MarkerFrame& marker) { return m.r + m.R * marker.position; }
Vec3 worldVelocity(const BodyMotion& m, const Vec3& point) { return m.v + m.w.cross(point - m.r); }

/// Adds force f at world point p and torque tau on body b to the generalized force vector.
void addWrench(const Model& model, const std::vector<BodyMotion>& motion, BodyIndex b, const Vec3& p, const Vec3& f,
               const Vec3& tau, VecX& F) {
  if (b == kGround) return;
  const int o = b * model.vPerBody();
  const Vec3 moment = tau + (p - motion[static_cast<std::size_t>(b)].r).cross(f);
  if (model.dimension() == 2) {
    F.segment<2>(o) += f.head<2>();
    F(o + 2) += moment.z();
  } else {
    F.segment<3>(o) += f;
    F.segment<3>(o + 3) += moment;
  }
}

/// Rotational inertia about the centre of mass in world axes.
}  // namespace

Mat3 worldInertia(const Model& model, const Body& body, const BodyMotion& m) {
  if (model.dimension() == 2) return Mat3::Identity() * body.inertia(2, 2);
  return m.R * body.inertia * m.R.transpose();
}

void massMatrix(const Model& model, const std::vector<BodyMotion>& motion, MatX& M) {
  const int nv = model.vPerBody();
  M.setZero(model.nv(), model.nv());
  for (int b = 0; b < model.nb(); ++b) {
    const Body& body = model.bodies()[static_cast<std::size_t>(b)];
    const int o = b * nv;
    if (nv == 3) {
      M(o, o) = M(o + 1, o + 1) = body.mass;
      M(o + 2, o + 2) = body.inertia(2, 2);
    } else {
      M.block<3, 3>(o, o) = Mat3::Identity() * body.mass;
      M.block<3, 3>(o + 3, o + 3) = worldInertia(model, body, motion[static_cast<std::size_t>(b)]);
    }
  }
}

void InverseMass::update(const Model& model, const std::vector<BodyMotion>& motion) {
  rotational_.resize(static_cast<std::size_t>(model.nb()));
  mass_.resize(static_cast<std::size_t>(model.nb()));
  if (model.dimension() == 2) planar_diagonal_.resize(model.nv());
  for (int b = 0; b < model.nb(); ++b) {
    const Body& body = model.bodies()[static_cast<std::size_t>(b)];
    const auto k = static_cast<std::size_t>(b);
    mass_[k] = body.mass;
    if (model.dimension() == 2) {
      rotational_[k] = body.inertia_inverse;
      planar_diagonal_.segment<3>(3 * b) << 1 / body.mass, 1 / body.mass, body.inertia_inverse(2, 2);
    } else {
      const Mat3& R = motion[k].R;
      rotational_[k].noalias() = R * body.inertia_inverse * R.transpose();
    }
  }
}

InverseMass InverseMass::scaledIdentity(const Model& model, const ConstraintScaling& scaling) {
  InverseMass metric;
  const int D = model.vPerBody();
  const int rotations = D == 3 ? 1 : 3;  // (the last of a body's columns)
  metric.mass_.resize(static_cast<std::size_t>(model.nb()));
  metric.rotational_.resize(static_cast<std::size_t>(model.nb()));
  if (D == 3) metric.planar_diagonal_ = scaling.col.cwiseAbs2();
  for (int b = 0; b < model.nb(); ++b) {
    const auto cols = scaling.col.segment(b * D, D);
    const Scalar translation = cols(0), rotation = cols(D - 1);
    LOOPDYN_CHECK((cols.head(D - rotations).array() == translation).all() &&
                      (cols.tail(rotations).array() == rotation).all(),
                  "scaledIdentity: body ", b, "'s columns are not scaled alike");
    metric.mass_[static_cast<std::size_t>(b)] = 1 / (translation * translation);
    metric.rotational_[static_cast<std::size_t>(b)] = Mat3::Identity() * (rotation * rotation);
  }
  return metric;
}

namespace {

/// X <- M^-1 X block by block (X: a matrix or a vector with nv rows); in 2D M is diagonal.
template <class Matrix>
void applyInverseMass(const Model& model, const std::vector<Scalar>& mass, const std::vector<Mat3>& rotational,
                      const VecX& planar_diagonal, Matrix& X) {
  if (X.size() == 0) return;  // (no constraint rows: Eigen's blocks of an empty matrix offset a null pointer)
  const int nvb = model.vPerBody();
  if (nvb == 3) {
    X = planar_diagonal.asDiagonal() * X;
    return;
  }
  for (int b = 0; b < model.nb(); ++b) {
    const Scalar inverse_mass = 1 / mass[static_cast<std::size_t>(b)];
    const Mat3& J = rotational[static_cast<std::size_t>(b)];
    const int o = b * nvb;
    X.middleRows(o, 3) *= inverse_mass;
    for (Eigen::Index c = 0; c < X.cols(); ++c) {
      const Vec3 turned = J * X.template block<3, 1>(o + 3, c);
      X.template block<3, 1>(o + 3, c) = turned;
    }
  }
}

}  // namespace

void InverseMass::apply(const Model& model, MatX& X) const { applyInverseMass(model, mass_, rotational_, planar_diagonal_, X); }

void InverseMass::applyToBody(const Model& model, BodyIndex b, Eigen::Ref<MatX> X) const {
  if (X.cols() == 0) return;
  if (model.dimension() == 2) {
    const Scalar* d = planar_diagonal_.data() + 3 * b;
    for (Eigen::Index c = 0; c < X.cols(); ++c) {
      Scalar* x = X.col(c).data();
      for (int k = 0; k < 3; ++k) x[k] = d[k] * x[k];
    }
    return;
  }
  X.topRows<3>() /= mass_[static_cast<std::size_t>(b)];
  const Mat3& J = rotational_[static_cast<std::size_t>(b)];
  for (Eigen::Index c = 0; c < X.cols(); ++c) {
    const Vec3 turned = J * X.block<3, 1>(3, c);
    X.block<3, 1>(3, c) = turned;
  }
}

void InverseMass::apply(const Model& model, VecX& x) const { applyInverseMass(model, mass_, rotational_, planar_diagonal_, x); }

void appliedForces(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, VecX& F, VecX& F_nc) {
  F.resize(model.nv());
  F_nc.resize(model.nv());
  for (BodyIndex b = 0; b < model.nb(); ++b) bodyForces(model, motion, b, F, F_nc);
  forceElementForces(model, motion, t, F, F_nc);
}

void bodyForces(const Model& model, const std::vector<BodyMotion>& motion, BodyIndex b, VecX& F, VecX& F_nc) {
  const int nv = model.vPerBody();
  F.segment(b * nv, nv).setZero();
  F_nc.segment(b * nv, nv).setZero();
  // gravity at the centre of mass; the gyroscopic term -w x (I_W w) (3D)
  const Body& body = model.bodies()[static_cast<std::size_t>(b)];
  const BodyMotion& m = motion[static_cast<std::size_t>(b)];
  Vec3 gyro = Vec3::Zero();
  if (model.dimension() == 3) gyro = -m.w.cross(worldInertia(model, body, m) * m.w);
  addWrench(model, motion, b, m.r, body.mass * model.gravity(), gyro, F);
}

namespace {

/// One force element's wrenches added to F and F_nc on the bodies b with ours(b).
template <class Ours>
void addForceElement(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, const Force& force,
                     const Ours& ours, VecX& F, VecX& F_nc) {
  const Vec3 zero = Vec3::Zero();
  const ForceEffort e = forceEffort(model, motion, t, force);
  if (!e.acts) return;
  const auto add = [&](BodyIndex b, const Vec3& p, const Vec3& f, const Vec3& tau, VecX& into) {
    if (ours(b)) addWrench(model, motion, b, p, f, tau, into);
  };
  switch (force.spec.type) {
    case ForceType::SpringDamper:
      // tension pulls the ends together
      for (const auto& [k, into] : {std::pair{e.value, &F}, std::pair{e.damping, &F_nc}}) {
        add(force.first.body, e.point1, k * e.direction, zero, *into);
        add(force.second.body, e.point2, -k * e.direction, zero, *into);
      }
      break;
    case ForceType::BodyLoad:
      for (VecX* into : {&F, &F_nc}) add(force.first.body, e.point1, e.force, e.torque, *into);
      break;
    case ForceType::JointEffort: {
      const Joint& joint = model.joints()[static_cast<std::size_t>(force.joint)];
      const bool translation = joint.type == JointType::Prismatic;
      // along the joint's coordinate on the second body, the opposite on the first
      const Vec3 f = translation ? Vec3(e.value * e.direction) : zero, tau = translation ? zero : Vec3(e.value * e.direction);
      for (VecX* into : {&F, &F_nc}) {
        add(joint.second.body, e.point2, f, tau, *into);
        add(joint.first.body, e.point2, -f, -tau, *into);
      }
      break;
    }
  }
}

}  // namespace

void forceElementForces(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, VecX& F, VecX& F_nc) {
  for (const Force& force : model.forces()) addForceElement(model, motion, t, force, [](BodyIndex) { return true; }, F, F_nc);
}

void forceElementForces(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, std::span<const int> elements,
                        std::span<const int> owner, int me, VecX& F, VecX& F_nc) {
  const auto ours = [&](BodyIndex b) { return b != kGround && owner[static_cast<std::size_t>(b)] == me; };
  for (const int k : elements) addForceElement(model, motion, t, model.forces()[static_cast<std::size_t>(k)], ours, F, F_nc);
}

std::array<BodyIndex, 2> forceBodies(const Model& model, const Force& force) {
  switch (force.spec.type) {
    case ForceType::SpringDamper: return {force.first.body, force.second.body};
    case ForceType::BodyLoad: return {force.first.body, kGround};
    case ForceType::JointEffort: {
      const Joint& joint = model.joints()[static_cast<std::size_t>(force.joint)];
      return {joint.first.body, joint.second.body};
    }
  }
  return {kGround, kGround};
}

ForceEffort forceEffort(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, const Force& force) {
  const ForceSpec& spec = force.spec;
  ForceEffort e;
  switch (spec.type) {
    case ForceType::SpringDamper: {
      const BodyMotion &m1 = motionOf(motion, force.first.body), &m2 = motionOf(motion, force.second.body);
      e.point1 = worldPoint(m1, force.first);
      e.point2 = worldPoint(m2, force.second);
      const Vec3 d = e.point2 - e.point1;
      const Scalar length = d.norm();
      if (length <= 0) {  // coincident ends: no direction, no force
        e.acts = false;
        break;
      }
      e.direction = d / length;
      const Scalar rate = e.direction.dot(worldVelocity(m2, e.point2) - worldVelocity(m1, e.point1));
      const Scalar elastic = spec.stiffness * (length - spec.free_length);
      e.damping = spec.damping * rate;
      e.value = elastic + e.damping;
      break;
    }
    case ForceType::BodyLoad: {
      const Scalar scale = spec.profile.evaluate(t).f;
      e.point1 = worldPoint(motionOf(motion, force.first.body), force.first);
      e.force = scale * spec.force;
      e.torque = scale * spec.torque;
      break;
    }
    case ForceType::JointEffort: {
      const Joint& joint = model.joints()[static_cast<std::size_t>(force.joint)];
      e.value = spec.profile.evaluate(t).f;
      const BodyMotion &m1 = motionOf(motion, joint.first.body), &m2 = motionOf(motion, joint.second.body);
      const Mat3 frame = m1.R * joint.first.orientation;
      e.point2 = worldPoint(m2, joint.second);
      const bool translation = joint.type == JointType::Prismatic;
      e.direction = frame.col(2);
      if (model.dimension() == 2) e.direction = translation ? Vec3(frame.col(0)) : Vec3::UnitZ();
      break;
    }
  }
  return e;
}

Scalar kineticEnergy(const Model& model, const std::vector<BodyMotion>& motion) {
  Scalar T = 0;
  for (int b = 0; b < model.nb(); ++b) {
    const Body& body = model.bodies()[static_cast<std::size_t>(b)];
    const BodyMotion& m = motion[static_cast<std::size_t>(b)];
    T += 0.5 * body.mass * m.v.squaredNorm() + 0.5 * m.w.dot(worldInertia(model, body, m) * m.w);
  }
  return T;
}

Scalar potentialEnergy(const Model& model, const std::vector<BodyMotion>& motion) {
  Scalar V = 0;
  for (int b = 0; b < model.nb(); ++b)
    V -= model.bodies()[static_cast<std::size_t>(b)].mass * model.gravity().dot(motion[static_cast<std::size_t>(b)].r);
  for (const Force& force : model.forces()) {
    if (force.spec.type != ForceType::SpringDamper) continue;
    const Vec3 d = worldPoint(motionOf(motion, force.second.body), force.second) -
                   worldPoint(motionOf(motion, force.first.body), force.first);
    const Scalar stretch = d.norm() - force.spec.free_length;
    V += 0.5 * force.spec.stiffness * stretch * stretch;
  }
  return V;
}

}  // namespace loopdyn
