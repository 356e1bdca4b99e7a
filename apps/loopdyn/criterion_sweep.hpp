#pragma once
/// `loopdyn analyze --criterion --sweep JOINT.coordinate=a:b:n`: the projective criterion
/// (paper 003, eqs. (23a), (23b)) over a driven sweep of one joint coordinate, the paper's Fig. 3
/// as a table.
///
/// The model is compiled once more with a driver on the joint (angle: its rotation, distance:
/// its translation, as a model file's `drivers` define them) whose value at "time" k is
/// a + (b - a) k / (n - 1); each configuration is assembled from the previous one, and the
/// criterion is evaluated there for the model's own coordinates and constraints (the driver
/// only places the mechanism).

#include <string>
#include <vector>

#include "loopdyn/analysis/projective_criterion.hpp"
#include "loopdyn/io/csv_file.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::cli {

struct SweepRequest {
  std::string joint, coordinate;  ///< coordinate: "angle" or "distance"
  Scalar from = 0, to = 0;
  int points = 0;
};

/// Parses "JOINT.coordinate=a:b:n"; returns the problem, empty on success.
std::string parseSweep(const std::string& text, SweepRequest& out);

struct SweepRow {
  Scalar value = 0;
  bool assembled = false;
  std::string problem;  ///< why not assembled
  ProjectiveCriterion criterion;
};

/// Runs the sweep from the model file's assembled state `start`. Throws ModelError (bad joint or
/// coordinate: the problem named) and InvalidArgument.
std::vector<SweepRow> sweepCriterion(const std::string& model_path, const Model& model, const State& start,
                                     const SweepRequest& request);

std::string sweepText(const Model& model, const SweepRequest& request, const std::vector<SweepRow>& rows);
/// The sweep's CSV columns: the swept coordinate, assembled, rank, then cos^2 alpha, cos^2 beta and
/// "chosen" of every velocity coordinate, and the chosen set's smallest singular value.
std::vector<std::string> sweepCsvHeader(const Model& model, const SweepRequest& request);
/// The rows, one a point of the sweep (zeros where it did not assemble). Throws io::OutputError.
void writeSweepRows(io::CsvFile& csv, const Model& model, const std::vector<SweepRow>& rows);

}  // namespace loopdyn::cli
