#pragma once
// Actuators made drivers (the front doors' shared step: inverse.cpp, actuation_analysis.cpp): an
// actuator is a joint effort of the model (its force removed, a driver of its name on its joint)
// or a revolute or prismatic joint (a driver JOINT.actuator added).

#include <string>

#include "loopdyn/model/model_spec.hpp"

namespace loopdyn::detail {

/// The joint an actuator acts in, and its driver's name.
struct Actuator {
  std::string driver, joint;
};

/// Actuator `name` of spec (a joint effort is removed from spec.forces). Throws InvalidArgument
/// "actuators: ..." for a name that is neither, with the closest names.
Actuator resolveActuator(ModelSpec& spec, const std::string& name);

/// The driver's target for a one-coordinate joint: its rotation (revolute) or translation
/// (prismatic); InvalidArgument "actuators: ..." for another joint type.
DriverTarget targetOf(const ModelSpec& spec, const Actuator& a);

}  // namespace loopdyn::detail
