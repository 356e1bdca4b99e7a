#pragma once
// Helpers shared by the tests: loading bundled models and building random mechanisms.

#include <random>
#include <string>

#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::test {

/// Path of a bundled model: LOOPDYN_MODELS_DIR/<name>.yaml.
std::string modelPath(const std::string& name);

/// Reads and compiles a bundled model.
Model loadModel(const std::string& name);

/// A spec with one pair of every type available in `dimension`, markers at random places and
/// orientations, and one driver of each target, for derivative checks at random states.
ModelSpec everyPairTypeSpec(int dimension, std::mt19937& rng);

/// A random (unassembled) state: positions, unit quaternions, velocities, time.
State randomState(const Model& model, std::mt19937& rng);

}  // namespace loopdyn::test
