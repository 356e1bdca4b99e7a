#pragma once
/// One simulation from a request to its files and summary, as both front ends run it (`loopdyn
/// simulate`, Python's loopdyn.simulate with out= or report=): the request set up on the assembled
/// model (the library's setUpSimulation), every output opened before the run, each sample's row
/// to the CSV (and kept for the page, or for Python), then the summary and the page, everything
/// committed together (reports/simulation_outputs.hpp).
///
///   SimulationJob job(model, assembly, times, files, request, needs);  // InvalidArgument
///   job.openOutputs();                                                 // io::OutputError
///   job.run(keep_rows, on_sample);                                     // io::OutputError
///   ... job.summary() to the user ...
///   job.commit();                                                      // io::OutputError

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "html_report.hpp"
#include "loopdyn/loopdyn.hpp"
#include "simulation_outputs.hpp"
#include "simulation_summary.hpp"

namespace loopdyn::reports {

/// The files of one run ("" where there is none).
struct SimulationFiles {
  std::string model_path;   ///< the model file, as the summary names it
  std::string out_path;     ///< the CSV and its sidecar
  std::string report_path;  ///< the HTML page
};

/// How long the model took to become the job's input, seconds (the summary's first stages).
struct LoadSeconds {
  double read = 0, compile = 0, assemble = 0;
};

class SimulationJob {
 public:
  /// The request set up at the assembled state (setUpSimulation, its stages told to
  /// needs.stage); a page needs every pair's uniqueness and the bodies' columns. Throws
  /// InvalidArgument whose message starts with the request's field ("rtol: ...", "report: ...").
  SimulationJob(const Model& model, const AssemblyResult& assembly, const LoadSeconds& seconds, SimulationFiles files,
                const SimulationRequest& request, SetupNeeds needs = {});

  /// Opens every output (and reads the page's libraries): a place that cannot be written, or a
  /// missing setup, fails before the run. Throws io::OutputError.
  void openOutputs();
  /// The run: each row to the CSV, kept when keep_rows (rows()) or for the page; on_sample(t)
  /// after each sample. Then the summary's last parts and the sidecar's and page's text. Throws
  /// io::OutputError.
  void run(bool keep_rows, const std::function<void(double t)>& on_sample = {});
  /// Every output onto its name when the run is ok, else onto its failed name. Throws io::OutputError.
  void commit();

  const SimulationRun& summary() const { return summary_; }
  const SampleColumns& columns() const { return *setup_.columns; }
  const std::vector<std::vector<double>>& rows() const { return rows_; }
  const SimulationRequest& request() const { return request_; }
  /// Where the CSV and the page end up ("" for none): the requested names, or the failed ones.
  std::string csvPath() const { return outputs_ ? outputs_->csvPath(summary_.result.ok) : std::string(); }
  std::string reportPath() const { return outputs_ ? outputs_->reportPath(summary_.result.ok) : std::string(); }

 private:
  void describeSetup();
  void summarizePartitioning();
  std::string reportPage() const;

  const Model& model_;
  const AssemblyResult assembly_;  // (a copy: the job may outlive the caller's)
  SimulationFiles files_;
  SimulationRequest request_;
  SimulationSetup setup_;
  SimulationRun summary_;
  std::optional<SimulationOutputs> outputs_;
  WebLibraries web_;
  std::vector<std::vector<double>> rows_;
};

}  // namespace loopdyn::reports
