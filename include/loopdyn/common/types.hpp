#pragma once
/// Scalar, fixed-size vector and matrix aliases, and index types used throughout loopdyn.

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <cstdint>

namespace loopdyn {

using Scalar = double;
using Vec2 = Eigen::Matrix<Scalar, 2, 1>;
using Vec3 = Eigen::Matrix<Scalar, 3, 1>;
using Vec6 = Eigen::Matrix<Scalar, 6, 1>;
using Mat2 = Eigen::Matrix<Scalar, 2, 2>;
using Mat3 = Eigen::Matrix<Scalar, 3, 3>;
using Mat6 = Eigen::Matrix<Scalar, 6, 6>;
using Quat = Eigen::Quaternion<Scalar>;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

/// Index of a moving body; kGround marks the implicit fixed body.
using BodyIndex = std::int32_t;
inline constexpr BodyIndex kGround = -1;

}  // namespace loopdyn
