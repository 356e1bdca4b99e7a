#include "loopdyn/sim/sample_columns.hpp"

#include <algorithm>
#include <array>

#include "loopdyn/common/check.hpp"
#include "loopdyn/common/spelling.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/coordinates.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"

namespace loopdyn {

namespace {

constexpr std::array<std::string_view, 6> kPlanarState{"x", "y", "phi", "vx", "vy", "w"};
constexpr std::array<std::string_view, 13> kSpatialState{"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                                         "vx", "vy", "vz", "wx", "wy", "wz"};

bool isDriver(const Pair& pair) { return pair.type == "driver"; }

}  // namespace

const std::vector<std::string>& columnGroupNames() {
  static const std::vector<std::string> names = {"bodies",  "energy", "violation", "coordinates",
                                                 "joints", "points", "reactions", "efforts"};
  return names;
}

ColumnOptions columnOptionsFor(const std::vector<std::string>& groups, const std::string& reactions,
                               int generalized_velocities, bool relative, std::vector<TrackedPoint> points) {
  const std::vector<std::string>& known = columnGroupNames();
  std::vector<std::string> wanted;
  for (const std::string& g : groups) {
    if (g == "all" || g == "default") {
      for (const std::string& k : known)
        if (g == "all" || k != "joints") wanted.push_back(k);
    } else {
      LOOPDYN_CHECK(std::find(known.begin(), known.end(), g) != known.end(), "unknown column group '", g, "'",
                    didYouMean(g, known));
      wanted.push_back(g);
    }
  }
  LOOPDYN_CHECK(reactions == "all" || reactions == "world" || reactions == "joint" || reactions == "none",
                "reactions: expected all, world, joint or none, got '", reactions, "'");
  const auto has = [&](const char* g) { return std::find(wanted.begin(), wanted.end(), g) != wanted.end(); };
  ColumnOptions options;
  options.bodies = has("bodies");
  options.energy = has("energy");
  options.violation = has("violation");
  options.efforts = has("efforts");
  options.all_joints = has("joints");
  options.generalized_velocities = has("coordinates") ? generalized_velocities : 0;
  // (every joint's coordinates include the tree joints' that a relative run integrates)
  options.joint_coordinates = relative && has("coordinates") && !has("joints");
  options.world_reactions = has("reactions") && (reactions == "all" || reactions == "world");
  options.joint_reactions = has("reactions") && (reactions == "all" || reactions == "joint");
  if (has("points")) options.points = std::move(points);
  return options;
}

UniquenessReport uniquenessMarks(const Model& model, const State& x0, const ColumnOptions& options, bool always) {
  if (!columnsReadUniqueness(model, options) && !always) return {};
  KinematicsWorkspace kin(model);
  UniquenessOptions uniqueness_options;
  uniqueness_options.methods = {UniquenessMethod::QR};
  return analyzeReactionUniquenessNear(model, kin, x0, uniqueness_options);
}

bool columnsReadUniqueness(const Model& model, const ColumnOptions& options) {
  const bool drivers = std::any_of(model.pairs().begin(), model.pairs().end(), isDriver);
  return options.world_reactions || options.joint_reactions || (options.efforts && drivers);
}

SampleColumns::SampleColumns(const Model& model, const UniquenessReport& flags, const ColumnOptions& options)
    : options_(options) {
  if (columnsReadUniqueness(model, options)) {
    LOOPDYN_CHECK(flags.pairs.size() == model.pairs().size(), "uniqueness report does not belong to this model");
    for (const PairUniqueness& p : flags.pairs)
      LOOPDYN_CHECK(!p.reaction.methods.empty(), "uniqueness report without a deciding method");
  }
  names_.push_back("t");
  if (options.bodies)
    for (const Body& body : model.bodies()) {
      if (model.dimension() == 2) {
        for (std::string_view c : kPlanarState) names_.push_back(body.name + "." + std::string(c));
      } else {
        for (std::string_view c : kSpatialState) names_.push_back(body.name + "." + std::string(c));
      }
    }
  if (options.energy)
    for (const char* c : {"energy.kinetic", "energy.potential", "energy.work", "energy.balance"}) names_.push_back(c);
  if (options.violation)
    for (const char* c : {"violation.position", "violation.velocity"}) names_.push_back(c);
  for (const TrackedPoint& p : options.points)
    for (const char* c : {"x", "y", "z", "vx", "vy", "vz"})
      if (model.dimension() == 3 || (c[0] != 'z' && c[1] != 'z')) names_.push_back(p.name + "." + c);
  for (int i = 1; i <= options.generalized_velocities; ++i) names_.push_back("u." + std::to_string(i));
  if (options.joint_coordinates)
    for (const char kind : {'q', 'v'})
      for (std::string& name : jointCoordinateNames(model, kind)) names_.push_back(std::move(name));
  joint_q_ = options.joint_coordinates ? model.topology().nq : 0;
  joint_v_ = options.joint_coordinates ? model.topology().nv : 0;
  if (options.all_joints) {
    for (std::size_t j = 0; j < model.joints().size(); ++j) {
      const JointType type = model.joints()[j].type;
      if (type == JointType::Distance || type == JointType::KnifeEdge || type == JointType::Fixed) continue;
      joints_.push_back(static_cast<int>(j));
      joint_models_.emplace_back(type, model.dimension());
      joint_q_last_.emplace_back();
    }
    for (const char kind : {'q', 'v'})
      for (std::size_t k = 0; k < joints_.size(); ++k) {
        const int count = kind == 'q' ? joint_models_[k].nq() : joint_models_[k].nv();
        for (int i = 1; i <= count; ++i)
          names_.push_back(model.joints()[static_cast<std::size_t>(joints_[k])].name + "." + kind + std::to_string(i));
      }
    for (const JointModel& jm : joint_models_) all_joint_q_ += jm.nq(), all_joint_v_ += jm.nv();
  }

  addMarkedColumns(model, flags);
  // the force elements' efforts
  for (const Force& force : model.forces()) {
    if (!options.efforts) break;
    force_columns_ = true;
    const std::string& name = force.spec.name;
    switch (force.spec.type) {
      case ForceType::SpringDamper: names_.push_back(name + ".tension"); break;
      case ForceType::JointEffort: names_.push_back(name + ".effort"); break;
      case ForceType::BodyLoad:
        for (const int c : wrenchComponents(model.dimension())) names_.push_back(name + "." + std::string(wrenchComponentName(c)));
        break;
    }
  }
}

/// The reaction and driver-effort columns, each marked as its uniqueness says.
void SampleColumns::addMarkedColumns(const Model& model, const UniquenessReport& flags) {
  const auto add = [&](std::string name, bool non_unique) {
    names_.push_back(std::move(name));
    non_unique_ += non_unique ? 1 : 0;
    if (non_unique) non_unique_names_.push_back(names_.back());
    if (non_unique && options_.mark_non_unique) names_.back() += '*';
  };
  const std::span<const int> components = wrenchComponents(model.dimension());
  for (std::size_t p = 0; p < model.pairs().size() && (options_.world_reactions || options_.joint_reactions); ++p) {
    const Pair& pair = model.pairs()[p];
    if (isDriver(pair)) continue;
    // The analysis reads the wrench on the pair's first-marker body; the other body receives the
    // opposite wrench at the same point (action and reaction), so the flags hold for both.
    const PairUniqueness& u = flags.pairs[p];
    for (BodyIndex body : {pair.body1, pair.body2}) {
      sides_.push_back({static_cast<int>(p), body});
      const std::string prefix = pair.name + "@" + model.bodyName(body) + ".";
      for (bool joint : {false, true}) {
        if (!(joint ? options_.joint_reactions : options_.world_reactions)) continue;
        const std::vector<ComponentStatus>& status = joint ? u.joint : u.global;
        for (std::size_t k = 0; k < components.size(); ++k) {
          add(prefix + (joint ? "joint." : "") + std::string(wrenchComponentName(components[k])),
              status[k] == ComponentStatus::NonUnique);
        }
      }
    }
  }
  for (std::size_t p = 0; p < model.pairs().size() && options_.efforts; ++p) {
    const Pair& pair = model.pairs()[p];
    if (!isDriver(pair)) continue;
    driver_rows_.push_back(pair.row);
    add(pair.name + ".effort", !flags.pairs[p].reaction.unique());
  }
}

std::string resolvePoint(const Model& model, const std::string& text, TrackedPoint& out) {
  const std::size_t eq = text.find('='), dot = text.find('.', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || eq == 0 || dot == std::string::npos || dot == eq + 1 || dot + 1 == text.size())
    return "expected NAME=BODY.MARKER (e.g. tip=crank1.top)";
  out.name = text.substr(0, eq);
  const std::string body = text.substr(eq + 1, dot - eq - 1), marker = text.substr(dot + 1);
  std::vector<std::string> bodies;
  for (const Body& b : model.bodies()) bodies.push_back(b.name);
  const auto b = std::find(bodies.begin(), bodies.end(), body);
  if (b == bodies.end())
    return "no moving body '" + body + "'" + (body == "ground" ? std::string(" (ground does not move)") : didYouMean(body, bodies));
  out.body = static_cast<BodyIndex>(b - bodies.begin());
  const Body& found = model.bodies()[static_cast<std::size_t>(out.body)];
  const auto m = std::find(found.marker_names.begin(), found.marker_names.end(), marker);
  if (m == found.marker_names.end())
    return "body '" + body + "' has no marker '" + marker + "'" + didYouMean(marker, found.marker_names);
  out.position = found.markers[static_cast<std::size_t>(m - found.marker_names.begin())].position;
  return {};
}

std::vector<TrackedPoint> resolvePoints(const Model& model, const std::vector<std::string>& texts) {
  std::vector<TrackedPoint> points(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i)
    if (const std::string problem = resolvePoint(model, texts[i], points[i]); !problem.empty())
      throw InvalidArgument("points: '" + texts[i] + "': " + problem);
  return points;
}

void SampleColumns::fill(const Model& model, const Sample& sample, std::vector<double>& row) const {
  row.resize(names_.size());
  std::size_t k = 0;
  row[k++] = sample.x.t;
  for (int b = 0; b < model.nb() && options_.bodies; ++b) {
    for (int i = 0; i < model.qPerBody(); ++i) row[k++] = sample.x.q(b * model.qPerBody() + i);
    for (int i = 0; i < model.vPerBody(); ++i) row[k++] = sample.x.v(b * model.vPerBody() + i);
  }
  if (options_.energy) {
    row[k++] = sample.kinetic;
    row[k++] = sample.potential;
    row[k++] = sample.work;
    row[k++] = sample.kinetic + sample.potential - sample.work;
  }
  if (options_.violation) {
    row[k++] = sample.position_violation;
    row[k++] = sample.velocity_violation;
  }
  const int d = model.dimension();
  for (const TrackedPoint& p : options_.points) {
    const BodyMotion m = bodyMotion(model, sample.x.q, sample.x.v, p.body);
    const Vec3 arm = m.R * p.position;
    const Vec3 position = m.r + arm, velocity = m.v + m.w.cross(arm);
    for (int i = 0; i < d; ++i) row[k++] = position(i);
    for (int i = 0; i < d; ++i) row[k++] = velocity(i);
  }
  LOOPDYN_CHECK(sample.generalized_velocities.size() >= options_.generalized_velocities,
                "the sample has fewer generalized velocities than the columns");
  for (int i = 0; i < options_.generalized_velocities; ++i) row[k++] = sample.generalized_velocities(i);
  LOOPDYN_CHECK(sample.x.q_r.size() >= joint_q_ && sample.x.v_r.size() >= joint_v_,
                "the sample has no joint coordinates (not a relative-coordinate run)");
  for (int i = 0; i < joint_q_; ++i) row[k++] = sample.x.q_r(i);
  for (int i = 0; i < joint_v_; ++i) row[k++] = sample.x.v_r(i);
  if (!joints_.empty()) k = fillJoints(model, sample, row, k);
  fillReactionsAndEfforts(model, sample, row, k);
}

std::size_t SampleColumns::fillJoints(const Model& model, const Sample& sample, std::vector<double>& row,
                                      std::size_t k) const {
  // every joint's relative pose X_12 and twist [pdot; omega] in frame-1 axes (joint_models.hpp)
  std::size_t kq = k, kv = k + static_cast<std::size_t>(all_joint_q_);
  Scalar v[6];
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    const Joint& joint = model.joints()[static_cast<std::size_t>(joints_[j])];
    const JointModel& jm = joint_models_[j];
    const BodyMotion m1 = joint.first.body == kGround ? BodyMotion{} : bodyMotion(model, sample.x.q, sample.x.v, joint.first.body);
    const BodyMotion m2 = joint.second.body == kGround ? BodyMotion{} : bodyMotion(model, sample.x.q, sample.x.v, joint.second.body);
    const Mat3 R1 = m1.R * joint.first.orientation, R2 = m2.R * joint.second.orientation;
    const Vec3 a1 = m1.R * joint.first.position, a2 = m2.R * joint.second.position;
    const Vec3 o1 = m1.r + a1, o2 = m2.r + a2;
    RelativePose X;
    X.R = R1.transpose() * R2;
    X.p = R1.transpose() * (o2 - o1);
    Vec6 twist;
    twist.head<3>() = R1.transpose() * ((m2.v + m2.w.cross(a2)) - (m1.v + m1.w.cross(a1)) - m1.w.cross(o2 - o1));
    twist.tail<3>() = R1.transpose() * (m2.w - m1.w);
    VecX& last = joint_q_last_[j];
    if (last.size() == 0) {
      // first row: 2D angles from the bodies' unwrapped angles (whole turns kept)
      last = VecX::Zero(jm.nq());
      if (const int a = jm.planarAngleIndex(); a >= 0 && model.dimension() == 2)
        last(a) = m2.phi + joint.second.angle - m1.phi - joint.first.angle;
      else
        last.resize(0);
    }
    Scalar* q = row.data() + kq;
    jm.coordinates(X, q, last.size() > 0 ? last.data() : nullptr);
    last = Eigen::Map<const VecX>(q, jm.nq());
    jm.velocities(q, twist, v);
    for (int i = 0; i < jm.nv(); ++i) row[kv + static_cast<std::size_t>(i)] = v[i];
    kq += static_cast<std::size_t>(jm.nq());
    kv += static_cast<std::size_t>(jm.nv());
  }
  return kv;
}

void SampleColumns::fillReactionsAndEfforts(const Model& model, const Sample& sample, std::vector<double>& row,
                                            std::size_t k) const {
  const std::span<const int> components = wrenchComponents(model.dimension());
  LOOPDYN_CHECK(sides_.empty() || sample.reactions.size() == model.pairs().size(),
                "the sample has no reactions (SimulationOptions::multipliers off)");
  for (const ReactionSide& side : sides_) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(side.pair)];
    const PairReaction& reaction = sample.reactions[static_cast<std::size_t>(side.pair)];
    const Vec6& wrench = side.body == pair.body1 ? reaction.on_body1 : reaction.on_body2;
    if (options_.world_reactions)
      for (int c : components) row[k++] = wrench(c);
    if (options_.joint_reactions) {
      const Vec6 local = reaction.inJointAxes(wrench);
      for (int c : components) row[k++] = local(c);
    }
  }
  for (int r : driver_rows_) row[k++] = -sample.lambda(r);
  if (force_columns_) {
    motion_.resize(static_cast<std::size_t>(model.nb()));
    for (BodyIndex b = 0; b < model.nb(); ++b) motion_[static_cast<std::size_t>(b)] = bodyMotion(model, sample.x.q, sample.x.v, b);
    for (const Force& force : model.forces()) {
      const ForceEffort e = forceEffort(model, motion_, sample.x.t, force);
      if (force.spec.type != ForceType::BodyLoad) {
        row[k++] = e.value;
        continue;
      }
      Vec6 wrench;
      wrench << e.force, e.torque;
      for (const int c : components) row[k++] = wrench(c);
    }
  }
}

}  // namespace loopdyn
