#include "simulation_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "loopdyn/analysis/independent_rows.hpp"
#include "loopdyn/io/csv_file.hpp"
#include "loopdyn/io/json_writer.hpp"
#include "event_text.hpp"
#include "failure_text.hpp"
#include "report_format.hpp"

namespace loopdyn::reports {

namespace {

std::string number(double x, const char* format = "%.3g") {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Scalar relativeDrift(const SimulationResult& r) {
  return r.energy_scale > 0 ? r.energy_drift_max / r.energy_scale : r.energy_drift_max;
}

}  // namespace

std::string columnsSidecarPath(const std::string& csv_path) {
  const std::string suffix = ".csv";
  const bool csv = csv_path.size() > suffix.size() && csv_path.compare(csv_path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (csv ? csv_path.substr(0, csv_path.size() - suffix.size()) : csv_path) + ".columns.json";
}

std::string columnsSidecar(const std::vector<std::string>& columns, const std::vector<std::string>& non_unique) {
  io::JsonWriter w;
  w.beginObject();
  w.key("columns").array(columns);
  w.key("non_unique").array(non_unique);
  w.endObject();
  return w.str() + '\n';
}

void collectWarnings(SimulationRun& run) {
  const SimulationResult& result = run.result;
  if (!result.passages.empty()) {
    const SingularPassage& first = result.passages.front();
    run.warnings.push_back("the motion passes " + std::to_string(result.passages.size()) +
                           " singular configuration(s), the first at t = " + number(first.t) + " s (rank " +
                           std::to_string(first.rank_regular) + " -> " + std::to_string(first.rank) +
                           "): there the non-unique marks (found on the regular motion) do not hold, and reactions are "
                           "ill-determined next to them");
  }
  const auto switches = std::count_if(result.events.begin(), result.events.end(),
                                      [](const RunEvent& e) { return e.kind == EventKind::EliminationSwitch; });
  const std::string choice =
      run.eliminated.empty() ? "the least-norm multipliers' choice"
      : switches == 0        ? "the choice made by eliminating " + joined(run.eliminated)
                             : "the choice made by eliminating " + joined(run.eliminated) + " and then other equations (" +
                            std::to_string(switches) + " elimination switches: they jump there)";
  if (run.non_unique_columns > 0)
    run.warnings.push_back(std::to_string(run.non_unique_columns) + " reaction columns are not unique (listed in " +
                           (run.out_path.empty() ? std::string("the run's non_unique") : columnsSidecarPath(run.out_path)) +
                           "): their values are " + choice +
                           ", not determined by the rigid model");
  for (const RunWarning& w : result.warnings) run.warnings.push_back(warningText(w));
}

namespace {

/// Every stage's wall time, the command's and the run's, in order: (name, seconds).
std::vector<std::pair<const char*, double>> stageSeconds(const SimulationRun& run) {
  const RunStageSeconds& s = run.result.stage_seconds;
  return {{"read", run.read_seconds},         {"compile", run.compile_seconds},
          {"assemble", run.assemble_seconds}, {"setup", run.setup_seconds},
          {"uniqueness", run.uniqueness_seconds}, {"start", s.start},
          {"integration", s.integration},     {"samples", s.samples},
          {"watch", s.watch},                 {"projections", s.projections},
          {"formulation", s.formulation},     {"checks", s.checks},
          {"output", run.output_seconds}};
}

}  // namespace

namespace {

/// The JSON's statistics: steps, right-hand sides, projections, wall time and its stages.
void writeStatistics(io::TreeWriter& w, const SimulationRun& run) {
  const SimulationResult& r = run.result;
  w.key("statistics").beginObject();
  w.key("steps").value(static_cast<double>(r.statistics.steps));
  w.key("rejected_steps").value(static_cast<double>(r.statistics.rejected_steps));
  w.key("rhs_evaluations").value(static_cast<double>(r.statistics.rhs_evaluations));
  w.key("projections").value(static_cast<double>(r.projections));
  w.key("projections_postponed").value(static_cast<double>(r.projections_postponed));
  w.key("wall_seconds").value(r.wall_seconds);
  w.key("stage_seconds").beginObject();
  for (const auto& [name, seconds] : stageSeconds(run)) w.key(name).value(seconds);
  w.endObject();
  w.endObject();
}

}  // namespace

std::string simulationText(const SimulationRun& run) {
  const SimulationResult& r = run.result;
  const SimulationOptions& o = run.options;
  std::ostringstream os;
  os << "loopdyn simulate: " << run.model->name() << " (" << run.model_path << ")\n";
  if (const std::string units = unitsText(run.model->units()); !units.empty())
    os << "  units           " << units << '\n';
  for (const std::string& line : run.assembly_changes) os << "  assembly        " << line << '\n';
  os << "  formulation     " << run.formulation;
  if (run.formulation == "lagrange") {
    os << " (least-norm multipliers)";
  }
  if (run.coordinates == "relative") {
    const Topology& t = run.model->topology();
    os << " in relative coordinates (" << t.nv << " joint velocities on the spanning tree; " << t.cut_joints.size()
       << " joint(s) outside it kept as constraints)";
  }
  if (run.formulation == "projection") {
    os << " (QR tangent basis, " << (run.continuation ? "continued along the motion" : "refactorised every step") << ")";
  }
  if (run.formulation == "partitioning")
    os << " (independent coordinates by the projective criterion, "
       << (run.switching ? "switched when degraded" : "kept from the start") << "; reactions by paper 003 eq. (38))";
  if (!run.eliminated.empty()) os << ", eliminated " << joined(run.eliminated) << " (reported as zero)";
  os << '\n';
  if (watchedBySingularValues(*run.model, o.generic_rank))
    os << "  linear algebra  sparse: " << run.model->nc() << " independent equations (" << kSparseRows
       << " or more): the start's analyses, the singularity watch (sigma_r / sigma_1) and passages on sparse "
          "matrices\n";
  if (run.formulation == "partitioning") {
    os << "  coordinates     {" << joined(run.independent_initial) << "} at the start";
    if (run.coordinate_switches > 0)
      os << ", {" << joined(run.independent_final) << "} at the end, " << run.coordinate_switches << " switch"
         << (run.coordinate_switches == 1 ? "" : "es");
    os << '\n';
  }
  os << "  integrator      " << run.integrator;
  if (o.integrator == ode::Method::Rk4)
    os << ", fixed step " << number(o.ode.fixed_step);
  else
    os << ", rtol " << number(o.ode.rtol) << ", atol " << number(o.ode.atol);
  os << "; stabilisation " << run.stabilization << '\n';
  os << "  time            0 .. " << number(o.t_end, "%g") << " s, sample every " << number(o.sample_interval, "%g")
     << " s\n";
  os << "  steps           " << r.statistics.steps << " accepted, " << r.statistics.rejected_steps << " rejected, "
     << r.statistics.rhs_evaluations << " right-hand sides, " << r.projections << " projections";
  if (r.projections_postponed > 0) os << " (" << r.projections_postponed << " postponed)";
  os << '\n';
  os << "  wall time       " << number(r.wall_seconds) << " s in the run; by stage:";
  for (const auto& [name, seconds] : stageSeconds(run)) os << ' ' << name << ' ' << number(seconds, "%.3g");
  os << " s\n";
  os << "  energy balance  drift " << number(r.energy_drift_max) << " J = " << number(relativeDrift(r))
     << " of the energy scale " << number(r.energy_scale) << " J\n";
  os << "  constraints     max violation " << number(r.max_position_violation) << " (position), "
     << number(r.max_velocity_violation) << " 1/s (velocity), scaled by L = "
     << number(run.model->characteristicLength()) << " m\n";
  if (r.ok) {
    os << "  output          " << run.out_path << ": " << r.samples << " rows x " << run.columns << " columns, "
       << run.non_unique_columns << " non-unique (" << columnsSidecarPath(run.out_path) << ")\n";
  } else {
    os << "  FAILED          " << failureText(r.failure) << "\n  output          " << io::failedPath(run.out_path) << " (the "
       << r.samples << " samples up to the failure; nothing under " << run.out_path << ")\n";
  }
  for (const RunEvent& e : r.events) os << "  event           " << eventText(*run.model, e) << '\n';
  for (const std::string& w : run.warnings) os << "warning: " << w << '\n';
  return os.str();
}

void writeSimulation(io::TreeWriter& w, const SimulationRun& run) {
  const SimulationResult& r = run.result;
  const SimulationOptions& o = run.options;
  w.beginObject();
  w.key("ok").value(r.ok);
  w.key("status").value(runStatusName(r.status));
  w.key("failure").value(failureText(r.failure));
  if (!r.ok) {
    w.key("failure_reason").value(failureReasonName(r.failure.reason));
    w.key("failure_time").value(r.failure_time);
  }
  w.key("model").value(run.model_path);
  w.key("units");
  writeUnits(w, run.model->units());
  w.key("output").value(r.ok ? run.out_path : std::string());
  w.key("formulation").value(run.formulation);
  w.key("coordinates").value(run.coordinates);
  w.key("linear_algebra").value(watchedBySingularValues(*run.model, o.generic_rank) ? "sparse" : "dense");
  w.key("eliminated_equations").array(run.eliminated);
  if (run.formulation == "partitioning") {
    w.key("independent_coordinates").beginObject();
    w.key("initial").array(run.independent_initial);
    w.key("final").array(run.independent_final);
    w.key("switches").value(run.coordinate_switches);
    w.endObject();
  }
  w.key("integrator").value(run.integrator);
  w.key("rtol").value(o.ode.rtol);
  w.key("atol").value(o.ode.atol);
  w.key("fixed_step").value(o.ode.fixed_step);
  w.key("stabilization").value(run.stabilization);
  w.key("t_end").value(o.t_end);
  w.key("sample_interval").value(o.sample_interval);
  w.key("samples").value(static_cast<int>(r.samples));
  w.key("columns").value(run.columns);
  w.key("assembly_changes").array(run.assembly_changes);
  w.key("non_unique_columns").value(run.non_unique_columns);
  w.key("non_unique").array(run.non_unique);
  writeStatistics(w, run);
  w.key("energy").beginObject();
  w.key("initial_balance").value(r.energy_initial);
  w.key("drift_max").value(r.energy_drift_max);
  w.key("scale").value(r.energy_scale);
  w.key("relative_drift").value(relativeDrift(r));
  w.endObject();
  w.key("violation").beginObject();
  w.key("position_max").value(r.max_position_violation);
  w.key("velocity_max").value(r.max_velocity_violation);
  w.endObject();
  w.key("generic_rank").value(r.generic_rank);
  w.key("singular_passages").beginArray();
  for (const SingularPassage& p : r.passages) {
    w.beginObject();
    w.key("t").value(p.t);
    w.key("rank").value(p.rank);
    w.key("new_motions").value(static_cast<int>(p.new_motions.cols()));
    w.key("branch_change").value(p.branch_change);
    w.key("at_rest").value(p.at_rest);
    w.endObject();
  }
  w.endArray();
  w.key("crossing_steps").value(static_cast<int>(r.crossing_steps));
  w.key("final_state").beginObject();
  w.key("t").value(r.final_state.t);
  w.key("q").beginArray();
  for (Eigen::Index k = 0; k < r.final_state.q.size(); ++k) w.value(r.final_state.q(k));
  w.endArray();
  w.key("v").beginArray();
  for (Eigen::Index k = 0; k < r.final_state.v.size(); ++k) w.value(r.final_state.v(k));
  w.endArray();
  w.endObject();
  w.key("events").beginArray();
  for (const RunEvent& e : r.events) writeEvent(w, *run.model, e);
  w.endArray();
  w.key("warnings").array(run.warnings);
  w.endObject();
}

std::string simulationJson(const SimulationRun& run) {
  io::JsonWriter w;
  writeSimulation(w, run);
  return w.str() + "\n";
}

}  // namespace loopdyn::reports
