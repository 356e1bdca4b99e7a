#pragma once
// Bundled models for the benchmarks, loaded and assembled outside the timed loops.

#include <string>

#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"

namespace loopdyn::bench {

struct Fixture {
  Model model;
  State state;  ///< the assembled initial state
};

inline Fixture load(const std::string& name) {
  Model model = compile(io::readModelFile(std::string(LOOPDYN_MODELS_DIR) + "/" + name + ".yaml"));
  KinematicsWorkspace ws(model);
  State state = assemble(model, ws, initialState(model)).state;
  return {std::move(model), std::move(state)};
}

}  // namespace loopdyn::bench
