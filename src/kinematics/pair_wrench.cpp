#include "loopdyn/kinematics/pair_wrench.hpp"

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {

constexpr std::array<int, 3> kPlanarComponents{0, 1, 5};
constexpr std::array<int, 6> kSpatialComponents{0, 1, 2, 3, 4, 5};
constexpr std::array<std::string_view, 6> kComponentNames{"Fx", "Fy", "Fz", "Mx", "My", "Mz"};

/// Adds sign * (wrench of the pair's rows on moving body c, reduced to P) to W.
void addBodyWrench(const Model& model, const KinematicsWorkspace& ws, const Pair& pair, BodyIndex c, const Vec3& P,
                   Scalar sign, WrenchMap& W) {
  const int nv = model.vPerBody();
  const auto block = ws.C.block(pair.row, c * nv, pair.rows, nv);  // rows x coordinates of c
  const Vec3 arm = ws.motion[static_cast<std::size_t>(c)].r - P;   // r_c - P
  for (int k = 0; k < pair.rows; ++k) {
    Vec3 F = Vec3::Zero(), M = Vec3::Zero();
    if (nv == 3) {
      F.head<2>() = -block.row(k).head<2>().transpose();
      M.z() = -block(k, 2);
    } else {
      F = -block.row(k).head<3>().transpose();
      M = -block.row(k).tail<3>().transpose();
    }
    W.col(k).head<3>() += sign * F;
    W.col(k).tail<3>() += sign * (M + arm.cross(F));
  }
}

}  // namespace

std::span<const int> wrenchComponents(int dimension) {
  if (dimension == 2) return kPlanarComponents;
  return kSpatialComponents;
}

std::string_view wrenchComponentName(int row) {
  LOOPDYN_CHECK(row >= 0 && row < 6, "wrench row ", row, " out of range [0, 6)");
  return kComponentNames[static_cast<std::size_t>(row)];
}

PairFrame pairFrame(const Model& model, const KinematicsWorkspace& ws, int pair) {
  LOOPDYN_CHECK(pair >= 0 && pair < static_cast<int>(model.pairs().size()), "pair index ", pair, " out of range");
  const MarkerFrame& marker = model.pairs()[static_cast<std::size_t>(pair)].first;
  PairFrame frame;
  frame.body = marker.body;
  if (marker.body == kGround) {
    frame.point = marker.position;
    frame.orientation = marker.orientation;
  } else {
    const BodyMotion& m = ws.motion[static_cast<std::size_t>(marker.body)];
    frame.point = m.r + m.R * marker.position;
    frame.orientation = m.R * marker.orientation;
  }
  return frame;
}

void pairWrenchMap(const Model& model, const KinematicsWorkspace& ws, int pair, BodyIndex b, const Vec3& P,
                   WrenchMap& W) {
  LOOPDYN_CHECK(pair >= 0 && pair < static_cast<int>(model.pairs().size()), "pair index ", pair, " out of range");
  const Pair& p = model.pairs()[static_cast<std::size_t>(pair)];
  LOOPDYN_CHECK(b == p.body1 || b == p.body2, "pair '", p.name, "' does not act on body '", model.bodyName(b), "'");
  W.setZero(6, p.rows);
  if (b != kGround) {
    addBodyWrench(model, ws, p, b, P, 1, W);
    return;
  }
  // on the ground: minus what the pair exerts on its moving bodies (Newton's third law)
  for (BodyIndex c : {p.body1, p.body2})
    if (c != kGround) addBodyWrench(model, ws, p, c, P, -1, W);
}

}  // namespace loopdyn
