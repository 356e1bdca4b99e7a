#include "actuators.hpp"

#include <algorithm>

#include "loopdyn/common/errors.hpp"
#include "loopdyn/common/spelling.hpp"
#include "loopdyn/model/joint_type.hpp"

namespace loopdyn::detail {

namespace {

[[noreturn]] void refuse(const std::string& message) { throw InvalidArgument("actuators: " + message); }

}  // namespace

Actuator resolveActuator(ModelSpec& spec, const std::string& name) {
  const auto force = std::find_if(spec.forces.begin(), spec.forces.end(), [&](const ForceSpec& f) { return f.name == name; });
  if (force != spec.forces.end()) {
    if (force->type != ForceType::JointEffort)
      refuse("'" + name + "' is a force but not a joint effort: an actuator acts in a joint");
    Actuator a{name, force->joint};
    spec.forces.erase(force);
    return a;
  }
  if (std::any_of(spec.joints.begin(), spec.joints.end(), [&](const JointSpec& j) { return j.name == name; }))
    return Actuator{name + ".actuator", name};
  std::vector<std::string> known;
  for (const ForceSpec& f : spec.forces)
    if (f.type == ForceType::JointEffort) known.push_back(f.name);
  for (const JointSpec& j : spec.joints) known.push_back(j.name);
  refuse("'" + name + "' is neither a joint effort nor a joint of the model" + didYouMean(name, known));
}

DriverTarget targetOf(const ModelSpec& spec, const Actuator& a) {
  const JointSpec& joint = *std::find_if(spec.joints.begin(), spec.joints.end(), [&](const JointSpec& j) { return j.name == a.joint; });
  if (joint.type == JointType::Revolute) return DriverTarget::JointRotation;
  if (joint.type == JointType::Prismatic) return DriverTarget::JointTranslation;
  refuse("'" + a.joint + "' is a " + std::string(jointTypeName(joint.type)) +
                          " joint: an actuator drives a revolute or prismatic joint's one coordinate");
}

}  // namespace loopdyn::detail
