#pragma once
/// The summary of a simulation (`loopdyn simulate`, Python's loopdyn.simulate): what ran, how it
/// went, how far the results can be trusted, as text for a person or one JSON object for a
/// program. The samples themselves go to the CSV.

#include <string>
#include <vector>

#include "loopdyn/io/tree_writer.hpp"
#include "loopdyn/model/model.hpp"
#include "loopdyn/sim/simulation.hpp"

namespace loopdyn::reports {

/// What one simulation ran and how it went: the request as set up, the result, the stages' times.

struct SimulationRun {
  std::string model_path;
  std::string out_path;  ///< the CSV ("" when the rows are not written: a Python run without out=)
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
/// The summary's JSON object (`loopdyn simulate --json`), into any tree (text, Python objects).
void writeSimulation(io::TreeWriter& w, const SimulationRun& run);
/// writeSimulation as indented JSON text, ending in a newline.
std::string simulationJson(const SimulationRun& run);

}  // namespace loopdyn::reports
