#include "loopdyn/kinematics/joint_models.hpp"

#include <cmath>
#include <numbers>

#include "loopdyn/common/check.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {

namespace {

/// Rows of the 3D twist [pdot; omega] that exist in 2D: pdot_x, pdot_y, omega_z.
constexpr int kPlanarRows[3] = {0, 1, 5};

/// The universal joint's fixed turn between its two revolutions: marker 2's z onto marker 1's x.
Mat3 universalBend() {
  Mat3 R;
  R << 0, 0, 1,  //
      0, 1, 0,   //
      -1, 0, 0;  // Ry(pi/2)
  return R;
}

Quat quaternionAt(const Scalar* q) { return Quat(q[0], q[1], q[2], q[3]).normalized(); }

void storeQuaternion(const Quat& quat, Scalar* q) {
  q[0] = quat.w();
  q[1] = quat.x();
  q[2] = quat.y();
  q[3] = quat.z();
}

/// The quaternion of R with the sign nearest to `reference` (or w >= 0 without one).
void quaternionCoordinates(const Mat3& R, Scalar* q, const Scalar* reference) {
  Quat quat(R);
  quat.normalize();
  const Quat near = reference ? Quat(reference[0], reference[1], reference[2], reference[3]) : Quat::Identity();
  if (quat.dot(near) < 0) quat.coeffs() *= -1;
  storeQuaternion(quat, q);
}

/// exp(dt omega) * quat, unit.
void turnQuaternion(const Scalar* q, const Vec3& omega, Scalar dt, Scalar* out) {
  storeQuaternion((Quat(expSO3(dt * omega)) * quaternionAt(q)).normalized(), out);
}

/// 1/2 [0; omega] * quat.
void quaternionRates(const Scalar* q, const Vec3& omega, Scalar* qdot) {
  const Quat quat(q[0], q[1], q[2], q[3]);
  const Quat rate = Quat(0, omega.x(), omega.y(), omega.z()) * quat;
  storeQuaternion(Quat(0.5 * rate.coeffs()), qdot);
}

Scalar angleNear(const Mat3& R, const Scalar* reference) {
  return reference ? planarAngleNear(R, *reference) : planarAngle(R);
}

}  // namespace

JointModel::JointModel(Kind kind, int dimension) : kind_(kind), dimension_(dimension) {
  switch (kind) {
    case Kind::Revolute:
    case Kind::Prismatic: nq_ = nv_ = 1; break;
    case Kind::Cylindrical:
    case Kind::Universal: nq_ = nv_ = 2; break;
    case Kind::Planar: nq_ = nv_ = 3; break;
    case Kind::Spherical: nq_ = 4, nv_ = 3; break;
    case Kind::Fixed: nq_ = nv_ = 0; break;
    case Kind::Free:
      nq_ = dimension == 2 ? 3 : 7;
      nv_ = dimension == 2 ? 3 : 6;
      break;
  }
}

JointModel::JointModel(JointType type, int dimension) : JointModel(Kind::Fixed, dimension) {
  LOOPDYN_CHECK(dimension == 2 || dimension == 3, "dimension must be 2 or 3");
  LOOPDYN_CHECK(jointTypeAllowed(type, dimension), "joint type '", jointTypeName(type), "' does not exist in ",
                dimension, "D");
  Kind kind = Kind::Fixed;
  switch (type) {
    case JointType::Revolute: kind = Kind::Revolute; break;
    case JointType::Prismatic: kind = Kind::Prismatic; break;
    case JointType::Cylindrical: kind = Kind::Cylindrical; break;
    case JointType::Universal: kind = Kind::Universal; break;
    case JointType::Planar: kind = Kind::Planar; break;
    case JointType::Spherical: kind = Kind::Spherical; break;
    case JointType::Fixed: kind = Kind::Fixed; break;
    case JointType::Distance:
    case JointType::KnifeEdge:
      throw InvalidArgument(detail::concat("a ", jointTypeName(type), " joint has no joint model (never a tree joint)"));
  }
  *this = JointModel(kind, dimension);
}

JointModel JointModel::free(int dimension) {
  LOOPDYN_CHECK(dimension == 2 || dimension == 3, "dimension must be 2 or 3");
  return JointModel(Kind::Free, dimension);
}

void JointModel::neutral(Scalar* q) const {
  for (int k = 0; k < nq_; ++k) q[k] = 0;
  if (kind_ == Kind::Spherical) q[0] = 1;
  if (kind_ == Kind::Free && dimension_ == 3) q[3] = 1;
}

RelativePose JointModel::pose(const Scalar* q) const {
  RelativePose X;
  switch (kind_) {
    case Kind::Revolute: X.R = rotationZ(q[0]); break;
    case Kind::Prismatic: X.p(dimension_ == 2 ? 0 : 2) = q[0]; break;
    case Kind::Cylindrical:
      X.R = rotationZ(q[0]);
      X.p.z() = q[1];
      break;
    case Kind::Universal: X.R = rotationZ(q[0]) * universalBend() * rotationZ(q[1]); break;
    case Kind::Planar:
      X.p << q[0], q[1], 0;
      X.R = rotationZ(q[2]);
      break;
    case Kind::Spherical: X.R = quaternionAt(q).toRotationMatrix(); break;
    case Kind::Fixed: break;
    case Kind::Free:
      if (dimension_ == 2) {
        X.p << q[0], q[1], 0;
        X.R = rotationZ(q[2]);
      } else {
        X.p << q[0], q[1], q[2];
        X.R = quaternionAt(q + 3).toRotationMatrix();
      }
      break;
  }
  return X;
}

MotionSubspace JointModel::motionSubspace(const Scalar* q) const {
  MotionSubspace S = MotionSubspace::Zero(6, nv_);
  switch (kind_) {
    case Kind::Revolute: S(5, 0) = 1; break;
    case Kind::Prismatic: S(dimension_ == 2 ? 0 : 2, 0) = 1; break;
    case Kind::Cylindrical:
      S(5, 0) = 1;
      S(2, 1) = 1;
      break;
    case Kind::Universal:
      // omega = z1 thetadot1 + (Rz(theta1) Ry(pi/2) z) thetadot2, the second axis in frame 1
      S(5, 0) = 1;
      S(3, 1) = std::cos(q[0]);
      S(4, 1) = std::sin(q[0]);
      break;
    case Kind::Planar:
      S(0, 0) = S(1, 1) = S(5, 2) = 1;
      break;
    case Kind::Spherical: S.bottomRows<3>().setIdentity(); break;
    case Kind::Fixed: break;
    case Kind::Free:
      if (dimension_ == 2)
        S(0, 0) = S(1, 1) = S(5, 2) = 1;
      else
        S.setIdentity();
      break;
  }
  return S;
}

MatX JointModel::constraintSubspace(const Scalar* q) const {
  const MotionSubspace S = motionSubspace(q);
  MatX T(6, 6 - nv_);
  int column = 0;
  if (kind_ == Kind::Universal) {
    // forces in every direction, and the torque about z1 x z2 (the cross's own axis is free)
    T.setZero();
    for (int k = 0; k < 3; ++k) T(k, column++) = 1;
    T(3, column) = -std::sin(q[0]);
    T(4, column) = std::cos(q[0]);
    return T;
  }
  // every other joint moves along unit coordinate axes: T is the remaining axes (a fixed joint:
  // all six; the maximum of an empty row is undefined)
  for (int row = 0; row < 6; ++row) {
    if (nv_ > 0 && S.row(row).cwiseAbs().maxCoeff() > 0) continue;
    T.col(column).setZero();
    T(row, column++) = 1;
  }
  LOOPDYN_ASSERT(column == 6 - nv_);
  return T;
}

MatX JointModel::planarMotionSubspace(const Scalar* q) const {
  if (nv_ == 0) return MatX(3, 0);  // (a row of a matrix without columns is undefined in Eigen 3.4)
  const MotionSubspace S = motionSubspace(q);
  MatX out(3, nv_);
  for (int k = 0; k < 3; ++k) out.row(k) = S.row(kPlanarRows[k]);
  return out;
}

MatX JointModel::planarConstraintSubspace(const Scalar* q) const {
  const MatX S = planarMotionSubspace(q);
  MatX T = MatX::Zero(3, 3 - nv_);
  int column = 0;
  for (int row = 0; row < 3; ++row)
    if (nv_ == 0 || S.row(row).cwiseAbs().maxCoeff() == 0) T(row, column++) = 1;
  return T;
}

MotionSubspace JointModel::motionSubspaceRate(const Scalar* q, const Scalar* v) const {
  MotionSubspace S_dot = MotionSubspace::Zero(6, nv_);
  if (kind_ == Kind::Universal) {
    // d/dt (cos theta1, sin theta1, 0): the second axis turns with the first angle
    S_dot(3, 1) = -std::sin(q[0]) * v[0];
    S_dot(4, 1) = std::cos(q[0]) * v[0];
  }
  return S_dot;
}

Vec6 JointModel::biasTwist(const Scalar* q, const Scalar* v) const {
  if (kind_ != Kind::Universal) return Vec6::Zero();
  return motionSubspaceRate(q, v) * Eigen::Map<const VecX>(v, nv_);
}

int JointModel::planarAngleIndex() const {
  switch (kind_) {
    case Kind::Revolute: return 0;
    case Kind::Planar:
    case Kind::Free: return 2;
    default: return -1;
  }
}

int JointModel::ballRatesIndex() const {
  if (kind_ == Kind::Spherical) return 0;
  return kind_ == Kind::Free && dimension_ == 3 ? 3 : -1;
}

bool JointModel::isAngle(int k) const {
  switch (kind_) {
    case Kind::Revolute: return k == 0;
    case Kind::Cylindrical: return k == 0;
    case Kind::Universal: return k == 0 || k == 1;
    case Kind::Planar: return k == 2;
    case Kind::Free: return dimension_ == 2 && k == 2;
    default: return false;
  }
}

void JointModel::normalize(Scalar* q) const {
  Scalar* quaternion = kind_ == Kind::Spherical ? q : kind_ == Kind::Free && dimension_ == 3 ? q + 3 : nullptr;
  if (quaternion) storeQuaternion(quaternionAt(quaternion), quaternion);
}

void JointModel::positionRates(const Scalar* q, const Scalar* v, Scalar* qdot) const {
  if (kind_ == Kind::Spherical) {
    quaternionRates(q, Vec3(v[0], v[1], v[2]), qdot);
  } else if (kind_ == Kind::Free && dimension_ == 3) {
    for (int k = 0; k < 3; ++k) qdot[k] = v[k];
    quaternionRates(q + 3, Vec3(v[3], v[4], v[5]), qdot + 3);
  } else {
    for (int k = 0; k < nv_; ++k) qdot[k] = v[k];  // every other coordinate is its own rate
  }
}

void JointModel::integrate(const Scalar* q, const Scalar* v, Scalar dt, Scalar* out) const {
  if (kind_ == Kind::Spherical) {
    turnQuaternion(q, Vec3(v[0], v[1], v[2]), dt, out);
  } else if (kind_ == Kind::Free && dimension_ == 3) {
    for (int k = 0; k < 3; ++k) out[k] = q[k] + dt * v[k];
    turnQuaternion(q + 3, Vec3(v[3], v[4], v[5]), dt, out + 3);
  } else {
    for (int k = 0; k < nv_; ++k) out[k] = q[k] + dt * v[k];
  }
}

void JointModel::coordinates(const RelativePose& X, Scalar* q, const Scalar* reference) const {
  switch (kind_) {
    case Kind::Revolute: q[0] = angleNear(X.R, reference); break;
    case Kind::Prismatic: q[0] = X.p(dimension_ == 2 ? 0 : 2); break;
    case Kind::Cylindrical:
      q[0] = angleNear(X.R, reference);
      q[1] = X.p.z();
      break;
    case Kind::Universal: {
      // marker 2's z in frame 1 is (cos theta1, sin theta1, 0); the rest turns about it
      q[0] = reference ? reference[0] + wrapAngle(std::atan2(X.R(1, 2), X.R(0, 2)) - reference[0])
                       : std::atan2(X.R(1, 2), X.R(0, 2));
      const Mat3 second = (rotationZ(q[0]) * universalBend()).transpose() * X.R;
      q[1] = angleNear(second, reference ? reference + 1 : nullptr);
      break;
    }
    case Kind::Planar:
      q[0] = X.p.x();
      q[1] = X.p.y();
      q[2] = angleNear(X.R, reference ? reference + 2 : nullptr);
      break;
    case Kind::Spherical: quaternionCoordinates(X.R, q, reference); break;
    case Kind::Fixed: break;
    case Kind::Free:
      if (dimension_ == 2) {
        q[0] = X.p.x();
        q[1] = X.p.y();
        q[2] = angleNear(X.R, reference ? reference + 2 : nullptr);
      } else {
        for (int k = 0; k < 3; ++k) q[k] = X.p(k);
        quaternionCoordinates(X.R, q + 3, reference ? reference + 3 : nullptr);
      }
      break;
  }
}

void JointModel::velocities(const Scalar* q, const Vec6& twist, Scalar* v) const {
  // the columns of S are orthonormal for every joint: S^+ = S^T
  const MotionSubspace S = motionSubspace(q);
  for (int k = 0; k < nv_; ++k) v[k] = S.col(k).dot(twist);
}

}  // namespace loopdyn
