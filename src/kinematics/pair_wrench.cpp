#include "loopdyn/kinematics/pair_wrench.hpp"

#include "loopdyn/common/check.hpp"
#include "loopdyn/kinematics/constraint_equations.hpp"

namespace loopdyn {

namespace {

constexpr std::array<int, 3> kPlanarComponents{0, 1, 5};
constexpr std::array<int, 6> kSpatialComponents{0, 1, 2, 3, 4, 5};
constexpr std::array<std::string_view, 6> kComponentNames{"Fx", "Fy", "Fz", "Mx", "My", "Mz"};

/// A pair's rows of C on its two bodies: block k (rows x velocity columns of one body; 2D: the
/// first 3 columns) on the body in slot k, the gradients of its equations' jets.
struct PairRows {
  std::array<Eigen::Matrix<Scalar, 6, 6>, 2> on{};
  std::array<BodyIndex, 2> bodies{kGround, kGround};
  int rows = 0;
};

template <int D>
PairRows pairRowsIn(const Model& model, const std::vector<BodyMotion>& motion, const Pair& pair) {
  constexpr int nvb = kJetBodyColumns<D>;
  std::array<BasicJet<false, D>, 6> jets;
  PairRows out;
  out.rows = pair.rows;
  if (pair.joint >= 0) {
    const Joint& joint = model.joints()[static_cast<std::size_t>(pair.joint)];
    out.bodies = {joint.first.body, joint.second.body};
    jointEquations<false, D>(joint, motionOf(motion, joint.first.body), motionOf(motion, joint.second.body),
                             std::span<BasicJet<false, D>>(jets.data(), static_cast<std::size_t>(pair.rows)));
  } else {
    const Driver& driver = model.drivers()[static_cast<std::size_t>(pair.driver)];
    out.bodies = {driver.first.body, driver.second.body};
    // (a driver's gradient does not depend on time: its profile only shifts the value)
    jets[0] = driverEquation<false, D>(driver, motionOf(motion, driver.first.body), motionOf(motion, driver.second.body), 0);
  }
  for (int slot = 0; slot < 2; ++slot)
    for (int k = 0; k < pair.rows; ++k)
      out.on[static_cast<std::size_t>(slot)].row(k).head<nvb>() = jets[static_cast<std::size_t>(k)].grad.template segment<nvb>(nvb * slot);
  return out;
}

PairRows pairRows(const Model& model, const std::vector<BodyMotion>& motion, const Pair& pair) {
  LOOPDYN_CHECK(static_cast<int>(motion.size()) == model.nb(), "motion: expected ", model.nb(), " bodies, got ",
                motion.size());
  return model.dimension() == 2 ? pairRowsIn<2>(model, motion, pair) : pairRowsIn<3>(model, motion, pair);
}

/// Adds sign * (wrench of the rows `block` on moving body c, reduced to P) to W.
void addBodyWrench(const Model& model, const std::vector<BodyMotion>& motion, const Eigen::Matrix<Scalar, 6, 6>& block,
                   int rows, BodyIndex c, const Vec3& P, Scalar sign, WrenchMap& W) {
  const Vec3 arm = motion[static_cast<std::size_t>(c)].r - P;  // r_c - P
  for (int k = 0; k < rows; ++k) {
    Vec3 F = Vec3::Zero(), M = Vec3::Zero();
    if (model.dimension() == 2) {
      F.head<2>() = -block.row(k).head<2>().transpose();
      M.z() = -block(k, 2);
    } else {
      F = -block.row(k).head<3>().transpose();
      M = -block.row(k).segment<3>(3).transpose();
    }
    W.col(k).head<3>() += sign * F;
    W.col(k).tail<3>() += sign * (M + arm.cross(F));
  }
}

/// The map of pairWrenchMap from the pair's rows.
void wrenchMapOf(const Model& model, const std::vector<BodyMotion>& motion, const PairRows& rows, BodyIndex b,
                 const Vec3& P, WrenchMap& W) {
  W.setZero(6, rows.rows);
  // on a moving body: its rows' wrench (both slots where both markers sit on it, as C adds them);
  // on the ground: minus what the pair exerts on its moving bodies (Newton's third law)
  for (int slot = 0; slot < 2; ++slot) {
    const BodyIndex c = rows.bodies[static_cast<std::size_t>(slot)];
    if (c == kGround) continue;
    if (b == kGround) addBodyWrench(model, motion, rows.on[static_cast<std::size_t>(slot)], rows.rows, c, P, -1, W);
    else if (c == b) addBodyWrench(model, motion, rows.on[static_cast<std::size_t>(slot)], rows.rows, c, P, 1, W);
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

PairFrame pairFrame(const Model& model, const std::vector<BodyMotion>& motion, int pair) {
  LOOPDYN_CHECK(pair >= 0 && pair < static_cast<int>(model.pairs().size()), "pair index ", pair, " out of range");
  const MarkerFrame& marker = model.pairs()[static_cast<std::size_t>(pair)].first;
  PairFrame frame;
  frame.body = marker.body;
  if (marker.body == kGround) {
    frame.point = marker.position;
    frame.orientation = marker.orientation;
  } else {
    const BodyMotion& m = motion[static_cast<std::size_t>(marker.body)];
    frame.point = m.r + m.R * marker.position;
    frame.orientation = m.R * marker.orientation;
  }
  return frame;
}

void pairWrenchMap(const Model& model, const std::vector<BodyMotion>& motion, int pair, BodyIndex b, const Vec3& P,
                   WrenchMap& W) {
  LOOPDYN_CHECK(pair >= 0 && pair < static_cast<int>(model.pairs().size()), "pair index ", pair, " out of range");
  const Pair& p = model.pairs()[static_cast<std::size_t>(pair)];
  LOOPDYN_CHECK(b == p.body1 || b == p.body2, "pair '", p.name, "' does not act on body '", model.bodyName(b), "'");
  wrenchMapOf(model, motion, pairRows(model, motion, p), b, P, W);
}

Vec6 PairReaction::inJointAxes(const Vec6& world) const {
  Vec6 local;
  local.head<3>() = frame.orientation.transpose() * world.head<3>();
  local.tail<3>() = frame.orientation.transpose() * world.tail<3>();
  return local;
}

void pairReactions(const Model& model, const std::vector<BodyMotion>& motion, const VecX& lambda,
                   std::vector<PairReaction>& out) {
  LOOPDYN_CHECK(lambda.size() == model.nc(), "lambda: expected ", model.nc(), " multipliers, got ", lambda.size());
  out.resize(model.pairs().size());
  WrenchMap W;
  for (std::size_t k = 0; k < model.pairs().size(); ++k) {
    const Pair& pair = model.pairs()[k];
    PairReaction& r = out[k];
    r.frame = pairFrame(model, motion, static_cast<int>(k));
    const PairRows rows = pairRows(model, motion, pair);
    const auto lambda_X = lambda.segment(pair.row, pair.rows);
    wrenchMapOf(model, motion, rows, pair.body1, r.frame.point, W);
    r.on_body1 = W * lambda_X;
    wrenchMapOf(model, motion, rows, pair.body2, r.frame.point, W);
    r.on_body2 = W * lambda_X;
  }
}

}  // namespace loopdyn
