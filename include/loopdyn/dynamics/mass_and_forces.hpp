#pragma once
/// Mass matrix, applied generalized forces and energies in absolute coordinates.
///
/// Velocity coordinates per body: centre-of-mass velocity and angular velocity (world frame), so
/// M = blockdiag(m I, I_W) with I_W = R J R^T (2D: diag(m, m, J)), and a force F applied at a
/// point P of body b contributes (F, (P - r_b) x F). The gyroscopic term -w x (I_W w) is part of
/// the right-hand side (paper 001, eq. (10): F contains "the velocity dependent inertia terms").

#include <array>
#include <span>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// A body's rotational inertia about its centre of mass in world axes, R J R^T (2D: J_zz on the
/// diagonal, of which only (2, 2) counts).
Mat3 worldInertia(const Model& model, const Body& body, const BodyMotion& m);

/// Fills M (nv x nv, block diagonal) from the bodies' orientations in `motion` (per body).
void massMatrix(const Model& model, const std::vector<BodyMotion>& motion, MatX& M);

/// M^-1 of the block-diagonal mass matrix, kept per body: 1/m and the inverse rotational inertia
/// in world axes, I_W^-1 = R J^-1 R^T (2D: 1/J). Applying it costs O(nv), not a factorisation.
class InverseMass {
 public:
  /// Updates the rotational blocks to the orientations in `motion` (per body).
  void update(const Model& model, const std::vector<BodyMotion>& motion);
  /// The metric in which the dimensionless velocities v~ = diag(col)^-1 v (kinematics/scaling.hpp)
  /// are orthonormal, used in place of M^-1: diag(col)^2, constant (the QR projection's Gram
  /// matrix A A^T = C_r diag(col)^2 C_r^T, projection.hpp). Needs each body's translational
  /// columns equally scaled, and its rotational ones (as constraintScaling makes them).
  static InverseMass scaledIdentity(const Model& model, const ConstraintScaling& scaling);
  /// X <- M^-1 X for X with nv rows (any number of columns).
  void apply(const Model& model, MatX& X) const;
  void apply(const Model& model, VecX& x) const;
  /// X <- M_b^-1 X for body b's block of M (X: Model::vPerBody() rows, any number of columns).
  void applyToBody(const Model& model, BodyIndex b, Eigen::Ref<MatX> X) const;
  /// 2D: M^-1's diagonal (1/m, 1/m, 1/J per body; nv entries).
  const VecX& planarDiagonal() const { return planar_diagonal_; }

 private:
  std::vector<Scalar> mass_;      ///< m per body (the metric's translational part is 1 / m)
  std::vector<Mat3> rotational_;  ///< I_W^-1 per body (2D: (2, 2) only)
  VecX planar_diagonal_;          ///< 2D: M^-1's diagonal (1/m, 1/m, 1/I_zz per body)
};

/// What one force element exerts at time t (also `simulate --columns efforts`).
struct ForceEffort {
  /// spring-damper: the tension k (|d| - free_length) + c d|d|/dt (positive pulls the ends
  /// together); joint effort: the torque (revolute) or force (prismatic) on the second body
  Scalar value = 0;
  Scalar damping = 0;                 ///< spring-damper: its non-conservative part c d|d|/dt
  Vec3 direction = Vec3::Zero();      ///< spring-damper: unit first end -> second; joint effort: axis
  Vec3 point1 = Vec3::Zero(), point2 = Vec3::Zero();  ///< where it acts (spring ends; effort: 2nd marker)
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();   ///< body load, world frame (profile applied)
  bool acts = true;                   ///< false for a spring whose ends coincide (no direction)
};
ForceEffort forceEffort(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, const Force& force);

/// Generalized applied forces at time t: F (all of them, with gravity and the gyroscopic terms)
/// and F_nc, the part that is not conservative (body loads, joint efforts, damping), whose power
/// F_nc . v enters the energy balance. Sizes nv; `motion` as evaluated at the state.
void appliedForces(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, VecX& F, VecX& F_nc);

/// appliedForces in two parts, for passes shared out among threads: bodyForces sets body b's
/// entries of F and F_nc (sized nv) to its own loads, gravity and the gyroscopic term, touching no
/// other body's; forceElementForces then adds the force elements' (springs, body loads, joint
/// efforts), which may act on any two bodies. appliedForces is the one after the other.
void bodyForces(const Model& model, const std::vector<BodyMotion>& motion, BodyIndex b, VecX& F, VecX& F_nc);
void forceElementForces(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, VecX& F, VecX& F_nc);
/// forceElementForces for the elements listed (indices into Model::forces(), ascending), added on
/// the bodies b with owner[b] == me only: the threads of a pass, each with the elements acting on
/// its own bodies, then form every body's sum in the model's order, as the whole loop does (the
/// same numbers to the last bit). An element acting on two threads' bodies is evaluated by both.
void forceElementForces(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, std::span<const int> elements,
                        std::span<const int> owner, int me, VecX& F, VecX& F_nc);
/// The bodies a force element acts on (kGround for none: a body load's second).
std::array<BodyIndex, 2> forceBodies(const Model& model, const Force& force);

/// Kinetic energy 1/2 v^T M v.
Scalar kineticEnergy(const Model& model, const std::vector<BodyMotion>& motion);

/// Potential energy of gravity and of the springs (zero at the world origin / free length).
Scalar potentialEnergy(const Model& model, const std::vector<BodyMotion>& motion);

}  // namespace loopdyn
