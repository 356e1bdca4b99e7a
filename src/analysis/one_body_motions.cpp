#include "loopdyn/analysis/one_body_motions.hpp"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

namespace {

/// A vector in words, four significant digits, no -0: "(0.6, 0.8, 0)" (2D: two components).
std::string vectorWords(const Model& model, const Vec3& x) {
  std::ostringstream os;
  os.precision(4);
  for (int i = 0; i < model.dimension(); ++i) os << (i ? ", " : "(") << (std::abs(x(i)) < 5e-13 ? 0.0 : x(i));
  os << ')';
  return os.str();
}

/// The joints (file order) with a marker on body b whose point lies on the line through p along e.
std::vector<std::string> jointsOnAxis(const Model& model, const KinematicsWorkspace& kin, BodyIndex b, const Vec3& p,
                                      const Vec3& e) {
  const BodyMotion& pose = motionOf(kin.motion, b);
  const Scalar tolerance = 1e-6 * model.characteristicLength();
  std::vector<std::string> names;
  for (const Joint& joint : model.joints()) {
    for (const MarkerFrame* marker : {&joint.first, &joint.second}) {
      if (marker->body != b) continue;
      const Vec3 point = pose.r + pose.R * marker->position;
      if ((point - p).cross(e).norm() <= tolerance) {
        names.push_back(joint.name);
        break;
      }
    }
  }
  return names;
}

std::string axisWords(const Model& model, const std::vector<std::string>& joints, const Vec3& p, const Vec3& e) {
  const bool planar = model.dimension() == 2;
  if (joints.size() >= 2) return "about the line through joints " + joints[0] + " and " + joints[1];
  if (joints.size() == 1) return planar ? "about joint " + joints[0] : "about joint " + joints[0] + ", along " + vectorWords(model, e);
  return planar ? "about the point " + vectorWords(model, p) + " m"
                : "about the axis through " + vectorWords(model, p) + " m along " + vectorWords(model, e);
}

/// The block of C_s on body b's velocity columns.
MatX scaledBlock(const Model& model, const MatX& Cs, BodyIndex b) {
  const int k = model.vPerBody();
  return Cs.middleCols(static_cast<Eigen::Index>(b) * k, k);
}

}  // namespace

std::string rigidMotionWords(const Model& model, const KinematicsWorkspace& kin, BodyIndex b, const Vec3& v,
                             const Vec3& w) {
  const Scalar L = model.characteristicLength();
  const std::string& body = model.bodyName(b);
  if (w.norm() * L <= 1e-8 * v.norm()) return body + " slides along " + vectorWords(model, v.normalized());
  const Vec3 e = w.normalized();
  const Scalar pitch = w.dot(v) / w.squaredNorm();
  const Vec3 p = motionOf(kin.motion, b).r + w.cross(v) / w.squaredNorm();
  const std::vector<std::string> joints = jointsOnAxis(model, kin, b, p, e);
  if (std::abs(pitch) <= 1e-8 * L) return body + (joints.size() >= 2 ? " spins " : " turns ") + axisWords(model, joints, p, e);
  return body + " screws " + axisWords(model, joints, p, e) + ", pitch " + std::to_string(pitch) + " m/rad";
}

std::vector<OneBodyMotion> oneBodyMotions(const Model& model, const KinematicsWorkspace& kin, Scalar threshold) {
  MatX Cs;
  scaledMatrix(model.scaling(), kin.C.dense(), Cs);
  const int k = model.vPerBody();
  std::vector<Eigen::JacobiSVD<MatX>> svds;
  Scalar largest = 0;
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    if (Cs.rows() > 0) svds.emplace_back(scaledBlock(model, Cs, b), Eigen::ComputeFullV);
    else svds.emplace_back();
    if (svds.back().singularValues().size() > 0) largest = std::max(largest, svds.back().singularValues()(0));
  }
  std::vector<OneBodyMotion> out;
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const Eigen::JacobiSVD<MatX>& svd = svds[static_cast<std::size_t>(b)];
    const VecX& sigma = svd.singularValues();
    for (int j = 0; j < k; ++j) {
      if (j < sigma.size() && sigma(j) > threshold * largest) continue;
      VecX x = Cs.rows() > 0 ? VecX(svd.matrixV().col(j)) : VecX(VecX::Unit(k, j));  // no equations: all free
      Eigen::Index top = 0;
      x.cwiseAbs().maxCoeff(&top);
      if (x(top) < 0) x = -x;  // a sign of its own, not the SVD's
      OneBodyMotion m;
      m.body = b;
      m.scaled = VecX::Zero(model.nv());
      m.scaled.segment(static_cast<Eigen::Index>(b) * k, k) = x;
      const VecX v = model.scaling().col.segment(static_cast<Eigen::Index>(b) * k, k).cwiseProduct(x);
      const Vec3 velocity = k == 3 ? Vec3(v(0), v(1), 0) : Vec3(v.head<3>());
      const Vec3 rate = k == 3 ? Vec3(0, 0, v(2)) : Vec3(v.tail<3>());
      m.words = rigidMotionWords(model, kin, b, velocity, rate) + " (every other body at rest)";
      out.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace loopdyn
