// `loopdyn inverse`: the actuator efforts and joint reactions of a prescribed motion, marked
// unique or not, one CSV row per time (include/loopdyn/inverse.hpp).

#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "inverse_summary.hpp"
#include "loopdyn/io/csv_file.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/loopdyn.hpp"
#include "number_checks.hpp"
#include "report_format.hpp"
#include "simulation_outputs.hpp"
#include "simulation_summary.hpp"
#include "standard_output.hpp"

namespace loopdyn::cli {

using namespace reports;

namespace {

struct InverseCommandOptions {
  std::string model_path, out_path;
  InverseRequest request;
};

/// The request set up on the model file; nothing (the problems printed, exit_code set) when it cannot be.
std::optional<InverseSetup> setUp(const InverseCommandOptions& o, int& exit_code) {
  try {
    InverseSetup setup = setUpInverse(io::readModelFile(o.model_path), o.request);
    for (const std::string& warning : setup.model.warnings()) std::cerr << warning << '\n';
    if (setup.start.converged) return setup;
    std::cerr << o.model_path << ": error: at t = " << formatNumber(setup.times.front())
              << ": " << setup.start.message << '\n';
    exit_code = kExitNumericalFailure;
  } catch (const ModelError& e) {
    for (const Diagnostic& d : e.diagnostics()) std::cerr << d.str() << '\n';
    exit_code = kExitModelError;
  } catch (const InvalidArgument& e) {
    std::cerr << "loopdyn: error: " << inCommandLineWords(e.what()) << '\n';
    exit_code = kExitUsage;
  }
  return std::nullopt;
}

/// Runs the set-up request into the opened files; the exit code.
int runInto(const InverseCommandOptions& o, InverseSetup& setup, io::CsvFile& csv, io::OutputFile& sidecar) {
  std::vector<double> row;
  InverseRun run{setup.model.name(), o.model_path,           o.request.trajectory, o.out_path, driverNames(setup.model),
                 setup.columns->nonUniqueNames(), setup.preloads, setup.times.size(), {}};
  run.result = inverseDynamics(setup.model, setup.start.state, setup.times, [&](const Sample& sample) {
    setup.columns->fill(setup.model, sample, row);
    csv.writeRow(row);
  });
  sidecar.write(columnsSidecar(setup.columns->names(), setup.columns->nonUniqueNames()));
  if (!writeStandardOutput(inverseText(run))) return kExitOutputError;
  if (!run.result.ok()) {
    // (the rows before the failure are kept beside the output, as simulate keeps them; none: no file)
    std::cerr << o.model_path << ": error: inverse dynamics failed: " << inverseFailureText(run.result, run.drivers);
    if (run.result.samples > 0) std::cerr << "; the rows up to there are in " << csv.commitFailed();
    std::cerr << '\n';
    return kExitNumericalFailure;
  }
  csv.commit();
  sidecar.commit();
  return kExitOk;
}

void runInverse(const InverseCommandOptions& o, int& exit_code) {
  std::string conflict = outputConflict(o.model_path, o.out_path, "");
  if (conflict.empty() && !o.request.trajectory.empty())
    conflict = outputConflict(o.request.trajectory, o.out_path, "");
  if (!conflict.empty()) {
    std::cerr << "loopdyn: error: " << conflict << '\n';
    exit_code = kExitUsage;
    return;
  }
  std::optional<InverseSetup> setup = setUp(o, exit_code);
  if (!setup) return;
  exit_code = kExitOutputError;
  try {
    io::CsvFile csv(o.out_path, setup->columns->names());
    io::OutputFile sidecar(columnsSidecarPath(o.out_path));
    exit_code = runInto(o, *setup, csv, sidecar);
  } catch (const io::OutputError& e) {
    std::cerr << "loopdyn: error: " << e.what() << '\n';
  }
}

}  // namespace

void addInverseCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<InverseCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inverse", "Inverse dynamics: the actuators' efforts and the joint reactions (unique or not) of a prescribed motion");
  cmd->add_option("model", o->model_path, "Model file (YAML)")->required();
  cmd->add_option("--out", o->out_path, "Output table (CSV), one row per time")->required();
  cmd->add_option("--actuators", o->request.actuators,
                  "Joint efforts (forces of type joint_effort) or revolute/prismatic joints whose efforts are sought, "
                  "comma-separated; each follows the trajectory's JOINT.q1 column. The model's drivers are "
                  "actuators too")
      ->delimiter(',');
  cmd->add_option("--trajectory", o->request.trajectory,
                  "CSV with a column t and, per actuated joint J, J.q1 (and optionally J.v1): e.g. `simulate --columns "
                  "joints` output; its times are the output's");
  cmd->add_option("--t-end", o->request.t_end, "Without --trajectory: the last time, s (the drivers' profiles)")
      ->check(finiteNumber(true));
  cmd->add_option("--sample", o->request.sample, "Without --trajectory: the output interval, s")
      ->check(finiteNumber(true))
      ->capture_default_str();
  cmd->add_option("--columns", o->request.columns,
                  "Column groups: bodies, violation, joints, reactions, efforts, energy (kinetic and potential; no "
                  "work is integrated); default: bodies, violation, reactions, efforts")
      ->delimiter(',');
  cmd->add_option("--reactions", o->request.reactions, "Reaction columns: world, joint, all, none")
      ->check(CLI::IsMember({"all", "world", "joint", "none"}))
      ->capture_default_str();
  cmd->callback([o, &exit_code] { runInverse(*o, exit_code); });
}

}  // namespace loopdyn::cli
