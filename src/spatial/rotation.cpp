#include "loopdyn/spatial/rotation.hpp"

#include <cmath>
#include <numbers>

namespace loopdyn {

Mat3 skew(const Vec3& w) {
  Mat3 S;
  S << 0, -w.z(), w.y(),  //
      w.z(), 0, -w.x(),   //
      -w.y(), w.x(), 0;
  return S;
}

Mat3 rotationZ(Scalar angle) { return Eigen::AngleAxisd(angle, Vec3::UnitZ()).toRotationMatrix(); }

Mat3 rotationZXZ(Scalar a, Scalar b, Scalar c) {
  return (Eigen::AngleAxisd(a, Vec3::UnitZ()) * Eigen::AngleAxisd(b, Vec3::UnitX()) *
          Eigen::AngleAxisd(c, Vec3::UnitZ()))
      .toRotationMatrix();
}

Mat3 rotationAxisAngle(const Vec3& axis, Scalar angle) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

Mat3 expSO3(const Vec3& w) {
  const Scalar angle = w.norm();
  if (angle == 0) return Mat3::Identity();
  return Eigen::AngleAxisd(angle, w / angle).toRotationMatrix();
}

Mat3 frameWithZAxis(const Vec3& z_axis) {
  // the world axis least aligned with z gives a well-conditioned x
  Eigen::Index least = 0;
  z_axis.normalized().cwiseAbs().minCoeff(&least);
  return frameWithAxes(z_axis, Vec3::Unit(least));
}

Mat3 frameWithAxes(const Vec3& z_axis, const Vec3& x_axis) {
  const Vec3 z = z_axis.normalized();
  const Vec3 x = (x_axis - x_axis.dot(z) * z).normalized();
  Mat3 R;
  R.col(0) = x;
  R.col(1) = z.cross(x);
  R.col(2) = z;
  return R;
}

Scalar planarAngle(const Mat3& R) { return std::atan2(R(1, 0), R(0, 0)); }

Scalar planarAngleNear(const Mat3& R, Scalar reference) {
  return reference + wrapAngle(planarAngle(R) - reference);
}

Scalar wrapAngle(Scalar angle) {
  constexpr Scalar pi = std::numbers::pi;
  Scalar wrapped = std::remainder(angle, 2 * pi);
  if (wrapped <= -pi) wrapped += 2 * pi;
  return wrapped;
}

}  // namespace loopdyn
