#include "test_models.hpp"

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/spatial/rotation.hpp"

#include <numbers>

namespace loopdyn::test {

std::string modelPath(const std::string& name) { return std::string(LOOPDYN_MODELS_DIR) + "/" + name + ".yaml"; }

Model loadModel(const std::string& name) { return compile(io::readModelFile(modelPath(name))); }

namespace {

/// "b3" from ("b", 3). (Written out because GCC 12 warns falsely (-Wrestrict) on
/// "literal" + std::to_string(...) once inlined.)
std::string numbered(const char* prefix, std::size_t k) {
  std::string out = prefix;
  out += std::to_string(k);
  return out;
}

Vec3 randomVec(std::mt19937& rng, Scalar scale) {
  std::uniform_real_distribution<Scalar> u(-scale, scale);
  return Vec3(u(rng), u(rng), u(rng));
}

Mat3 randomRotation(std::mt19937& rng, int dimension) {
  std::uniform_real_distribution<Scalar> u(-3, 3);
  if (dimension == 2) return rotationZ(u(rng));
  return rotationZXZ(u(rng), u(rng), u(rng));
}

MarkerSpec randomMarker(const std::string& name, int dimension, std::mt19937& rng) {
  MarkerSpec m;
  m.name = name;
  m.position = randomVec(rng, 0.7);
  if (dimension == 2) m.position.z() = 0;
  m.orientation = randomRotation(rng, dimension);
  return m;
}

}  // namespace

ModelSpec everyPairTypeSpec(int dimension, std::mt19937& rng) {
  ModelSpec spec;
  spec.name = "every_pair_type";
  spec.dimension = dimension;
  const std::vector<JointType> types = {JointType::Revolute,  JointType::Prismatic, JointType::Cylindrical,
                                        JointType::Universal, JointType::Spherical, JointType::Planar,
                                        JointType::Fixed,     JointType::Distance,  JointType::KnifeEdge};
  for (int b = 0; b < 3; ++b) {
    BodySpec body;
    body.name = numbered("b", b);
    body.mass = 1;
    body.inertia = Mat3::Identity();
    for (int k = 0; k < 4; ++k) body.markers.push_back(randomMarker(numbered("m", k), dimension, rng));
    spec.bodies.push_back(body);
  }
  spec.ground_markers.push_back(randomMarker("g", dimension, rng));
  int count = 0;
  for (JointType type : types) {
    if (!jointTypeAllowed(type, dimension)) continue;
    // alternate between body-body and ground-body pairs so both paths are exercised
    JointSpec j;
    j.name = numbered("j", count);
    j.type = type;
    const bool to_ground = count % 3 == 2;
    j.first = to_ground ? MarkerRef{"ground", "g", {}} : MarkerRef{numbered("b", count % 3), "m1", {}};
    j.second = MarkerRef{numbered("b", (count + 1) % 3), "m2", {}};
    if (type == JointType::KnifeEdge) j.first = MarkerRef{"b1", "m3", {}};
    j.length = 0.8;
    spec.joints.push_back(j);
    ++count;
  }
  // drivers on a rotation, a translation and a distance, with profiles that vary in time
  auto addDriver = [&](const std::string& joint, DriverTarget target, Profile profile) {
    DriverSpec d;
    d.name = numbered("drive_", spec.drivers.size());
    d.target = target;
    d.joint = joint;
    d.profile = std::move(profile);
    d.first = MarkerRef{"b0", "m0", {}};
    d.second = MarkerRef{"b2", "m3", {}};
    spec.drivers.push_back(d);
  };
  addDriver("j0", DriverTarget::JointRotation, Profile::sine(0.1, 0.7, 0.3, 0.2));
  addDriver("j1", DriverTarget::JointTranslation, Profile::polynomial({0.1, -0.3, 0.25, 0.05}));
  addDriver("", DriverTarget::Distance, Profile::table({0, 0.5, 1, 2}, {1, 1.2, 0.9, 1.1}));
  if (dimension == 3) addDriver("j2", DriverTarget::JointRotation, Profile::sine(0, 0.3, 0.5, 0));
  return spec;
}

namespace {

/// Adds a joint of `type` between bodies b1 and b2 (-1: ground) at world point P with world frame
/// R, choosing marker poses on both bodies so that the joint equations hold exactly.
void addJointAt(ModelSpec& spec, const std::string& name, JointType type, int b1, int b2, const Vec3& P,
                const Mat3& R, std::mt19937& rng) {
  std::uniform_real_distribution<Scalar> u(-1, 1);
  const int d = spec.dimension;
  // the second marker: along the axis where the joint allows it, turned where it allows it
  Vec3 P2 = P;
  Mat3 R2 = R;
  switch (type) {
    case JointType::Revolute:
    case JointType::Spherical: R2 = R * rotationZ(3 * u(rng)); break;
    case JointType::Cylindrical: R2 = R * rotationZ(3 * u(rng)); P2 = P + u(rng) * R.col(2); break;
    case JointType::Prismatic: P2 = P + u(rng) * (d == 2 ? R.col(0) : R.col(2)); break;
    case JointType::Planar: R2 = R * rotationZ(3 * u(rng)); P2 = P + u(rng) * R.col(0) + u(rng) * R.col(1); break;
    case JointType::Universal: R2 = R * rotationAxisAngle(Vec3::UnitX(), std::numbers::pi / 2) * rotationZ(3 * u(rng)); break;
    case JointType::Distance: P2 = P + Vec3(u(rng), u(rng), d == 2 ? 0 : u(rng)); break;
    default: break;
  }
  auto marker = [&](int b, const Vec3& point, const Mat3& frame) {
    MarkerSpec m;
    m.name = name + (b == b1 ? "_1" : "_2");
    if (b < 0) {
      m.position = point;
      m.orientation = frame;
      spec.ground_markers.push_back(m);
      return MarkerRef{"ground", m.name, {}};
    }
    BodySpec& body = spec.bodies[static_cast<std::size_t>(b)];
    m.position = body.orientation.transpose() * (point - body.position);
    m.orientation = body.orientation.transpose() * frame;
    body.markers.push_back(m);
    return MarkerRef{body.name, m.name, {}};
  };
  JointSpec j;
  j.name = name;
  j.type = type;
  j.first = marker(b1, P, R);
  if (type != JointType::KnifeEdge) j.second = marker(b2, P2, R2);
  j.length = (P2 - P).norm();
  spec.joints.push_back(j);
}

}  // namespace

ModelSpec randomMechanismSpec(int dimension, std::mt19937& rng, const RandomMechanismOptions& options) {
  std::uniform_real_distribution<Scalar> u(-1, 1);
  ModelSpec spec;
  spec.name = "random_mechanism";
  spec.dimension = dimension;
  for (int b = 0; b < options.bodies; ++b) {
    BodySpec body;
    body.name = numbered("b", b);
    body.mass = 1 + 0.5 * u(rng);
    body.inertia = Mat3::Identity() * (0.2 + 0.1 * u(rng));
    body.position = 2 * randomVec(rng, 1);
    if (dimension == 2) body.position.z() = 0;
    body.orientation = randomRotation(rng, dimension);
    spec.bodies.push_back(body);
  }
  std::vector<JointType> types = options.tree_types;
  if (types.empty()) {
    for (JointType t : {JointType::Revolute, JointType::Prismatic, JointType::Cylindrical, JointType::Universal,
                        JointType::Spherical, JointType::Planar, JointType::Fixed, JointType::Distance})
      if (jointTypeAllowed(t, dimension)) types.push_back(t);
  }
  auto pick = [&](const std::vector<JointType>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
  };
  auto pointNear = [&](int b1, int b2) {
    Vec3 p = Vec3::Zero();
    for (int b : {b1, b2})
      if (b >= 0) p += 0.5 * spec.bodies[static_cast<std::size_t>(b)].position;
    Vec3 jitter = 0.5 * randomVec(rng, 1);
    if (dimension == 2) jitter.z() = 0;
    return Vec3(p + jitter);
  };
  // the tree: body b hangs from an earlier body or from ground
  std::vector<std::size_t> tree_joints;
  for (int b = 0; b < options.bodies; ++b) {
    const int parent = options.serial ? b - 1 : std::uniform_int_distribution<int>(-1, b - 1)(rng);
    tree_joints.push_back(spec.joints.size());
    addJointAt(spec, numbered("t", b), pick(types), parent, b, pointNear(parent, b),
               randomRotation(rng, dimension), rng);
  }
  std::vector<JointType> all = types;
  for (int k = 0; k < options.loop_closures; ++k) {
    const int b1 = std::uniform_int_distribution<int>(-1, options.bodies - 1)(rng);
    int b2 = std::uniform_int_distribution<int>(0, options.bodies - 1)(rng);
    if (b2 == b1) b2 = (b2 + 1) % options.bodies;
    addJointAt(spec, numbered("c", k), pick(all), b1, b2, pointNear(b1, b2), randomRotation(rng, dimension),
               rng);
  }
  // redundant bearings: a copy of a tree joint, both markers moved by the same amount along its axis
  for (int k = 0; k < options.duplicate_joints && !tree_joints.empty(); ++k) {
    JointSpec copy = spec.joints[tree_joints[static_cast<std::size_t>(k) % tree_joints.size()]];
    copy.name = numbered("d", k);
    const bool shiftable = dimension == 3 && (copy.type == JointType::Revolute || copy.type == JointType::Cylindrical ||
                                              copy.type == JointType::Prismatic);
    const Scalar shift = shiftable ? u(rng) : 0;
    for (MarkerRef* ref : {&copy.first, &copy.second}) {
      std::vector<MarkerSpec>& markers = ref->body == "ground"
                                             ? spec.ground_markers
                                             : spec.bodies[static_cast<std::size_t>(std::stoi(ref->body.substr(1)))].markers;
      for (MarkerSpec m : markers) {
        if (m.name != ref->marker) continue;
        // the joint axis (marker z) in this body's frame; the world shift is the same for both
        m.name = copy.name + (ref == &copy.first ? "_1" : "_2");
        m.position += shift * m.orientation.col(2);
        markers.push_back(m);
        ref->marker = m.name;
        break;
      }
    }
    spec.joints.push_back(copy);
  }
  for (int k = 0; k < options.knife_edges && dimension == 2; ++k) {
    const int b = std::uniform_int_distribution<int>(0, options.bodies - 1)(rng);
    addJointAt(spec, numbered("w", k), JointType::KnifeEdge, b, -1, pointNear(b, b), randomRotation(rng, 2),
               rng);
  }
  return spec;
}

ModelSpec fourBarLadderSpec(const LadderOptions& options) {
  ModelSpec spec;
  spec.name = "four_bar_ladder";
  spec.dimension = 2;
  spec.gravity = Vec3(0, -9.81, 0);
  const Scalar inertia = options.exact_inertia ? 1.0 / 12 : 0.08333333333;
  auto rod = [&](const std::string& name, const Vec3& centre, Scalar angle) {
    BodySpec body;
    body.name = name;
    body.mass = 1;
    body.inertia = Mat3::Identity() * inertia;
    body.position = centre;
    body.orientation = rotationZ(angle);
    body.markers.push_back({"a", Vec3(-0.5, 0, 0), Mat3::Identity(), {}});
    body.markers.push_back({"b", Vec3(0.5, 0, 0), Mat3::Identity(), {}});
    return body;
  };
  for (int i = 0; i <= options.loops; ++i) {
    spec.ground_markers.push_back({numbered("o", static_cast<std::size_t>(i)), Vec3(i, 0, 0), Mat3::Identity(), {}});
    BodySpec crank = rod(numbered("crank", static_cast<std::size_t>(i + 1)), Vec3(i, 0.5, 0), std::numbers::pi / 2);
    if (i == 0 || options.body_velocities) {
      crank.linear_velocity = Vec3(0.5, 0, 0);
      crank.angular_velocity = Vec3(0, 0, -1);
    }
    spec.bodies.push_back(crank);
    JointSpec pivot;
    pivot.name = numbered("O", static_cast<std::size_t>(i + 1));
    pivot.first = {"ground", numbered("o", static_cast<std::size_t>(i)), {}};
    pivot.second = {crank.name, "a", {}};
    spec.joints.push_back(pivot);
  }
  for (int i = 0; i < options.loops; ++i) {
    BodySpec coupler = rod(numbered("coupler", static_cast<std::size_t>(i + 1)), Vec3(i + 0.5, 1, 0), 0);
    if (options.body_velocities) {
      coupler.linear_velocity = Vec3(1, 0, 0);
      coupler.angular_velocity = Vec3::Zero();
    }
    spec.bodies.push_back(coupler);
    JointSpec left, right;
    left.name = numbered("L", static_cast<std::size_t>(i + 1));
    left.first = {numbered("crank", static_cast<std::size_t>(i + 1)), "b", {}};
    left.second = {coupler.name, "a", {}};
    right.name = numbered("R", static_cast<std::size_t>(i + 1));
    right.first = {numbered("crank", static_cast<std::size_t>(i + 2)), "b", {}};
    right.second = {coupler.name, "b", {}};
    spec.joints.push_back(left);
    spec.joints.push_back(right);
  }
  return spec;
}

State stateOf(const Model& model) {
  State x = initialState(model);
  x.v.setZero();
  return x;
}

State assembledInitialState(const Model& model) {
  KinematicsWorkspace kin(model);
  return assemble(model, kin, initialState(model)).state;
}

State randomState(const Model& model, std::mt19937& rng) {
  std::uniform_real_distribution<Scalar> u(-1, 1);
  State x{0.37, VecX(model.nq()), VecX(model.nv()), {}, {}};
  for (Eigen::Index i = 0; i < x.q.size(); ++i) x.q(i) = u(rng);
  for (Eigen::Index i = 0; i < x.v.size(); ++i) x.v(i) = u(rng);
  if (model.dimension() == 3) {
    for (int b = 0; b < model.nb(); ++b) x.q.segment<4>(7 * b + 3).normalize();
  }
  return x;
}

SimulationOptions accurateOptions(Scalar t_end, Scalar rtol, Scalar sample_interval) {
  SimulationOptions options;
  options.t_end = t_end;
  options.sample_interval = sample_interval;
  options.ode.rtol = rtol;
  options.ode.atol = rtol * 1e-2;
  return options;
}

ModelSpec fourBarLadderSpecAt(const LadderOptions& options, Scalar angle) {
  ModelSpec spec = fourBarLadderSpec(options);
  const Scalar c = std::cos(angle), s = std::sin(angle);
  for (BodySpec& body : spec.bodies) {
    const bool crank = body.name.rfind("crank", 0) == 0;
    const Scalar i = std::round(body.position.x() - (crank ? 0 : 0.5));  // (its ground pivot's x)
    body.position = crank ? Vec3(i + 0.5 * c, 0.5 * s, 0) : Vec3(i + 0.5 + c, s, 0);
    body.orientation = rotationZ(crank ? angle : 0);
  }
  return spec;
}

ModelSpec spatialChainSpec(int n) {
  ModelSpec spec;
  spec.name = "spatial_chain";
  spec.dimension = 3;
  spec.gravity = Vec3(0, 0, -9.81);
  Mat3 inertia;
  inertia << 0.02, 0.001, 0.002, 0.001, 0.09, 0.003, 0.002, 0.003, 0.085;
  // a joint turns about its markers' z: the link frame's z (even joints) or its y (odd joints),
  // axes (x, -z, y) -- a quarter turn about x. (The benchmarks' marker had axes (x, z, -y) until
  // 2026-11-28: odd joints about -y, a mirrored chain.)
  Mat3 about_y;
  about_y << 1, 0, 0, 0, 0, 1, 0, -1, 0;
  const auto axis = [&](int j) { return j % 2 == 0 ? Mat3::Identity() : about_y; };
  spec.ground_markers.push_back({"o", Vec3::Zero(), axis(0), {}, 0});
  for (int i = 0; i < n; ++i) {
    BodySpec body;
    body.name = "b" + std::to_string(i);
    body.mass = 1;
    body.inertia = inertia;
    body.position = Vec3(i + 0.5, 0, 0);
    body.markers.push_back({"in", Vec3(-0.5, 0, 0), axis(i), {}, 0});
    body.markers.push_back({"out", Vec3(0.5, 0, 0), axis(i + 1), {}, 0});
    spec.bodies.push_back(body);
    JointSpec joint;
    joint.name = "j" + std::to_string(i);
    joint.first = i == 0 ? MarkerRef{"ground", "o", {}} : MarkerRef{"b" + std::to_string(i - 1), "out", {}};
    joint.second = {body.name, "in", {}};
    spec.joints.push_back(joint);
    ForceSpec effort;
    effort.name = "tau" + std::to_string(i);
    effort.type = ForceType::JointEffort;
    effort.joint = joint.name;
    effort.profile = Profile::constant(0.1 * std::sin(2.3 * i));
    spec.forces.push_back(effort);
  }
  return spec;
}

State spatialChainState(const TreeKinematics& tree) {
  State x;
  x.q_r.resize(tree.nq());
  x.v_r.resize(tree.nv());
  for (Eigen::Index j = 0; j < x.q_r.size(); ++j) {
    x.q_r(j) = 0.3 * std::sin(1.7 * static_cast<Scalar>(j) + 0.4);
    x.v_r(j) = 0.5 * std::cos(0.9 * static_cast<Scalar>(j));
  }
  tree.absoluteState(x.q_r, x.v_r, 0, x);
  return x;
}

ModelSpec scaled(ModelSpec spec, Scalar factor) {
  for (MarkerSpec& mk : spec.ground_markers) mk.position *= factor;
  for (BodySpec& b : spec.bodies) {
    b.position *= factor;
    b.inertia *= factor * factor;
    for (MarkerSpec& mk : b.markers) mk.position *= factor;
    if (b.linear_velocity) *b.linear_velocity *= factor;
  }
  for (JointSpec& j : spec.joints) j.length *= factor;
  spec.gravity *= factor;
  return spec;
}

}  // namespace loopdyn::test
