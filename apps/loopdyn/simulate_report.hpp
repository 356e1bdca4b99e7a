#pragma once
/// The summary of `loopdyn simulate`: what ran, how it went, how far the results can be trusted,
/// as text for a person or one JSON object for a program. The samples themselves go to the CSV.

#include <string>
#include <vector>

#include "loopdyn/model/model.hpp"
#include "loopdyn/sim/simulation.hpp"

namespace loopdyn::cli {

struct SimulationRun {
  std::string model_path, out_path;
  const Model* model = nullptr;
  std::vector<std::string> assembly_changes;  ///< assemblyChangeLines of the initial state
  std::string formulation;
  std::string coordinates = "absolute";  ///< or relative (joint coordinates)
  bool continuation = true;  ///< projection
  bool switching = true;     ///< partitioning
  /// partitioning: the independent coordinates at the start and at the end, and the switches
  std::vector<std::string> independent_initial, independent_final;
  int coordinate_switches = 0;
  std::vector<std::string> eliminated;  ///< names of the eliminated equations (elimination)
  std::string integrator;
  std::string stabilization;
  SimulationOptions options;
  SimulationResult result;
  int columns = 0, non_unique_columns = 0;
  std::vector<std::string> non_unique;  ///< the non-unique columns' names
  std::vector<std::string> warnings;
  /// Wall time of the command's own stages, seconds (the run's are result.stage_seconds).
  double read_seconds = 0, compile_seconds = 0, assemble_seconds = 0, setup_seconds = 0, uniqueness_seconds = 0,
         output_seconds = 0;
};

/// The CSV's sidecar, "out.columns.json" for "out.csv" ("out.columns.json" for "out"): every
/// column's name and the non-unique ones (issue 19: stable names; `--mark-non-unique` puts the `*`
/// back into the CSV header).
std::string columnsSidecarPath(const std::string& csv_path);
std::string columnsSidecar(const std::vector<std::string>& columns, const std::vector<std::string>& non_unique);

/// Fills run.warnings from the result.
void collectWarnings(SimulationRun& run);

std::string simulationText(const SimulationRun& run);
std::string simulationJson(const SimulationRun& run);

}  // namespace loopdyn::cli
