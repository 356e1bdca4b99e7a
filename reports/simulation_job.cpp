#include "simulation_job.hpp"

#include "analyze_report.hpp"
#include "assembly_changes.hpp"
#include "failure_text.hpp"
#include "loopdyn/common/stage_clock.hpp"

namespace loopdyn::reports {

namespace {

/// The request set up, after what a page needs is checked (cheaply, before the set-up's work).
SimulationSetup setUpForFiles(const Model& model, const State& x0, const SimulationFiles& files,
                              const SimulationRequest& request, SetupNeeds needs) {
  if (!files.report_path.empty()) {
    if (!columnOptionsFor(request.columns, request.reactions, 0, false).bodies)
      throw InvalidArgument("report: the page draws the bodies: keep the bodies column group");
    needs.every_pair = true;  // (the page's table shows every pair's uniqueness)
  }
  return setUpSimulation(model, x0, request, needs);
}

}  // namespace

SimulationJob::SimulationJob(const Model& model, const AssemblyResult& assembly, const LoadSeconds& seconds,
                             SimulationFiles files, const SimulationRequest& request, SetupNeeds needs)
    : model_(model),
      assembly_(assembly),
      files_(std::move(files)),
      request_(request),
      setup_(setUpForFiles(model, assembly.state, files_, request, std::move(needs))) {
  summary_.read_seconds = seconds.read;
  summary_.compile_seconds = seconds.compile;
  summary_.assemble_seconds = seconds.assemble;
  describeSetup();
}

/// What the summary says of the request as set up: the files, the assembly's changes, the
/// formulation, the integrator, the columns.
void SimulationJob::describeSetup() {
  SimulationRun& s = summary_;
  s.model_path = files_.model_path;
  s.out_path = files_.out_path;
  s.model = &model_;
  s.assembly_changes = assemblyChangeLines(model_, assembly_.state);
  s.formulation = std::string(setup_.formulation->name());
  s.coordinates = setup_.formulation->coordinates(model_)->relative() ? "relative" : "absolute";
  s.eliminated = setup_.eliminated;
  s.continuation = request_.continuation;
  s.switching = request_.switching;
  s.integrator = request_.integrator;
  s.stabilization = request_.stabilization;
  s.options = setup_.options;
  s.setup_seconds = setup_.formulation_seconds;
  s.uniqueness_seconds = setup_.uniqueness_seconds;
  s.columns = static_cast<int>(setup_.columns->names().size());
  s.non_unique_columns = setup_.columns->nonUniqueColumns();
  s.non_unique = setup_.columns->nonUniqueNames();
}

void SimulationJob::openOutputs() {
  if (!files_.report_path.empty()) web_ = loadWebLibraries();
  outputs_.emplace(files_.out_path, setup_.columns->names(), files_.report_path);
}

void SimulationJob::run(bool keep_rows, const std::function<void(double t)>& on_sample) {
  if (!outputs_) openOutputs();
  const bool keep = keep_rows || !files_.report_path.empty();
  LapTimer clock;
  summary_.result = runSimulation(model_, setup_, assembly_.state, [&](double t, const std::vector<double>& row) {
    outputs_->writeRow(row);
    if (keep) rows_.push_back(row);
    if (on_sample) on_sample(t);
  });
  clock.lap();
  summarizePartitioning();
  collectWarnings(summary_);
  outputs_->writeSidecar(columnsSidecar(setup_.columns->names(), setup_.columns->nonUniqueNames()));
  if (!files_.report_path.empty()) outputs_->writeReport(reportPage());
  summary_.output_seconds = clock.lap();
}

void SimulationJob::commit() { outputs_->commit(summary_.result.ok); }

/// The independent coordinates of partitioning, absolute (body velocities) or relative (joint
/// velocities), into the summary.
void SimulationJob::summarizePartitioning() {
  const Formulation& formulation = *setup_.formulation;
  const FormulationData* data = summary_.result.formulation_data.get();
  if (!data) return;
  const std::optional<Formulation::PartitionSummary> partition = formulation.partitionSummary(*data);
  if (!partition) return;
  const std::vector<std::string> names =
      partition->joint_coordinates ? jointCoordinateNames(model_, 'v') : velocityCoordinateNames(model_);
  const auto named = [&](const std::vector<int>& set) {
    std::vector<std::string> out;
    for (const int i : set) out.push_back(names[static_cast<std::size_t>(i)]);
    return out;
  };
  summary_.independent_initial = named(partition->independent_initial);
  summary_.independent_final = named(partition->independent_final);
  summary_.coordinate_switches = partition->switches;
  summary_.eliminated = equationNames(model_, formulation.eliminatedEquations(*data));
}

/// The page: the run, its samples (thinned to kReportRows) and the analysis at the start.
std::string SimulationJob::reportPage() const {
  ReportInput report;
  report.model = &model_;
  report.model_path = files_.model_path;
  report.columns = setup_.columns->names();
  report.non_unique = setup_.columns->nonUniqueNames();
  const std::size_t stride = rows_.size() / kReportRows + 1;
  for (std::size_t r = 0; r < rows_.size(); ++r)
    if (r % stride == 0 || r + 1 == rows_.size()) report.rows.push_back(rows_[r]);
  for (const PairUniqueness& p : setup_.uniqueness.pairs) report.pair_unique.push_back(p.reaction.unique());
  report.simulation_json = simulationJson(summary_);
  AnalysisSettings settings;
  settings.uniqueness.methods = {UniquenessMethod::QR};
  report.analysis_json = analysisJson(computeAnalysis(model_, assembly_, files_.model_path, settings));
  report.events = summary_.result.events;
  report.failure = failureText(summary_.result.failure);
  return htmlReport(report, web_);
}

}  // namespace loopdyn::reports
