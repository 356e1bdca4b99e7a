#pragma once
/// The physical reaction of one kinematic pair: the force and moment it puts on a body, as a
/// linear map of the pair's multipliers.
///
/// With the equations of motion M a + C^T lambda = F (paper 001, eq. (10)), the constraint forces
/// acting on the bodies are -C^T lambda. For a pair X, the block of -C_X^T lambda_X that belongs
/// to body b is the wrench X exerts on b: its force F and its moment M_b about b's centre of mass
/// (world components; a planar body has F = (Fx, Fy) and M = Mz), because the velocity
/// coordinates of b are its centre-of-mass velocity and its angular velocity. Reduced to a point P,
/// the moment is M_P = M_b + (r_b - P) x F. On the ground, which has no coordinates, the wrench is
/// minus the sum of those on the pair's moving bodies (action and reaction).
///
/// The rows C_X on b's coordinates are the gradients of the pair's own equations
/// (constraint_equations.hpp) at the bodies' positions: everything here reads the bodies' motions,
/// never the model-wide constraint matrix, so a pair's reaction costs the same in a model of any
/// size.

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Maps a pair's multipliers to a wrench: rows Fx Fy Fz Mx My Mz, one column per equation. A pair
/// has at most 6 equations (a fixed joint in 3D), so the map lives on the stack.
using WrenchMap = Eigen::Matrix<Scalar, 6, Eigen::Dynamic, 0, 6, 6>;

/// The wrench components a model of this dimension has: Fx Fy Mz (2D) or Fx Fy Fz Mx My Mz (3D),
/// as row indices of a WrenchMap.
std::span<const int> wrenchComponents(int dimension);

/// "Fx", "Fy", "Fz", "Mx", "My", "Mz" for the rows of a WrenchMap.
std::string_view wrenchComponentName(int row);

/// Where a pair acts: its first marker, in world coordinates.
struct PairFrame {
  Vec3 point = Vec3::Zero();            ///< the marker origin (the joint point)
  Mat3 orientation = Mat3::Identity();  ///< marker axes -> world (the joint frame)
  BodyIndex body = kGround;             ///< the body carrying the marker
};

/// The joint point and joint frame of pair `pair` (index into model.pairs()) with the bodies at
/// the positions of `motion` (one per body, e.g. KinematicsWorkspace::motion as evaluated).
PairFrame pairFrame(const Model& model, const std::vector<BodyMotion>& motion, int pair);

/// Fills W (6 x rows of the pair) so that W lambda_X is the wrench the pair exerts on body b,
/// reduced to the point P (world frame), with the bodies at the positions of `motion`. b is one of
/// the pair's bodies, or the ground. Throws InvalidArgument if the pair does not act on b.
void pairWrenchMap(const Model& model, const std::vector<BodyMotion>& motion, int pair, BodyIndex b, const Vec3& P,
                   WrenchMap& W);

/// One pair's reaction at a state: the wrenches it exerts on its two bodies, reduced to its joint
/// point, world axes (rows Fx Fy Fz Mx My Mz; in 2D Fz = Mx = My = 0). A wrench on the ground is
/// minus the sum of those on the moving bodies.
struct PairReaction {
  PairFrame frame;
  Vec6 on_body1 = Vec6::Zero();  ///< on Pair::body1
  Vec6 on_body2 = Vec6::Zero();  ///< on Pair::body2
  /// A wrench in world axes, in the joint frame's axes instead (the same point).
  Vec6 inJointAxes(const Vec6& world) const;
};

/// Every pair's reaction (out: one per model.pairs()) from every row's multiplier lambda (size
/// m + h, the sign of M a = F - C^T lambda), with the bodies at the positions of `motion`: the
/// output a formulation's multipliers give (sim/simulation.hpp, Sample::reactions). O(pairs).
void pairReactions(const Model& model, const std::vector<BodyMotion>& motion, const VecX& lambda,
                   std::vector<PairReaction>& out);

}  // namespace loopdyn
