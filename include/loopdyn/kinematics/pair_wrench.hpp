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

#include <array>
#include <span>
#include <string_view>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
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

/// Where a pair acts: its first marker, in world coordinates, as last evaluated in ws.
struct PairFrame {
  Vec3 point = Vec3::Zero();            ///< the marker origin (the joint point)
  Mat3 orientation = Mat3::Identity();  ///< marker axes -> world (the joint frame)
  BodyIndex body = kGround;             ///< the body carrying the marker
};

/// The joint point and joint frame of pair `pair` (index into model.pairs()).
/// Precondition: evaluateConstraints(model, ws, x) was called for the state of interest.
PairFrame pairFrame(const Model& model, const KinematicsWorkspace& ws, int pair);

/// Fills W (6 x rows of the pair) so that W lambda_X is the wrench the pair exerts on body b,
/// reduced to the point P (world frame). b is one of the pair's bodies, or the ground.
/// Uses ws.C and ws.motion as last evaluated. Throws InvalidArgument if the pair does not act on b.
void pairWrenchMap(const Model& model, const KinematicsWorkspace& ws, int pair, BodyIndex b, const Vec3& P,
                   WrenchMap& W);

}  // namespace loopdyn
