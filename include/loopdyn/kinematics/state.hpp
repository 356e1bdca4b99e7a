#pragma once
/// State (t, q, v) of a model in absolute coordinates, and the pose/motion of single bodies.

#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Time, positions (size nq) and velocities (size nv); see Model for the layout.
struct State {
  Scalar t = 0;
  VecX q;
  VecX v;
  /// Joint coordinates and velocities on the spanning tree (kinematics/tree_kinematics.hpp) when
  /// the state comes from them (a relative-coordinate simulation: q and v follow from these);
  /// empty otherwise.
  VecX q_r, v_r;
};

/// Pose and velocity of one body in 3D form (a planar body lies in z = 0 and turns about z).
struct BodyMotion {
  Vec3 r = Vec3::Zero();           ///< origin (centre of mass), world frame
  Mat3 R = Mat3::Identity();       ///< body -> world
  Vec3 v = Vec3::Zero();           ///< velocity of the origin, world frame
  Vec3 w = Vec3::Zero();           ///< angular velocity, world frame
  Scalar phi = 0;                  ///< planar bodies: the unwrapped angle coordinate
  bool ground = false;
};

/// The fixed frame at rest (ground's motion).
const BodyMotion& groundMotion();

/// motion[b], or the fixed frame at rest for kGround.
inline const BodyMotion& motionOf(const std::vector<BodyMotion>& motion, BodyIndex b) {
  return b == kGround ? groundMotion() : motion[static_cast<std::size_t>(b)];
}

/// The state written in the model file (approximate positions, prescribed velocities).
State initialState(const Model& model);

/// Pose and motion of body b (kGround gives the fixed frame).
/// Preconditions: q.size() == nq, v.size() == nv (or v empty for zero velocity).
BodyMotion bodyMotion(const Model& model, const VecX& q, const VecX& v, BodyIndex b);

/// q (+) dv: moves positions along a velocity-space increment dv (size nv). Translations add;
/// rotations are composed from the left with exp(dw) (world frame); quaternions stay unit.
void displacePositions(const Model& model, const VecX& q, const VecX& dv, VecX& out);

/// Throws InvalidArgument unless q and v have the model's sizes.
void checkStateSize(const Model& model, const State& x);

}  // namespace loopdyn
