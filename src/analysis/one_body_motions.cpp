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

/// The joint (file order) whose point on body b every one of `motions` (v, w at b's origin) leaves
/// at rest, or "": those motions are all turns about that point (a ball's three, a universal
/// joint's two).
std::string commonPivot(const Model& model, const KinematicsWorkspace& kin, BodyIndex b,
                        const std::vector<std::pair<Vec3, Vec3>>& motions) {
  const BodyMotion& pose = motionOf(kin.motion, b);
  const Scalar L = model.characteristicLength();
  for (const Joint& joint : model.joints())
    for (const MarkerFrame* marker : {&joint.first, &joint.second}) {
      if (marker->body != b) continue;
      const Vec3 arm = pose.R * marker->position;
      const bool pivot = std::all_of(motions.begin(), motions.end(), [&](const auto& m) {
        return m.second.norm() * L > 1e-8 * m.first.norm() &&
               (m.first + m.second.cross(arm)).norm() <= 1e-8 * (m.first.norm() + m.second.norm() * L);
      });
      if (pivot) return joint.name;
    }
  return {};
}

/// The words of body b's motions out[first ..]: one by one, or, where they are all the turns
/// about one joint's point, as that.
void nameBodyMotions(const Model& model, const KinematicsWorkspace& kin, BodyIndex b, std::size_t first,
                     const std::vector<std::pair<Vec3, Vec3>>& motions, std::vector<OneBodyMotion>& out) {
  const std::string pivot = motions.size() >= 2 ? commonPivot(model, kin, b, motions) : std::string();
  for (std::size_t j = 0; j < motions.size(); ++j) {
    std::string& words = out[first + j].words;
    if (pivot.empty())
      words = rigidMotionWords(model, kin, b, motions[j].first, motions[j].second) + " (every other body at rest)";
    else if (j == 0)
      words = model.bodyName(b) + " turns freely about joint " + pivot + ": motions " + std::to_string(first + 1) +
              " to " + std::to_string(first + motions.size()) + " are its turns about that point (every other body at rest)";
    else
      words = model.bodyName(b) + " turns freely about joint " + pivot + " (see motion " + std::to_string(first + 1) + ")";
  }
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
    const std::size_t first = out.size();
    std::vector<std::pair<Vec3, Vec3>> motions;  // (v, w) of each, at b's origin
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
      motions.emplace_back(velocity, rate);
      out.push_back(std::move(m));
    }
    nameBodyMotions(model, kin, b, first, motions, out);
  }
  return out;
}

}  // namespace loopdyn
