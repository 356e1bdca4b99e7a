#pragma once
/// The projective criterion over a sweep (loopdyn/criterion_sweep.hpp) as the reports give it: a
/// table after `loopdyn analyze --criterion`'s report, the CSV of `--csv`, and the object under
/// the analysis's key `criterion_sweep` (`--json`, Python's Model.analyze(sweep=...)).

#include <string>
#include <vector>

#include "loopdyn/criterion_sweep.hpp"
#include "loopdyn/io/csv_file.hpp"
#include "loopdyn/io/tree_writer.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::reports {

std::string sweepText(const Model& model, const CriterionSweep& sweep);
/// The sweep's CSV columns: the swept coordinate, assembled, rank, then cos^2 alpha, cos^2 beta and
/// "chosen" of every velocity coordinate, and the chosen set's smallest singular value.
std::vector<std::string> sweepCsvHeader(const Model& model, const SweepRequest& request);
/// The rows, one a point of the sweep (zeros where it did not assemble). Throws io::OutputError.
void writeSweepRows(io::CsvFile& csv, const Model& model, const CriterionSweep& sweep);
/// The sweep as one object of columns, a value a point (zeros where it did not assemble):
/// coordinate, from, to, coordinates (the velocity coordinates' names), values, assembled,
/// problems, rank, cos2_alpha and cos2_beta (a list per point, one a coordinate), best_set (names),
/// set_sigma_min.
void writeSweep(io::TreeWriter& w, const Model& model, const CriterionSweep& sweep);

}  // namespace loopdyn::reports
