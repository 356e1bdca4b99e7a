// `loopdyn analyze`: structure of the constraint set and reaction uniqueness at the model's
// assembled configuration.

#include <iostream>

#include "analyze_report.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "commands.hpp"
#include "number_checks.hpp"
#include "criterion_sweep_report.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/io/csv_file.hpp"
#include "standard_output.hpp"
#include "exit_codes.hpp"
#include "model_loading.hpp"

namespace loopdyn::cli {

// the reports' words and shapes (reports/), shared with the Python module
using namespace reports;

namespace {

struct AnalyzeOptions {
  std::string model_path;
  bool json = false;
  int samples = RankOptions{}.generic_samples;
  Scalar threshold = kRankThreshold;
  Scalar uniqueness_threshold = kUniquenessThreshold;
  std::string method = "auto";
  std::vector<std::string> groups;
  bool criterion = false;
  std::string sweep, sweep_csv;
  bool motions = false;
  bool topology = false;
  std::string coordinates = "absolute";
  std::vector<std::string> actuators;
};

/// --actuators' analysis (and its --sweep) into results; false with the problem printed.
bool actuationInto(const AnalyzeOptions& options, const SweepRequest& sweep, AnalysisResults& results) {
  ActuationRequest request;
  request.actuators = options.actuators;
  request.sweep = sweep;
  try {
    results.actuation = analyzeActuation(io::readModelFile(options.model_path), request);
    results.actuation_sweep = sweep;
    return true;
  } catch (const InvalidArgument& e) {
    std::cerr << "loopdyn: error: " << inCommandLineWords(e.what()) << '\n';
  } catch (const ModelError& e) {
    for (const Diagnostic& d : e.diagnostics()) std::cerr << "loopdyn: error: --actuators: " << d.str() << '\n';
  }
  return false;
}

/// The ranges of --samples, --threshold and --uniqueness-threshold (the library's): false, with
/// the problem printed, when one is out of range.
bool numbersInRange(const AnalyzeOptions& options) {
  RankOptions rank;
  rank.generic_samples = options.samples;
  rank.rank_threshold = options.threshold;
  UniquenessOptions uniqueness;
  uniqueness.rank_threshold = options.threshold;
  uniqueness.uniqueness_threshold = options.uniqueness_threshold;
  return !reportOptionProblem(rankOptionsProblem(rank)) && !reportOptionProblem(uniquenessOptionsProblem(uniqueness));
}

/// --sweep's table, and with --csv its file written (not yet committed); false with the problem
/// printed and exit_code set when the sweep or the file fails.
bool sweepTable(const AnalyzeOptions& options, const LoadedModel& loaded, const SweepRequest& request,
                std::optional<CriterionSweep>& sweep, std::optional<io::CsvFile>& csv, int& exit_code) {
  exit_code = kExitUsage;
  try {
    sweep = sweepCriterion(io::readModelFile(options.model_path), loaded.model, loaded.assembly.state, request);
  } catch (const InvalidArgument& e) {
    std::cerr << "loopdyn: error: --sweep '" << options.sweep << "': " << e.what() << '\n';
    return false;
  } catch (const ModelError& e) {
    for (const Diagnostic& d : e.diagnostics()) std::cerr << "loopdyn: error: --sweep: " << d.str() << '\n';
    return false;
  }
  if (options.sweep_csv.empty()) return true;
  try {
    csv.emplace(options.sweep_csv, sweepCsvHeader(loaded.model, request));
    writeSweepRows(*csv, loaded.model, *sweep);
  } catch (const io::OutputError& e) {
    std::cerr << "loopdyn: error: " << e.what() << '\n';
    exit_code = kExitOutputError;
    return false;
  }
  return true;
}

/// The groups of --group resolved on the model into `out`; false with every problem printed.
bool extraGroups(const AnalyzeOptions& options, const Model& model, std::vector<Group>& out) {
  const std::vector<std::string> problems = resolveGroups(model, options.groups, out);
  for (const std::string& problem : problems) std::cerr << "loopdyn: error: --group " << problem << '\n';
  return problems.empty();
}

void runAnalyze(const AnalyzeOptions& options, int& exit_code) {
  exit_code = kExitUsage;
  if (!numbersInRange(options)) return;
  SweepRequest sweep;
  if (!options.sweep.empty()) {
    if (const std::string problem = parseSweep(options.sweep, sweep); !problem.empty()) {
      std::cerr << "loopdyn: error: --sweep '" << options.sweep << "': " << problem << '\n';
      return;
    }
  }
  if (!options.sweep_csv.empty() && io::sameFile(options.sweep_csv, options.model_path)) {
    std::cerr << "loopdyn: error: --csv '" << options.sweep_csv << "' is the model file: an output never replaces its model\n";
    return;
  }
  auto loaded = loadAndAssemble(options.model_path, exit_code);
  if (!loaded) return;
  const Model& model = loaded->model;
  std::optional<CriterionSweep> swept;
  std::optional<io::CsvFile> sweep_csv;  // committed after the report reached standard output
  const bool actuation = !options.actuators.empty();
  if (!options.sweep.empty() && !options.criterion && !actuation) {
    std::cerr << "loopdyn: error: --sweep needs --criterion (the criterion's sweep) or --actuators (the actuation's)\n";
    return;
  }
  if (actuation && !options.sweep_csv.empty()) {
    std::cerr << "loopdyn: error: --csv writes the criterion's sweep; the actuation's is in the report\n";
    return;
  }
  if (actuation && options.criterion && !options.sweep.empty()) {
    std::cerr << "loopdyn: error: --sweep: with --criterion it sweeps the criterion, with --actuators the actuation: "
                 "give one of them\n";
    return;
  }
  if (!actuation && !options.sweep.empty() && !sweepTable(options, *loaded, sweep, swept, sweep_csv, exit_code)) return;

  AnalysisSettings settings;
  settings.uniqueness.methods = uniquenessMethods(model, options.method);
  settings.uniqueness.rank_threshold = options.threshold;
  settings.uniqueness.uniqueness_threshold = options.uniqueness_threshold;
  exit_code = kExitUsage;
  if (!extraGroups(options, model, settings.uniqueness.extra_groups)) return;
  settings.rank.generic_samples = options.samples;
  settings.rank.rank_threshold = options.threshold;
  settings.criterion = options.criterion;
  settings.motions = options.motions;
  settings.topology = options.topology;
  settings.relative = options.coordinates == "relative";
  AnalysisResults results = computeAnalysis(model, loaded->assembly, options.model_path, settings);
  results.sweep = std::move(swept);
  exit_code = kExitUsage;
  if (actuation && !actuationInto(options, options.sweep.empty() ? SweepRequest{} : sweep, results)) return;
  const std::string report = options.json ? analysisJson(results) : analysisText(results);
  // the two routes to the same answer disagree: one of them is wrong, so the run is not a success
  const bool contradicted =
      results.relative && (!results.routes_disagree.empty() || !results.relative->stepsAgreeWithNullSpace());
  if (contradicted)
    std::cerr << "loopdyn: error: " << options.model_path
              << ": the relative-coordinate (DCA) uniqueness analysis contradicts itself or the absolute one "
                 "(see the warnings)\n";
  exit_code = kExitOutputError;
  if (!writeStandardOutput(report)) return;
  exit_code = contradicted ? kExitNumericalFailure : kExitOk;
  if (!sweep_csv || contradicted) return;
  try {
    sweep_csv->commit();
  } catch (const io::OutputError& e) {
    std::cerr << "loopdyn: error: " << e.what() << '\n';
    exit_code = kExitOutputError;
  }
}

}  // namespace

void addAnalyzeCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "Constraint rank, redundancy, mobility, singularity and joint-reaction uniqueness of a model at its assembled "
      "configuration");
  cmd->add_option("model", options->model_path, "Model file (YAML)")->required();
  cmd->add_flag("--json", options->json, "Print the report as one JSON object");
  cmd->add_flag("--criterion", options->criterion,
                "Also print the projective criterion (paper 003): cos^2 alpha, cos^2 beta per coordinate and the best "
                "set of independent coordinates");
  cmd->add_option("--sweep", options->sweep,
                  "With --criterion: tabulate it over a driven sweep of one joint coordinate, JOINT.angle=FROM:TO:POINTS "
                  "or JOINT.distance=FROM:TO:POINTS (paper 003, Fig. 3); with --actuators: the actuation over a sweep "
                  "of one actuator");
  cmd->add_option("--csv", options->sweep_csv, "With --sweep: also write the sweep as CSV to this file")->needs("--sweep");
  cmd->add_option("--actuators", options->actuators,
                  "Actuators (joint efforts or revolute/prismatic joints, comma-separated; the model's drivers too), "
                  "held at the pose: which freedoms they control, actuation redundancy and preloads, which efforts "
                  "are unique, whether the pose is an actuation singularity; with --sweep ACTUATOR.angle=FROM:TO:POINTS "
                  "the same along the sweep of one actuator, the others held")
      ->delimiter(',');
  cmd->add_flag("--motions", options->motions,
                "Also print the admissible motions at the configuration (paper 004): the null space of the constraint "
                "matrix, with the extra motions of a singular configuration");
  cmd->add_flag("--topology", options->topology,
                "Also print the topology: spanning tree (relative coordinates), cut joints, loop count and the binary "
                "assembly tree with its handles (papers 000, 002)");
  cmd->add_option("--samples", options->samples,
                  "Nearby configurations sampled to find the generic rank (0: skip the singularity test)")
      ->check(finiteNumber(false));
  cmd->add_option("--threshold", options->threshold, "Relative rank threshold on |R_kk|/|R_11|")
      ->check(finiteNumber(true));
  cmd->add_option("--uniqueness-threshold", options->uniqueness_threshold,
                  "Threshold on ||B_X||/||C_X|| below which a reaction counts as unique")
      ->check(finiteNumber(true));
  cmd->add_option("--method", options->method,
                  "Uniqueness test: rank, qr, svd, nullspace, all (qr decides, the others check it), or auto: all "
                  "up to 60 equations, qr alone above (the default)")
      ->check(CLI::IsMember({"auto", "all", "rank", "qr", "svd", "nullspace"}))
      ->capture_default_str();
  cmd->add_option("--coordinates", options->coordinates,
                  "Reaction uniqueness from the constraint matrix in absolute coordinates (paper 001), or inside the "
                  "divide-and-conquer algorithm in relative coordinates (paper 000: G at the ground connection, the "
                  "eight-step propagation, the deciding step per pair)")
      ->check(CLI::IsMember({"absolute", "relative"}));
  cmd->add_option("--group", options->groups,
                  "Test the resultant of several pairs on one body: NAME=PAIR,PAIR,...@BODY (repeatable), "
                  "e.g. KM=K,M@ground");
  cmd->callback([options, &exit_code] { runAnalyze(*options, exit_code); });
}

}  // namespace loopdyn::cli
