#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "loopdyn/common/spelling.hpp"
#include "loopdyn/model/model.hpp"
#include "loopdyn/model/topology_builder.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {

namespace {

/// Collects every problem of a spec before throwing (a user fixes them all in one pass).
class Checker {
 public:
  template <typename... Args>
  void error(const SourceLocation& where, const Args&... args) {
    diagnostics_.push_back({where, detail::concat(args...)});
  }
  void throwIfAny() const {
    if (!diagnostics_.empty()) throw ModelError(diagnostics_);
  }

 private:
  std::vector<Diagnostic> diagnostics_;
};

struct BodyTable {
  std::map<std::string, BodyIndex> index;  // "ground" -> kGround
  std::vector<std::string> names;          // for "did you mean"
};

bool isRotation(const Mat3& R) {
  return (R.transpose() * R - Mat3::Identity()).norm() < 1e-9 && R.determinant() > 0;
}

}  // namespace

std::string massProblem(Scalar mass) {
  if (mass > 0 && std::isfinite(mass)) return {};
  return detail::concat("mass must be positive, got ", mass);
}

std::string inertiaProblem(const Mat3& inertia, int dimension) {
  if (dimension == 2)
    return inertia(2, 2) > 0 ? std::string() : detail::concat("inertia must be positive, got ", inertia(2, 2));
  const bool symmetric = (inertia - inertia.transpose()).norm() <= 1e-12 * inertia.norm();
  const bool positive = Eigen::LLT<Mat3>(inertia).info() == Eigen::Success;
  return symmetric && positive ? std::string() : "inertia tensor must be symmetric positive-definite";
}

namespace {

void checkBodies(const ModelSpec& spec, Checker& check, BodyTable& table) {
  table.index["ground"] = kGround;
  table.names.push_back("ground");
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    const BodySpec& body = spec.bodies[b];
    if (body.name.empty()) {
      check.error(body.where, "body has no name");
    } else if (table.index.count(body.name) != 0) {
      check.error(body.where, body.name == "ground" ? "body name 'ground' is reserved for the fixed frame"
                                                    : "duplicate body name '" + body.name + "'");
    } else {
      table.index[body.name] = static_cast<BodyIndex>(b);
      table.names.push_back(body.name);
    }
    for (const std::string& problem : {massProblem(body.mass), inertiaProblem(body.inertia, spec.dimension)})
      if (!problem.empty()) check.error(body.where, "body '", body.name, "': ", problem);
    if (!isRotation(body.orientation))
      check.error(body.where, "body '", body.name, "': orientation is not a rotation matrix");
    std::set<std::string> seen;
    for (const MarkerSpec& marker : body.markers) {
      if (!seen.insert(marker.name).second)
        check.error(marker.where, "body '", body.name, "' has two markers named '", marker.name, "'");
      if (!isRotation(marker.orientation))
        check.error(marker.where, "marker '", marker.name, "': orientation is not a rotation matrix");
    }
  }
  std::set<std::string> seen;
  for (const MarkerSpec& marker : spec.ground_markers)
    if (!seen.insert(marker.name).second)
      check.error(marker.where, "ground has two markers named '", marker.name, "'");
}

/// Largest magnitude for products of the model's numbers (an energy m g L, a spring's k L^2): far
/// beyond any mechanism, and below the range where squares of them overflow a double.
constexpr Scalar kLargestScale = 1e150;
/// A mass, or a radius of gyration relative to the body's size, below this fraction of the
/// model's is numerical nonsense (the equations of motion would divide by it).
constexpr Scalar kSmallestFraction = 1e-12;

/// Positions farther from the origin than this many model sizes are resolved only to 2e-10 of the
/// size by a double (assembly's rounding floor, positionResidualFloor); beyond it the mechanism
/// cannot be assembled or simulated to any useful accuracy.
constexpr Scalar kFarthestPosition = 1e6;

/// Masses and inertias out of all proportion to the model's, and gravity or stiffness whose
/// energies overflow: each a plain model error (nothing downstream can make sense of them).
void checkPhysicalScales(const ModelSpec& spec, Checker& check) {
  Scalar largest_mass = 0, size = 0;
  for (const BodySpec& body : spec.bodies) {
    if (std::isfinite(body.mass)) largest_mass = std::max(largest_mass, body.mass);
    for (const MarkerSpec& m : body.markers) size = std::max(size, m.position.norm());
  }
  if (!(size > 0)) size = spec.characteristic_length > 0 ? spec.characteristic_length : 1;
  for (const BodySpec& body : spec.bodies) {
    if (!(body.mass > 0) || !std::isfinite(body.mass)) continue;  // reported by checkBodies
    if (body.mass < kSmallestFraction * largest_mass)
      check.error(body.where, "body '", body.name, "': mass ", body.mass, " is below ", kSmallestFraction,
                  " of the model's largest (", largest_mass, ")");
    // the smallest principal moment against m (1e-6 size)^2: a radius of gyration below 1e-6 size
    const Vec3 moments = spec.dimension == 2 ? Vec3::Constant(body.inertia(2, 2))
                                             : Vec3(Eigen::SelfAdjointEigenSolver<Mat3>(body.inertia).eigenvalues());
    const Scalar smallest = moments.minCoeff(), largest = moments.maxCoeff();
    if (smallest > 0 && smallest < kSmallestFraction * body.mass * size * size)
      check.error(body.where, "body '", body.name, "': inertia ", smallest, " is below ", kSmallestFraction,
                  " of its mass times the model's size squared (", body.mass * size * size, ")");
    // ... and a radius of gyration beyond 1e6 sizes, or an inertia no mass of the model can carry:
    // the mass matrix is then indefinite in doubles (the fuzzer's inertia 2.2e31 among bodies of
    // 1 kg and 0.2 m: the joint-space one failed its Cholesky factorisation)
    if (std::isfinite(largest) && largest * kSmallestFraction > largest_mass * size * size)
      check.error(body.where, "body '", body.name, "': inertia ", largest, " is beyond ", 1 / kSmallestFraction,
                  " times the model's largest mass times its size squared (", largest_mass * size * size, ")");
    const Scalar g = spec.gravity.cwiseAbs().maxCoeff();  // (its norm may overflow)
    if (body.mass * g * size > kLargestScale)
      check.error(spec.gravity_where.known() ? spec.gravity_where : spec.where, "gravity ", g, " m/s^2 on body '",
                  body.name, "' gives energies beyond ", kLargestScale, " J");
  }
  auto checkPosition = [&](const Vec3& position, const SourceLocation& where, const std::string& what) {
    const Scalar far = position.cwiseAbs().maxCoeff();
    if (std::isfinite(far) && far > kFarthestPosition * size)
      check.error(where, what, ": position ", far, " m from the origin is beyond ", kFarthestPosition,
                  " times the mechanism's size (", size, " m), where a double resolves it to ",
                  far * std::numeric_limits<Scalar>::epsilon(), " m only; move the origin nearer");
  };
  for (const BodySpec& body : spec.bodies) checkPosition(body.position, body.where, "body '" + body.name + "'");
  for (const MarkerSpec& m : spec.ground_markers) checkPosition(m.position, m.where, "ground marker '" + m.name + "'");
  // profiles: values, rates or accelerations that overflow the equations (a sine of 1e308 Hz)
  auto checkProfile = [&](const Profile& profile, const SourceLocation& where, const std::string& what) {
    const Scalar magnitude = profile.magnitude();
    if (!(magnitude <= kLargestScale))
      check.error(where, what, ": its profile (value, rate or acceleration) reaches ", magnitude, ", beyond ",
                  kLargestScale);
  };
  for (const DriverSpec& d : spec.drivers) checkProfile(d.profile, d.where, "driver '" + d.name + "'");
  for (const ForceSpec& f : spec.forces)
    if (f.type != ForceType::SpringDamper) checkProfile(f.profile, f.where, "force '" + f.name + "'");
  for (const JointSpec& j : spec.joints)
    if (j.type == JointType::Distance && std::isfinite(j.length) && j.length > kFarthestPosition * size)
      check.error(j.where, "distance joint '", j.name, "': length ", j.length, " m is beyond ", kFarthestPosition,
                  " times the mechanism's size (", size, " m)");
  for (const ForceSpec& f : spec.forces)
    if (f.type == ForceType::SpringDamper && (f.stiffness * size * size > kLargestScale || f.damping * size > kLargestScale))
      check.error(f.where, "spring-damper '", f.name, "': stiffness or damping gives forces beyond ", kLargestScale);
}

/// Resolves "body.marker"; reports unknown names with a spelling hint.
std::optional<MarkerFrame> resolve(const ModelSpec& spec, const BodyTable& table, const MarkerRef& ref,
                                   Checker& check) {
  const auto it = table.index.find(ref.body);
  if (it == table.index.end()) {
    check.error(ref.where, "unknown body '", ref.body, "'", didYouMean(ref.body, table.names));
    return std::nullopt;
  }
  const std::vector<MarkerSpec>& markers =
      it->second == kGround ? spec.ground_markers : spec.bodies[static_cast<std::size_t>(it->second)].markers;
  std::vector<std::string> names;
  for (const MarkerSpec& m : markers) {
    if (m.name == ref.marker) return MarkerFrame{it->second, m.position, m.orientation, planarAngleNear(m.orientation, m.angle)};
    names.push_back(m.name);
  }
  check.error(ref.where, "unknown marker '", ref.marker, "' on body '", ref.body, "'", didYouMean(ref.marker, names));
  return std::nullopt;
}

/// The model's ConstraintScaling (model.hpp): angular rows times L, rotational columns over L.
ConstraintScaling constraintScaling(const Model& model) {
  const Scalar L = model.characteristicLength();
  ConstraintScaling s{VecX::Ones(model.nc()), VecX::Ones(model.nv())};
  for (int r = 0; r < model.nc(); ++r)
    if (model.equations()[static_cast<std::size_t>(r)].kind == EquationKind::Angular) s.row(r) = L;
  const int nvb = model.vPerBody();
  const int first_rotational = model.dimension() == 2 ? 2 : 3;
  for (int b = 0; b < model.nb(); ++b)
    for (int k = first_rotational; k < nvb; ++k) s.col(b * nvb + k) = 1 / L;
  return s;
}

/// Root-mean-square distance of the markers used by pairs from their body origins (lever arms).
Scalar characteristicLength(const ModelSpec& spec, const Model& model) {
  if (spec.characteristic_length > 0) return spec.characteristic_length;
  Scalar sum = 0;
  int count = 0;
  auto add = [&](const MarkerFrame& f) {
    if (f.body == kGround) return;
    const Scalar r = spec.dimension == 2 ? f.position.head<2>().norm() : f.position.norm();
    if (r > 0) {
      sum += r * r;
      ++count;
    }
  };
  for (const Joint& j : model.joints()) {
    add(j.first);
    add(j.second);
  }
  for (const Driver& d : model.drivers()) {
    add(d.first);
    add(d.second);
  }
  return count > 0 ? std::sqrt(sum / count) : Scalar{1};
}

}  // namespace

namespace detail {

/// compile()'s stages over the spec and the model they fill: the pairs (joints, drivers, forces)
/// checked and resolved, the bodies, the rows, the groups, the topology, the initial state.
class ModelCompiler {
 public:
  explicit ModelCompiler(const ModelSpec& spec) : spec_(spec) {}
  Model run();

 private:
  void claimName(const std::string& name, const SourceLocation& where, const char* what);
  void addJoints();
  void addDrivers();
  void addDriverOfJoint(const DriverSpec& ds, Driver& driver);
  void addForces();
  void addBodies();
  int addPair(const std::string& name, const std::string& type, int rows, bool nonholonomic, const MarkerFrame& first,
              BodyIndex b2);
  void addEquations(int pair, JointType type);
  void numberRows();
  void addGroupsAndTopology();
  void setInitialState();

  const ModelSpec& spec_;
  Checker check_;
  Model model_;
  BodyTable table_;
  std::set<std::string> pair_names_;  ///< joints, drivers and forces share one namespace: every row name is unique
  std::vector<std::string> joint_names_;
  int row_ = 0;
};

Model ModelCompiler::run() {
  model_.name_ = spec_.name;
  model_.description_ = spec_.description;
  model_.dimension_ = spec_.dimension;
  model_.gravity_ = spec_.gravity;
  model_.units_ = spec_.units;
  for (const Diagnostic& w : spec_.warnings) model_.warnings_.push_back(w.str("warning"));
  if (spec_.dimension != 2 && spec_.dimension != 3) {
    check_.error(spec_.where, "dimension must be 2 or 3, got ", spec_.dimension);
    check_.throwIfAny();
  }
  if (spec_.bodies.empty()) check_.error(spec_.where, "the model has no moving bodies");
  checkBodies(spec_, check_, table_);
  checkPhysicalScales(spec_, check_);
  addJoints();
  addDrivers();
  addForces();
  check_.throwIfAny();
  addBodies();
  numberRows();
  addGroupsAndTopology();
  check_.throwIfAny();
  setInitialState();
  return std::move(model_);
}

void ModelCompiler::claimName(const std::string& name, const SourceLocation& where, const char* what) {
  if (name.empty()) {
    check_.error(where, what, " has no name");
  } else if (!pair_names_.insert(name).second) {
    check_.error(where, "duplicate name '", name, "' (joint, driver and force names must be unique)");
  }
}

void ModelCompiler::addJoints() {
  for (const JointSpec& js : spec_.joints) {
    claimName(js.name, js.where, "joint");
    joint_names_.push_back(js.name);
    if (!jointTypeAllowed(js.type, spec_.dimension))
      check_.error(js.where, "joint '", js.name, "': type '", jointTypeName(js.type), "' is not available in ",
                   spec_.dimension, "D");
    Joint joint;
    joint.name = js.name;
    joint.type = js.type;
    joint.length = js.length;
    joint.where = js.where;
    const auto first = resolve(spec_, table_, js.first, check_);
    if (first) joint.first = *first;
    if (js.type == JointType::KnifeEdge) {
      if (first && first->body == kGround)
        check_.error(js.where, "knife edge '", js.name, "' must be on a moving body, not on ground");
    } else {
      const auto second = resolve(spec_, table_, js.second, check_);
      if (second) joint.second = *second;
      if (first && second && first->body == second->body)
        check_.error(js.where, "joint '", js.name, "' connects body '", js.first.body, "' to itself");
    }
    if (js.type == JointType::Distance && !(js.length > 0))
      check_.error(js.where, "distance joint '", js.name, "': length must be positive, got ", js.length);
    model_.joints_.push_back(std::move(joint));
  }
}

void ModelCompiler::addDrivers() {
  for (const DriverSpec& ds : spec_.drivers) {
    claimName(ds.name, ds.where, "driver");
    Driver driver;
    driver.name = ds.name;
    driver.target = ds.target;
    driver.profile = ds.profile;
    driver.where = ds.where;
    if (ds.target == DriverTarget::Distance) {
      const auto first = resolve(spec_, table_, ds.first, check_);
      const auto second = resolve(spec_, table_, ds.second, check_);
      if (first) driver.first = *first;
      if (second) driver.second = *second;
      if (first && second && first->body == second->body)
        check_.error(ds.where, "driver '", ds.name, "' measures a distance within one body");
      if (!(ds.profile.lowestValue() > 0))
        check_.error(ds.where, "driver '", ds.name, "' prescribes a distance down to ", ds.profile.lowestValue(),
                     ": a distance driver must stay positive (at zero length its direction is undefined; hold two "
                     "points together with a revolute or spherical joint)");
    } else {
      addDriverOfJoint(ds, driver);
    }
    model_.drivers_.push_back(std::move(driver));
  }
}

/// A driver of a joint's rotation or translation: the joint named, and the coordinate it has.
void ModelCompiler::addDriverOfJoint(const DriverSpec& ds, Driver& driver) {
  for (std::size_t j = 0; j < spec_.joints.size(); ++j)
    if (spec_.joints[j].name == ds.joint) driver.joint = static_cast<int>(j);
  if (driver.joint < 0) {
    check_.error(ds.where, "driver '", ds.name, "' names unknown joint '", ds.joint, "'",
                 didYouMean(ds.joint, joint_names_));
    return;
  }
  const JointType type = spec_.joints[static_cast<std::size_t>(driver.joint)].type;
  const bool ok = ds.target == DriverTarget::JointRotation ? jointHasRotationCoordinate(type)
                                                           : jointHasTranslationCoordinate(type);
  if (!ok)
    check_.error(ds.where, "driver '", ds.name, "': a ", jointTypeName(type), " joint has no ",
                 ds.target == DriverTarget::JointRotation ? "rotation" : "translation", " coordinate");
  driver.first = model_.joints_[static_cast<std::size_t>(driver.joint)].first;
  driver.second = model_.joints_[static_cast<std::size_t>(driver.joint)].second;
}

void ModelCompiler::addForces() {
  for (const ForceSpec& fs : spec_.forces) {
    claimName(fs.name, fs.where, "force");
    Force force;
    force.spec = fs;
    if (fs.type == ForceType::JointEffort) {
      for (std::size_t j = 0; j < spec_.joints.size(); ++j)
        if (spec_.joints[j].name == fs.joint) force.joint = static_cast<int>(j);
      if (force.joint < 0) {
        check_.error(fs.where, "force '", fs.name, "' names unknown joint '", fs.joint, "'",
                     didYouMean(fs.joint, joint_names_));
      } else {
        const JointType type = spec_.joints[static_cast<std::size_t>(force.joint)].type;
        if (!jointHasRotationCoordinate(type) && !jointHasTranslationCoordinate(type))
          check_.error(fs.where, "force '", fs.name, "': a ", jointTypeName(type), " joint takes no effort");
      }
    } else {
      if (const auto first = resolve(spec_, table_, fs.first, check_)) force.first = *first;
      if (fs.type == ForceType::SpringDamper) {
        if (const auto second = resolve(spec_, table_, fs.second, check_)) force.second = *second;
        if (fs.stiffness < 0 || fs.damping < 0 || fs.free_length < 0)
          check_.error(fs.where, "spring-damper '", fs.name,
                       "': stiffness, damping and free_length must not be negative");
      }
    }
    model_.forces_.push_back(std::move(force));
  }
}

void ModelCompiler::addBodies() {
  for (const BodySpec& bs : spec_.bodies) {
    Body body;
    body.name = bs.name;
    body.mass = bs.mass;
    body.inertia = bs.inertia;
    if (spec_.dimension == 2)
      body.inertia_inverse(2, 2) = 1 / bs.inertia(2, 2);
    else
      body.inertia_inverse = bs.inertia.inverse();
    body.where = bs.where;
    for (const MarkerSpec& ms : bs.markers) {
      body.marker_names.push_back(ms.name);
      body.markers.push_back({static_cast<BodyIndex>(model_.bodies_.size()), ms.position, ms.orientation,
                              planarAngleNear(ms.orientation, ms.angle)});
    }
    model_.bodies_.push_back(std::move(body));
  }
}

int ModelCompiler::addPair(const std::string& name, const std::string& type, int rows, bool nonholonomic,
                           const MarkerFrame& first, BodyIndex b2) {
  model_.pairs_.push_back({name, type, row_, rows, nonholonomic, first.body, b2, first});
  row_ += rows;
  return static_cast<int>(model_.pairs_.size()) - 1;
}

void ModelCompiler::addEquations(int pair, JointType type) {
  for (const EquationSlot& slot : equationSlots(type, spec_.dimension)) {
    const std::string& owner = model_.pairs_[static_cast<std::size_t>(pair)].name;
    model_.equations_.push_back({slot.suffix.empty() ? owner : owner + "." + std::string(slot.suffix), pair, slot.kind});
  }
}

/// Rows: holonomic joints, then drivers, then nonholonomic pairs (paper 001, eq. 5).
void ModelCompiler::numberRows() {
  for (bool nonholonomic_pass : {false, true}) {
    for (Joint& joint : model_.joints_) {
      if (isNonholonomic(joint.type) != nonholonomic_pass) continue;
      joint.row = row_;
      joint.rows = static_cast<int>(equationSlots(joint.type, spec_.dimension).size());
      const int pair = addPair(joint.name, std::string(jointTypeName(joint.type)), joint.rows, nonholonomic_pass,
                               joint.first, joint.second.body);
      model_.pairs_[static_cast<std::size_t>(pair)].joint = static_cast<int>(&joint - model_.joints_.data());
      addEquations(pair, joint.type);
    }
    if (nonholonomic_pass) break;
    model_.m_ = row_;  // joints so far; drivers follow
    for (Driver& driver : model_.drivers_) {
      driver.row = row_;
      const int pair = addPair(driver.name, "driver", 1, false, driver.first, driver.second.body);
      model_.pairs_[static_cast<std::size_t>(pair)].driver = static_cast<int>(&driver - model_.drivers_.data());
      const EquationKind kind =
          driver.target == DriverTarget::JointRotation ? EquationKind::Angular : EquationKind::Translational;
      model_.equations_.push_back({driver.name, pair, kind});
    }
    model_.m_ = row_;
  }
  model_.h_ = row_ - model_.m_;
  model_.characteristic_length_ = characteristicLength(spec_, model_);
  model_.scaling_ = constraintScaling(model_);
}

/// The groups, resolved against the pairs just numbered; the spanning tree and the assembly tree,
/// with the model's cut requests.
void ModelCompiler::addGroupsAndTopology() {
  std::set<std::string> group_names;
  for (const GroupSpec& gs : spec_.groups) {
    if (!group_names.insert(gs.name).second) check_.error(gs.where, "duplicate group name '", gs.name, "'");
    Group group;
    for (const std::string& problem : resolveGroup(model_, gs, group)) check_.error(gs.where, problem);
    model_.groups_.push_back(std::move(group));
  }
  std::vector<TopologyJoint> graph;
  for (std::size_t j = 0; j < spec_.joints.size(); ++j)
    graph.push_back({model_.joints_[j].type, model_.joints_[j].first.body,
                     model_.joints_[j].type == JointType::KnifeEdge ? kGround : model_.joints_[j].second.body,
                     spec_.joints[j].cut});
  std::vector<std::string> names;
  for (const BodySpec& bs : spec_.bodies) names.push_back(bs.name);
  std::vector<TopologyProblem> problems;
  model_.topology_ = buildTopology(static_cast<int>(spec_.bodies.size()), spec_.dimension, graph, names, problems);
  for (const TopologyProblem& p : problems) {
    const JointSpec& js = spec_.joints[static_cast<std::size_t>(p.joint)];
    check_.error(js.where, "joint '", js.name, "': ", p.message);
  }
}

/// The initial state as written (approximate; kinematics/assembly makes it consistent).
void ModelCompiler::setInitialState() {
  const int nb = model_.nb();
  model_.initial_q_ = VecX::Zero(model_.nq());
  model_.initial_v_ = VecX::Zero(model_.nv());
  model_.prescribed_v_.assign(static_cast<std::size_t>(model_.nv()), false);
  model_.held_.assign(static_cast<std::size_t>(nb), false);
  const int linear = spec_.dimension == 2 ? 2 : 3, angular = spec_.dimension == 2 ? 1 : 3;
  for (int b = 0; b < nb; ++b) {
    const BodySpec& bs = spec_.bodies[static_cast<std::size_t>(b)];
    const int qo = b * model_.qPerBody(), vo = b * model_.vPerBody();
    model_.held_[static_cast<std::size_t>(b)] = bs.hold;
    auto prescribe = [&](int offset, int count) {
      for (int k = 0; k < count; ++k) model_.prescribed_v_[static_cast<std::size_t>(vo + offset + k)] = true;
    };
    if (spec_.dimension == 2) {
      model_.initial_q_.segment<2>(qo) = bs.position.head<2>();
      model_.initial_q_(qo + 2) = planarAngleNear(bs.orientation, bs.angle);
      if (bs.linear_velocity) model_.initial_v_.segment<2>(vo) = bs.linear_velocity->head<2>();
      if (bs.angular_velocity) model_.initial_v_(vo + 2) = bs.angular_velocity->z();
    } else {
      model_.initial_q_.segment<3>(qo) = bs.position;
      const Quat quat(bs.orientation);
      model_.initial_q_.segment<4>(qo + 3) << quat.w(), quat.x(), quat.y(), quat.z();
      if (bs.linear_velocity) model_.initial_v_.segment<3>(vo) = *bs.linear_velocity;
      if (bs.angular_velocity) model_.initial_v_.segment<3>(vo + 3) = *bs.angular_velocity;
    }
    if (bs.linear_velocity) prescribe(0, linear);
    if (bs.angular_velocity) prescribe(linear, angular);
  }
}

}  // namespace detail

Model compile(const ModelSpec& spec) {
  return detail::ModelCompiler(spec).run();
}
}  // namespace loopdyn
