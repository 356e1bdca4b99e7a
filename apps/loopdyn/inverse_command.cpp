// `loopdyn inverse`: the actuator efforts and joint reactions of a prescribed motion, marked
// unique or not, one CSV row per time (include/loopdyn/inverse.hpp).

#include <cmath>
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
  std::vector<std::string> motor_constants, effort_limits;  // NAME=K; NAME=MAX or NAME=LO:HI
};

/// A number of a NAME=... item, or nothing.
std::optional<Scalar> numberIn(const std::string& text) {
  std::size_t used = 0;
  try {
    const Scalar value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

/// --motor-constants and --effort-limits into the request; "" or what is wrong.
std::string readEffortOptions(InverseCommandOptions& o) {
  for (const std::string& item : o.motor_constants) {
    const std::size_t eq = item.rfind('=');
    const std::optional<Scalar> k = eq == std::string::npos ? std::nullopt : numberIn(item.substr(eq + 1));
    if (eq == 0 || !k) return "--motor-constants: '" + item + "' is not ACTUATOR=K";
    o.request.motor_constants[item.substr(0, eq)] = *k;
  }
  for (const std::string& item : o.effort_limits) {
    const std::size_t eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0) return "--effort-limits: '" + item + "' is not ACTUATOR=MAX or ACTUATOR=LO:HI";
    const std::string bounds = item.substr(eq + 1);
    const std::size_t colon = bounds.find(':');
    const std::optional<Scalar> lo = numberIn(colon == std::string::npos ? bounds : bounds.substr(0, colon));
    const std::optional<Scalar> hi = colon == std::string::npos ? lo : numberIn(bounds.substr(colon + 1));
    if (!lo || !hi) return "--effort-limits: '" + item + "' is not ACTUATOR=MAX or ACTUATOR=LO:HI";
    o.request.effort_limits[item.substr(0, eq)] = colon == std::string::npos ? std::pair{-std::abs(*lo), std::abs(*lo)}
                                                                            : std::pair{*lo, *hi};
  }
  return {};
}

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
  InverseRun run{setup.model.name(), o.model_path,           o.request.trajectory, o.out_path, driverNames(setup.model),
                 setup.columns->nonUniqueNames(), setup.preloads, setup.times.size(), {}};
  run.resolution = effortResolutionName(setup.options.resolution.kind);
  run.result = runInverse(setup, [&](const std::vector<double>& row) { csv.writeRow(row); });
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

void runInverseCommand(InverseCommandOptions& o, int& exit_code) {
  if (const std::string problem = readEffortOptions(o); !problem.empty()) {
    std::cerr << "loopdyn: error: " << problem << '\n';
    exit_code = kExitUsage;
    return;
  }
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
                  "CSV with a column t and, per actuated joint J, J.q1 (and optionally J.v1, with it J.a1): e.g. `simulate --columns "
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
  cmd->add_option("--resolution", o->request.resolution,
                  "The choice among redundant actuators' efforts: least-norm (smallest sum of squares), weighted (by "
                  "--motor-constants: the least sum of (effort / k)^2), bounded (the weighted choice within "
                  "--effort-limits; the run stops where none is)")
      ->check(CLI::IsMember({"least-norm", "weighted", "bounded"}))
      ->capture_default_str();
  cmd->add_option("--motor-constants", o->motor_constants, "Actuators' motor constants, e.g. drive1=0.5,drive2=2")
      ->delimiter(',');
  cmd->add_option("--effort-limits", o->effort_limits,
                  "Actuators' effort limits for --resolution bounded: ACTUATOR=MAX (|effort| <= MAX) or ACTUATOR=LO:HI, "
                  "comma-separated")
      ->delimiter(',');
  cmd->callback([o, &exit_code] { runInverseCommand(*o, exit_code); });
}

}  // namespace loopdyn::cli
