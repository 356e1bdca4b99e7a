#pragma once
/// The files one simulation writes (`loopdyn simulate`, Python's loopdyn.simulate) -- the CSV, its
/// column sidecar (OUT.columns.json), the HTML page of --report -- handled together (docs/reliability.md, "Outputs"):
///
/// - checked before the run against the model file and one another: no output replaces the model
///   it is computed from, nor another output;
/// - opened before the run (their temporary files created): a place that cannot be written is
///   found before any work is done;
/// - committed together at the end, after everything -- the summary on standard output included --
///   was written: a run whose exit code says failure commits nothing under the requested names (a
///   failed simulation's rows and page go under OUT.failed.csv / REPORT.failed.html, as documented).

#include <optional>
#include <string>
#include <vector>

#include "loopdyn/io/csv_file.hpp"

namespace loopdyn::reports {

/// How a front end names the two outputs in its messages (Python: out, report).
struct OutputNames {
  std::string out = "--out", report = "--report";
};

/// What is wrong with writing these outputs beside this model ("" when nothing): an output that
/// would replace the model file or another output. An empty path is no output.
std::string outputConflict(const std::string& model_path, const std::string& out_path, const std::string& report_path,
                           const OutputNames& names = {});

class SimulationOutputs {
 public:
  /// Opens the CSV (and writes its header) when out_path is not empty and the page when
  /// report_path is not empty. Throws io::OutputError.
  SimulationOutputs(const std::string& out_path, const std::vector<std::string>& header, const std::string& report_path);

  /// One sample's row to the CSV (nothing without one). Throws io::OutputError.
  void writeRow(const std::vector<double>& row) {
    if (csv_) csv_->writeRow(row);
  }
  /// Where the rows end up: the requested name, or the failed one ("" without a CSV).
  std::string csvPath(bool ok) const;
  std::string reportPath(bool ok) const;

  /// The sidecar's and the page's text, to their temporary files. Throws io::OutputError.
  void writeSidecar(const std::string& json);
  void writeReport(const std::string& html);
  /// Every file onto its name (ok), or onto the failed names. Throws io::OutputError.
  void commit(bool ok);

 private:
  std::optional<io::CsvFile> csv_;
  std::optional<io::OutputFile> sidecar_, report_;
};

}  // namespace loopdyn::reports
