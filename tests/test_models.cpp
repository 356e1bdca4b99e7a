#include "test_models.hpp"

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn::test {

std::string modelPath(const std::string& name) { return std::string(LOOPDYN_MODELS_DIR) + "/" + name + ".yaml"; }

Model loadModel(const std::string& name) { return compile(io::readModelFile(modelPath(name))); }

namespace {

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
    body.name = "b" + std::to_string(b);
    body.mass = 1;
    body.inertia = Mat3::Identity();
    for (int k = 0; k < 4; ++k) body.markers.push_back(randomMarker("m" + std::to_string(k), dimension, rng));
    spec.bodies.push_back(body);
  }
  spec.ground_markers.push_back(randomMarker("g", dimension, rng));
  int count = 0;
  for (JointType type : types) {
    if (!jointTypeAllowed(type, dimension)) continue;
    // alternate between body-body and ground-body pairs so both paths are exercised
    JointSpec j;
    j.name = "j" + std::to_string(count);
    j.type = type;
    const bool to_ground = count % 3 == 2;
    j.first = to_ground ? MarkerRef{"ground", "g", {}} : MarkerRef{"b" + std::to_string(count % 3), "m1", {}};
    j.second = MarkerRef{"b" + std::to_string((count + 1) % 3), "m2", {}};
    if (type == JointType::KnifeEdge) j.first = MarkerRef{"b1", "m3", {}};
    j.length = 0.8;
    spec.joints.push_back(j);
    ++count;
  }
  // drivers on a rotation, a translation and a distance, with profiles that vary in time
  auto addDriver = [&](const std::string& joint, DriverTarget target, Profile profile) {
    DriverSpec d;
    d.name = "drive_" + std::to_string(spec.drivers.size());
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

State randomState(const Model& model, std::mt19937& rng) {
  std::uniform_real_distribution<Scalar> u(-1, 1);
  State x{0.37, VecX(model.nq()), VecX(model.nv())};
  for (Eigen::Index i = 0; i < x.q.size(); ++i) x.q(i) = u(rng);
  for (Eigen::Index i = 0; i < x.v.size(); ++i) x.v(i) = u(rng);
  if (model.dimension() == 3) {
    for (int b = 0; b < model.nb(); ++b) x.q.segment<4>(7 * b + 3).normalize();
  }
  return x;
}

}  // namespace loopdyn::test
