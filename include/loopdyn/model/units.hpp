#pragma once
/// The units a model file is written in (`units: {length: mm, angle: deg, mass: g, time: s,
/// force: N}` at its top), as factors to SI. The reader multiplies every number by the factor of
/// its quantity, so that a Model holds SI values alone (m, rad, kg, s, N) and every output is SI;
/// the report says which units the file declared. Derived quantities take their factors from the
/// five: a torque is force x length, an inertia mass x length^2, gravity length / time^2, a
/// spring's stiffness force / length and its damping force x time / length.

#include <optional>
#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

enum class Quantity {
  Length,
  Angle,
  Mass,
  Time,
  Force,
  Torque,            ///< force x length
  Inertia,           ///< mass x length^2
  Velocity,          ///< length / time
  AngularVelocity,   ///< angle / time
  Acceleration,      ///< length / time^2 (gravity)
  Frequency,         ///< 1 / time (a sine profile's frequency in Hz)
  Stiffness,         ///< force / length
  Damping,           ///< force x time / length
  Dimensionless,     ///< a body load's profile (a multiplier)
};

/// One base unit: its name in the file and its factor to SI.
struct Unit {
  std::string name;
  Scalar to_si = 1;
};

struct Units {
  Unit length{"m", 1}, angle{"rad", 1}, mass{"kg", 1}, time{"s", 1}, force{"N", 1};
  bool declared = false;  ///< the file has a `units:` key

  /// The factor that turns a value of quantity q written in these units into SI.
  Scalar factor(Quantity q) const;
  /// "length mm, angle deg" -- the units that differ from SI, or "SI".
  std::string describe() const;
};

/// The unit names each base quantity accepts ("length": m, cm, mm, km, in, ft; ...).
const std::vector<std::string>& unitNames(const std::string& quantity);
/// The unit `name` of `quantity` ("length", "angle", "mass", "time", "force"); none when unknown.
std::optional<Unit> unitNamed(const std::string& quantity, const std::string& name);

}  // namespace loopdyn
