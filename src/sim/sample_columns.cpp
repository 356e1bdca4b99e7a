#include "loopdyn/sim/sample_columns.hpp"

#include <array>

#include "loopdyn/common/check.hpp"
#include "loopdyn/kinematics/coordinates.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"

namespace loopdyn {

namespace {

constexpr std::array<std::string_view, 6> kPlanarState{"x", "y", "phi", "vx", "vy", "w"};
constexpr std::array<std::string_view, 13> kSpatialState{"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                                         "vx", "vy", "vz", "wx", "wy", "wz"};

bool isDriver(const Pair& pair) { return pair.type == "driver"; }

}  // namespace

SampleColumns::SampleColumns(const Model& model, const UniquenessReport& flags, const ColumnOptions& options)
    : options_(options) {
  LOOPDYN_CHECK(flags.pairs.size() == model.pairs().size(), "uniqueness report does not belong to this model");
  names_.push_back("t");
  for (const Body& body : model.bodies()) {
    if (model.dimension() == 2) {
      for (std::string_view c : kPlanarState) names_.push_back(body.name + "." + std::string(c));
    } else {
      for (std::string_view c : kSpatialState) names_.push_back(body.name + "." + std::string(c));
    }
  }
  for (const char* c : {"energy.kinetic", "energy.potential", "energy.work", "energy.balance", "violation.position",
                        "violation.velocity"})
    names_.push_back(c);
  for (int i = 1; i <= options.generalized_velocities; ++i) names_.push_back("u." + std::to_string(i));
  if (options.joint_coordinates)
    for (const char kind : {'q', 'v'})
      for (std::string& name : jointCoordinateNames(model, kind)) names_.push_back(std::move(name));
  joint_q_ = options.joint_coordinates ? model.topology().nq : 0;
  joint_v_ = options.joint_coordinates ? model.topology().nv : 0;

  const std::span<const int> components = wrenchComponents(model.dimension());
  for (std::size_t p = 0; p < model.pairs().size(); ++p) {
    const Pair& pair = model.pairs()[p];
    if (isDriver(pair)) continue;
    // The analysis reads the wrench on the pair's first-marker body; the other body receives the
    // opposite wrench at the same point (action and reaction), so the flags hold for both.
    const PairUniqueness& u = flags.pairs[p];
    for (BodyIndex body : {pair.body1, pair.body2}) {
      sides_.push_back({static_cast<int>(p), body});
      const std::string prefix = pair.name + "@" + model.bodyName(body) + ".";
      for (bool joint : {false, true}) {
        if (!(joint ? options.joint_reactions : options.world_reactions)) continue;
        const std::vector<ComponentStatus>& status = joint ? u.joint : u.global;
        for (std::size_t k = 0; k < components.size(); ++k) {
          const bool non_unique = status[k] == ComponentStatus::NonUnique;
          non_unique_ += non_unique ? 1 : 0;
          names_.push_back(prefix + (joint ? "joint." : "") + std::string(wrenchComponentName(components[k])) +
                           (non_unique ? "*" : ""));
        }
      }
    }
  }
  for (std::size_t p = 0; p < model.pairs().size(); ++p) {
    const Pair& pair = model.pairs()[p];
    if (!isDriver(pair)) continue;
    driver_rows_.push_back(pair.row);
    const bool non_unique = !flags.pairs[p].reaction.unique();
    non_unique_ += non_unique ? 1 : 0;
    names_.push_back(pair.name + ".effort" + (non_unique ? "*" : ""));
  }
}

void SampleColumns::fill(const Model& model, const Sample& sample, const DynamicsWorkspace& ws,
                         std::vector<double>& row) const {
  row.resize(names_.size());
  std::size_t k = 0;
  row[k++] = sample.x.t;
  for (int b = 0; b < model.nb(); ++b) {
    for (int i = 0; i < model.qPerBody(); ++i) row[k++] = sample.x.q(b * model.qPerBody() + i);
    for (int i = 0; i < model.vPerBody(); ++i) row[k++] = sample.x.v(b * model.vPerBody() + i);
  }
  row[k++] = sample.kinetic;
  row[k++] = sample.potential;
  row[k++] = sample.work;
  row[k++] = sample.kinetic + sample.potential - sample.work;
  row[k++] = sample.position_violation;
  row[k++] = sample.velocity_violation;
  LOOPDYN_CHECK(sample.generalized_velocities.size() >= options_.generalized_velocities,
                "the sample has fewer generalized velocities than the columns");
  for (int i = 0; i < options_.generalized_velocities; ++i) row[k++] = sample.generalized_velocities(i);
  LOOPDYN_CHECK(sample.x.q_r.size() >= joint_q_ && sample.x.v_r.size() >= joint_v_,
                "the sample has no joint coordinates (not a relative-coordinate run)");
  for (int i = 0; i < joint_q_; ++i) row[k++] = sample.x.q_r(i);
  for (int i = 0; i < joint_v_; ++i) row[k++] = sample.x.v_r(i);

  const std::span<const int> components = wrenchComponents(model.dimension());
  WrenchMap W;
  Vec6 wrench, local;
  for (const ReactionSide& side : sides_) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(side.pair)];
    const PairFrame frame = pairFrame(model, ws.kin, side.pair);
    pairWrenchMap(model, ws.kin, side.pair, side.body, frame.point, W);
    wrench = W * sample.lambda.segment(pair.row, pair.rows);
    if (options_.world_reactions)
      for (int c : components) row[k++] = wrench(c);
    if (options_.joint_reactions) {
      local.head<3>() = frame.orientation.transpose() * wrench.head<3>();
      local.tail<3>() = frame.orientation.transpose() * wrench.tail<3>();
      for (int c : components) row[k++] = local(c);
    }
  }
  for (int r : driver_rows_) row[k++] = -sample.lambda(r);
}

}  // namespace loopdyn
