#pragma once
/// Rotations: planar angles, Euler angles, axis-angle, the exponential map, and frame builders.

#include "loopdyn/common/types.hpp"

namespace loopdyn {

/// Skew-symmetric matrix [w]x such that [w]x a = w x a.
Mat3 skew(const Vec3& w);

/// Planar rotation by `angle` about z, as a 3x3 matrix.
Mat3 rotationZ(Scalar angle);

/// Rotation from z-x-z Euler angles: Rz(a) Rx(b) Rz(c).
Mat3 rotationZXZ(Scalar a, Scalar b, Scalar c);

/// Rotation by `angle` about the unit direction of `axis` (axis must be nonzero).
Mat3 rotationAxisAngle(const Vec3& axis, Scalar angle);

/// Exponential map: rotation by |w| about w/|w| (identity for w = 0).
Mat3 expSO3(const Vec3& w);

/// A right-handed orthonormal frame whose z-axis is the unit direction of `z_axis`. The x-axis is
/// axis of the frame z_axis is written in that is least aligned with z -- of x, y, z the one with the smallest
/// |component| of z, the first of them on a tie -- made perpendicular to z; y = z x x. E.g. z along
/// (0, 0, 1) gives x = (1, 0, 0); z along (1, 0, 0) gives x = (0, 1, 0).
Mat3 frameWithZAxis(const Vec3& z_axis);
/// The frame whose z-axis is along `z_axis` and whose x-axis is `x_axis` made perpendicular to it
/// (x_axis must not be parallel to z_axis); y = z x x.
Mat3 frameWithAxes(const Vec3& z_axis, const Vec3& x_axis);

/// The angle of a planar rotation matrix (atan2 of its first column).
Scalar planarAngle(const Mat3& R);

/// The angle of a planar rotation matrix within pi of `reference`: the matrix's angle with the
/// whole turns of `reference` (a matrix forgets them; a joint angle written as 0.2 + 2 pi must not).
Scalar planarAngleNear(const Mat3& R, Scalar reference);

/// Wraps an angle into (-pi, pi].
Scalar wrapAngle(Scalar angle);

}  // namespace loopdyn
