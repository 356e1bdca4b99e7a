#pragma once
/// Joint models for relative (joint) coordinates (issue 15; paper 000 uses S and T of each joint).
///
/// A joint relates its two marker frames: frame 1 (the first marker, on the joint's first body)
/// and frame 2 (the second marker). Its coordinates q (size nq) give the pose of frame 2 in frame
/// 1, X_12(q) = (R(q), p(q)): R turns frame-2 axes into frame-1 axes, p is frame 2's origin in
/// frame 1. Its velocities v (size nv) give the motion of frame 2 relative to frame 1, as the
/// twist [pdot; omega] in frame-1 axes (pdot: velocity of frame 2's origin, omega: angular
/// velocity), = S(q) v with the motion subspace S (6 x nv). The constraint subspace T (6 x (6 - nv),
/// orthonormal columns, T^T S = 0) spans the wrenches [force; torque] the joint can transmit.
/// In 2D only (pdot_x, pdot_y, omega_z) exist: S is 3 x nv and T 3 x (3 - nv).
///
/// | joint        | q                      | v               | X_12(q)                              |
/// |--------------|------------------------|-----------------|--------------------------------------|
/// | revolute     | theta                  | thetadot        | Rz(theta), 0                          |
/// | prismatic    | s                      | sdot            | I, s e (e = x in 2D, z in 3D)         |
/// | cylindrical  | theta, s               | rates           | Rz(theta), s z                        |
/// | universal    | theta1, theta2         | rates           | Rz(theta1) Ry(pi/2) Rz(theta2), 0     |
/// | planar       | x, y, theta            | rates           | Rz(theta), (x, y, 0)                  |
/// | spherical    | unit quaternion w,x,y,z| omega (frame 1) | R(quaternion), 0                      |
/// | fixed        | (none)                 | (none)          | I, 0                                  |
/// | free (2D)    | x, y, theta            | xdot, ydot, thetadot | Rz(theta), (x, y, 0)            |
/// | free (3D)    | x, y, z, quaternion    | pdot, omega (frame 1) | R(quaternion), p               |
///
/// A free joint from ground with identity markers is a body in absolute coordinates: the same q
/// and v as Model's absolute layout. The universal joint's axes are marker 1's z and marker 2's z
/// (perpendicular, as the joint's equations require); at theta1 = theta2 = 0 marker 2's z is
/// marker 1's x.

#include <Eigen/Core>

#include "loopdyn/common/types.hpp"
#include "loopdyn/model/joint_type.hpp"

namespace loopdyn {

/// Frame 2 in frame 1.
struct RelativePose {
  Mat3 R = Mat3::Identity();
  Vec3 p = Vec3::Zero();
};

using MotionSubspace = Eigen::Matrix<Scalar, 6, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;

class JointModel {
 public:
  /// The model of a tree joint of `type` (not distance or knife edge) in `dimension`.
  JointModel(JointType type, int dimension);
  /// The free joint of a floating body.
  static JointModel free(int dimension);

  int nq() const { return nq_; }
  int nv() const { return nv_; }
  int dimension() const { return dimension_; }

  /// The coordinates of the joint's reference pose X_12 = (I, 0) (quaternions: identity).
  void neutral(Scalar* q) const;
  RelativePose pose(const Scalar* q) const;
  /// S(q) in 3D form: 6 x nv, rows [pdot; omega] in frame-1 axes (2D: rows 0, 1 and 5 count).
  MotionSubspace motionSubspace(const Scalar* q) const;
  /// T(q) in 3D form: 6 x (6 - nv) orthonormal, T^T S = 0 (2D: see planarConstraintSubspace).
  MatX constraintSubspace(const Scalar* q) const;
  /// 2D: S and T over (pdot_x, pdot_y, omega_z): 3 x nv and 3 x (3 - nv).
  MatX planarMotionSubspace(const Scalar* q) const;
  MatX planarConstraintSubspace(const Scalar* q) const;

  /// dS/dt at joint velocities v (only the universal joint's second axis turns, with its first
  /// angle; every other S is constant).
  MotionSubspace motionSubspaceRate(const Scalar* q, const Scalar* v) const;
  /// Sdot(q, qdot) v: the part of the relative twist's derivative that is not S a (only the
  /// universal joint's second axis turns with its first angle), [pddot; omegadot] in frame 1.
  Vec6 biasTwist(const Scalar* q, const Scalar* v) const;
  /// 2D: the index in q of the joint's angle (revolute, planar, free), -1 for none.
  int planarAngleIndex() const;
  /// The index in v of omega, the rates of a rotation free about every axis (spherical: 0, 3D
  /// free: 3; pose().R is that rotation), -1 for the other joints.
  int ballRatesIndex() const;
  /// Whether q[k] is an angle (a turn about an axis, unbounded: revolute, cylindrical, universal,
  /// planar and 2D free angles), as opposed to a length or a quaternion entry.
  bool isAngle(int k) const;
  /// Makes q's quaternion (spherical, 3D free) unit; nothing for the other joints.
  void normalize(Scalar* q) const;

  /// dq/dt from v (quaternions: qdot = 1/2 [0; omega] * quat, omega in frame 1).
  void positionRates(const Scalar* q, const Scalar* v, Scalar* qdot) const;
  /// q (+) dt v: exact for constant v on every joint (quaternions: composed from the left with
  /// exp(dt omega), kept unit).
  void integrate(const Scalar* q, const Scalar* v, Scalar dt, Scalar* out) const;
  /// The coordinates of a pose the joint can take (its equations hold): the inverse of pose().
  /// Angles are taken within pi of `reference` (its whole turns kept; null: none).
  void coordinates(const RelativePose& X, Scalar* q, const Scalar* reference = nullptr) const;
  /// The velocities whose twist S v is `twist` ([pdot; omega] in frame 1), by least squares
  /// (exact when the twist is one the joint allows).
  void velocities(const Scalar* q, const Vec6& twist, Scalar* v) const;

 private:
  enum class Kind { Revolute, Prismatic, Cylindrical, Universal, Planar, Spherical, Fixed, Free };
  JointModel(Kind kind, int dimension);

  Kind kind_;
  int dimension_;
  int nq_ = 0, nv_ = 0;
};

}  // namespace loopdyn
