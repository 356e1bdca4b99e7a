// `loopdyn simulate`: forward dynamics of a model from its assembled initial state, with joint
// reactions over time marked unique or not, written as one CSV row per sample.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "failure_text.hpp"
#include "loopdyn/io/csv_file.hpp"
#include "loopdyn/loopdyn.hpp"
#include "model_loading.hpp"
#include "number_checks.hpp"
#include "progress_line.hpp"
#include "report_format.hpp"
#include "simulation_job.hpp"
#include "standard_output.hpp"

namespace loopdyn::cli {

// the reports' words and shapes (reports/), shared with the Python module
using namespace reports;

namespace {

struct SimulateOptions {
  std::string model_path, out_path;
  /// What the library runs (loopdyn.hpp): every option but the outputs' binds to a field of it.
  SimulationRequest request = [] {
    SimulationRequest r;
    r.t_end = 0;
    r.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return r;
  }();
  bool json = false;
  std::string report_path;  ///< --report: the HTML page (html_report.hpp)
  bool mark_non_unique = false;     ///< --mark-non-unique
};

/// The request set up for the command's files; nothing (a usage error printed) when it cannot be.
std::optional<SimulationJob> setUpJob(const SimulateOptions& options, const LoadedModel& loaded, ProgressLine& progress) {
  SimulationFiles files{options.model_path, options.out_path, options.report_path};
  SetupNeeds needs;
  needs.mark_non_unique = options.mark_non_unique;
  needs.stage = [&](const char* stage) { progress.stage(stage); };
  try {
    return std::make_optional<SimulationJob>(loaded.model, loaded.assembly,
                                             LoadSeconds{loaded.read_seconds, loaded.compile_seconds, loaded.assemble_seconds},
                                             std::move(files), options.request, std::move(needs));
  } catch (const InvalidArgument& e) {
    std::cerr << "loopdyn: error: " << inCommandLineWords(e.what()) << '\n';
    return std::nullopt;
  }
}

/// The run's summary to standard output, then every file committed; the exit code.
int reportAndCommit(const SimulateOptions& options, SimulationJob& job) {
  const bool ok = job.summary().result.ok;
  // the summary reaches standard output before anything is committed
  std::string summary = options.json ? simulationJson(job.summary()) : simulationText(job.summary());
  if (!options.report_path.empty() && !options.json) summary += "report       " + job.reportPath() + '\n';
  if (!ok)
    std::cerr << options.model_path << ": error: simulation failed: " << failureText(job.summary().result.failure)
              << "; the samples up to there are in " << job.csvPath() << '\n';
  if (!writeStandardOutput(summary)) return kExitOutputError;
  job.commit();
  return ok ? kExitOk : kExitNumericalFailure;
}

void runSimulate(const SimulateOptions& options, int& exit_code) {
  if (const std::string conflict = outputConflict(options.model_path, options.out_path, options.report_path);
      !conflict.empty()) {
    std::cerr << "loopdyn: error: " << conflict << '\n';
    exit_code = kExitUsage;
    return;
  }
  auto loaded = loadAndAssemble(options.model_path, exit_code);
  if (!loaded) return;
  const State& x0 = loaded->assembly.state;
  ProgressLine progress(x0.t, options.request.t_end, stderrIsTerminal());
  exit_code = kExitUsage;
  std::optional<SimulationJob> job = setUpJob(options, *loaded, progress);
  if (!job) return;

  // every output opened before the run (and the report's libraries read): a place that cannot be
  // written, or a missing setup, fails before the simulation, not after it
  exit_code = kExitOutputError;
  try {
    job->openOutputs();
  } catch (const io::OutputError& e) {
    std::cerr << "loopdyn: error: " << (options.report_path.empty() ? "" : "--report: ") << e.what() << '\n';
    return;
  }
  progress.header("loopdyn simulate: " + loaded->model.name() + " (" + options.model_path + "), " +
                  job->summary().formulation + ", " + options.request.integrator + ", t = " + formatNumber(x0.t) +
                  " .. " + formatNumber(job->summary().options.t_end) + " s");
  try {
    job->run(false, [&](double t) { progress.update(t); });
    progress.finish();
    exit_code = reportAndCommit(options, *job);
  } catch (const io::OutputError& e) {
    std::cerr << "loopdyn: error: " << e.what() << '\n';  // (the temporary files go with the job)
  }
}

}  // namespace

namespace {

// (the options in the order --help lists them)

/// --method, and what the run writes besides the CSV: --columns, --mark-non-unique, --point, --report.
void addMethodAndOutputOptions(CLI::App* cmd, SimulateOptions* o) {
  cmd->add_option("--method", o->request.method,
                  "Formulation: lagrange (least-norm multipliers), elimination (redundant equations removed), "
                  "partitioning (independent coordinates by the projective criterion, paper 003), projection (QR "
                  "tangent basis with continuation, paper 004), dca (Featherstone's divide-and-conquer algorithm on the assembly "
                  "tree, in joint coordinates, paper 000), hdca (its Hamiltonian form: joint canonical momenta, "
                  "velocity constraints held to rounding, paper 002)")
      ->check(CLI::IsMember({"lagrange", "elimination", "partitioning", "projection", "dca", "hdca"}))
      ->capture_default_str();
  cmd->add_option("--columns", o->request.columns,
                  "Column groups to write, comma-separated: bodies, energy, violation, coordinates (u.* and a relative "
                  "run's joint coordinates), joints (every joint's coordinates and velocities: angles, "
                  "displacements), points (--point), reactions (--reactions chooses the axes), efforts; default: "
                  "all but joints; all: every group")
      ->delimiter(',')
      ->check(CLI::IsMember([] {
        std::vector<std::string> names{"default", "all"};
        for (const std::string& g : columnGroupNames()) names.push_back(g);
        return names;
      }()));
  cmd->add_flag("--mark-non-unique", o->mark_non_unique,
                  "Append * to the names of the non-unique reaction columns in the CSV header (as before; by default "
                  "the names are stable and the non-unique ones are listed in OUT.columns.json)");
  cmd->add_option("--point", o->request.points,
                  "Also write a body-fixed point's world position and velocity, NAME.x NAME.y (NAME.z) NAME.vx ...: "
                  "NAME=BODY.MARKER (repeatable), e.g. tip=crank1.top");
  cmd->add_option("--report", o->report_path,
                  "Also write one self-contained HTML page (opens offline): the motion animated, the energy "
                  "balance, constraint violation, coordinates and reactions over time (non-unique dashed), events, "
                  "the uniqueness table")
      ->check([](const std::string& path) {
        return path.empty() ? std::string("--report needs a file name") : std::string();
      });
}

/// How the formulation runs: --threads, --coordinates, --continuation, --switching, --eliminate.
void addFormulationOptions(CLI::App* cmd, SimulateOptions* o) {
  cmd->add_option("--threads", o->request.threads,
                  "dca: threads sharing out its passes over the assembly tree (subtrees of 32 bodies or more; the "
                  "results are the same to the last bit for any number). Default: all cores")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--coordinates", o->request.coordinates,
                  "absolute (every body's own position and orientation) or relative (joint coordinates on the "
                  "spanning tree, `analyze --topology`: the tree joints hold exactly, the others stay constraints; "
                  "every method; dca and hdca always run in joint coordinates)")
      ->check(CLI::IsMember({"absolute", "relative"}))
      ->capture_default_str();
  cmd->add_option("--continuation", o->request.continuation,
                  "projection: continue the tangent basis along the motion (on), or refactorise it after every "
                  "step (off, for comparison)")
      ->transform(CLI::IsMember(std::map<std::string, bool>{{"on", true}, {"off", false}}))
      ->default_str("on");
  cmd->add_option("--switching", o->request.switching,
                  "partitioning: switch the independent coordinates when the projective criterion finds the set "
                  "degraded (on), or keep the initial set (off, for comparison)")
      ->transform(CLI::IsMember(std::map<std::string, bool>{{"on", true}, {"off", false}}))
      ->default_str("on");
  cmd->add_option("--eliminate", o->request.eliminate,
                  "Equations to eliminate, by name (e.g. C.y,W4); implies --method elimination. Default: chosen by "
                  "QR with column pivoting")
      ->delimiter(',');
}

/// The integrator, its tolerances and the checks; --reactions, --json.
void addIntegrationOptions(CLI::App* cmd, SimulateOptions* o) {
  cmd->add_option("--integrator", o->request.integrator, "dopri5 (like ode45), bs23 (ode23), adams (ode113), dop853 (ode89: tight tolerances), rk4 (fixed step)")
      ->check(CLI::IsMember({"dopri5", "bs23", "adams", "dop853", "rk4"}))
      ->capture_default_str();
  cmd->add_option("--rtol", o->request.rtol, "Relative tolerance of the bodies' positions and velocities, whatever the method and coordinates carry (docs/simulation.md)")->check(finiteNumber(true))->capture_default_str();
  cmd->add_option("--atol", o->request.atol, "Absolute tolerance (default: rtol / 100)")->check(finiteNumber(true));
  cmd->add_option("--max-step", o->request.max_step, "Largest step, s (0: no limit)")->check(finiteNumber(false));
  cmd->add_option("--step", o->request.step, "Step of rk4, s")->check(finiteNumber(true))->capture_default_str();
  cmd->add_option("--sample", o->request.sample, "Output interval, s (exact times, from the integrator's dense output)")
      ->check(finiteNumber(true))
      ->capture_default_str();
  cmd->add_option("--stabilization", o->request.stabilization,
                  "Constraint stabilisation: projection (after steps that drift), baumgarte, none")
      ->check(CLI::IsMember({"projection", "baumgarte", "none"}))
      ->capture_default_str();
  cmd->add_option("--baumgarte-alpha", o->request.baumgarte_alpha, "Baumgarte velocity gain 2 alpha, 1/s")
      ->check(finiteNumber(false))
      ->capture_default_str();
  cmd->add_option("--baumgarte-beta", o->request.baumgarte_beta, "Baumgarte position gain beta^2, 1/s")
      ->check(finiteNumber(false))
      ->capture_default_str();
  cmd->add_option("--projection-tolerance", o->request.projection_tolerance,
                  "Scaled constraint violation above which a step is projected (0: --rtol)")
      ->check(finiteNumber(false));
  cmd->add_option("--energy-tolerance", o->request.energy_tolerance,
                  "Largest drift of the energy balance, as a share of the energy scale, before the run counts as failed "
                  "(0: max(1e4 rtol, 1e-6); at most 0.01)")
      ->check(finiteNumber(false));
  cmd->add_option("--reactions", o->request.reactions, "Reaction columns: world (each pair's force and moment in world axes), joint (in the joint frame, <pair>@<body>.joint.*), all (both), none")
      ->check(CLI::IsMember({"all", "world", "joint", "none"}))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the summary as one JSON object");
}

}  // namespace

void addSimulateCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Forward dynamics from the assembled initial state, with joint reactions (unique or not) over time");
  cmd->add_option("model", o->model_path, "Model file (YAML)")->required();
  cmd->add_option("--t-end", o->request.t_end, "Simulated time, s")->required()->check(finiteNumber(true));
  cmd->add_option("--out", o->out_path, "Output table (CSV), one row per sample")->required();
  addMethodAndOutputOptions(cmd, o.get());
  addFormulationOptions(cmd, o.get());
  addIntegrationOptions(cmd, o.get());
  cmd->callback([o, &exit_code] { runSimulate(*o, exit_code); });
}

}  // namespace loopdyn::cli
