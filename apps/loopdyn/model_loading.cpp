#include "model_loading.hpp"

#include <iostream>

#include "exit_codes.hpp"
#include "loopdyn/common/stage_clock.hpp"
#include "loopdyn/io/model_reader.hpp"

namespace loopdyn::cli {

std::optional<LoadedModel> loadAndAssemble(const std::string& path, int& exit_code) {
  try {
    LapTimer seconds;
    ModelSpec spec = io::readModelFile(path);
    const double read = seconds.lap();
    Model model = compile(std::move(spec));
    const double compiled = seconds.lap();
    for (const std::string& warning : model.warnings()) std::cerr << warning << '\n';
    KinematicsWorkspace ws(model);
    AssemblyResult assembly = assemble(model, ws, initialState(model));
    const double assembled = seconds.lap();
    if (!assembly.converged) {
      std::cerr << path << ": error: " << assembly.message << '\n';
      exit_code = kExitNumericalFailure;
      return std::nullopt;
    }
    if (!assembly.prescribed_velocities_kept)
      std::cerr << path << ": warning: the prescribed initial velocities violate the constraints; changed by up to "
                << assembly.velocity_change << " (scaled)\n";
    return LoadedModel{std::move(model), std::move(assembly), read, compiled, assembled};
  } catch (const ModelError& e) {
    for (const Diagnostic& d : e.diagnostics()) std::cerr << d.str() << '\n';
    exit_code = kExitModelError;
    return std::nullopt;
  }
}

}  // namespace loopdyn::cli
