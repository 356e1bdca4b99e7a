#pragma once
/// Loading a model file for a subcommand: read, compile, assemble; problems become one line each
/// on stderr and an exit code.

#include <optional>
#include <string>

#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::cli {

struct LoadedModel {
  Model model;
  AssemblyResult assembly;
  double read_seconds = 0, compile_seconds = 0, assemble_seconds = 0;  ///< wall time of each stage
};

/// Reads and compiles `path` and assembles its initial state. On failure prints the problems to
/// stderr, sets exit_code (2: model error, 3: assembly failed) and returns nothing.
std::optional<LoadedModel> loadAndAssemble(const std::string& path, int& exit_code);

}  // namespace loopdyn::cli
