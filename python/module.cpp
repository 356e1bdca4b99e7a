// The Python module loopdyn (pybind11): load a model, analyze it (the fields of `loopdyn analyze
// --json`), simulate it (numpy arrays per column, the same numbers as the CSV of `loopdyn
// simulate`). python/loopdyn/__init__.pyi documents the API; python/tests checks it.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyze_report.hpp"
#include "inverse_summary.hpp"
#include "criterion_sweep_report.hpp"
#include "event_text.hpp"
#include "failure_text.hpp"
#include "loopdyn/common/stage_clock.hpp"
#include "loopdyn/actuation_analysis.hpp"
#include "loopdyn/criterion_sweep.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/io/output_file.hpp"
#include "loopdyn/io/tree_writer.hpp"
#include "loopdyn/loopdyn.hpp"
#include "simulation_job.hpp"

namespace py = pybind11;

namespace {

/// A report built as Python objects -- dicts (keys in the order written), lists, str, float, int,
/// bool, None for null and non-finite numbers: what json.loads makes of the report's JSON text,
/// without the text (reports/ write each report's shape once, for both).
class PythonObjectWriter final : public loopdyn::io::TreeWriter {
 public:
  py::object result() const { return root_; }

 private:
  void openObject() override { open(py::dict()); }
  void closeObject() override { open_.pop_back(); }
  void openArray() override { open(py::list()); }
  void closeArray() override { open_.pop_back(); }
  void writeKey(const std::string& name) override { key_ = name; }
  void writeString(const std::string& s) override { put(py::str(s)); }
  void writeNumber(double x) override { put(std::isfinite(x) ? py::object(py::float_(x)) : py::object(py::none())); }
  void writeInteger(int x) override { put(py::int_(x)); }
  void writeBool(bool b) override { put(py::bool_(b)); }
  void writeNull() override { put(py::none()); }

  void open(const py::object& container) {
    put(container);
    open_.push_back(container);
  }
  void put(const py::object& value) {
    if (open_.empty())
      root_ = value;
    else if (py::isinstance<py::dict>(open_.back()))
      py::reinterpret_borrow<py::dict>(open_.back())[py::str(key_)] = value;
    else
      py::reinterpret_borrow<py::list>(open_.back()).append(value);
  }
  std::vector<py::object> open_;  // the containers not yet closed, innermost last
  py::object root_;
  std::string key_;
};

/// A model whose initial configuration cannot be assembled (loopdyn.AssemblyError, with the
/// failure's code as `kind` and the pairs it names as `pairs`).
struct AssemblyFailed : std::runtime_error {
  AssemblyFailed(const std::string& message, const loopdyn::AssemblyFailure& failure)
      : std::runtime_error(message), failure(failure) {}
  loopdyn::AssemblyFailure failure;
};

/// The model, its file's contents (a sweep compiles them again with a driver) and its file's name.
struct PyModel {
  loopdyn::Model model;
  loopdyn::ModelSpec spec;
  std::string path;
};

/// A model whose file the reader warned of: each warning as a Python UserWarning.
PyModel warnedModel(loopdyn::ModelSpec spec, const std::string& path) {
  loopdyn::Model model = loopdyn::compile(spec);
  for (const std::string& w : model.warnings())
    if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 2) < 0) throw py::error_already_set();
  return PyModel{std::move(model), std::move(spec), path};
}

/// What analyze computes, checked before any work in the library's words (the argument's name
/// first): the ranges the command line enforces (--samples, --threshold, --uniqueness-threshold).
loopdyn::reports::AnalysisSettings analysisSettings(const PyModel& m, int samples, const std::string& method,
                                                    double threshold, double uniqueness_threshold,
                                                    const std::string& coordinates, const std::vector<std::string>& groups) {
  loopdyn::reports::AnalysisSettings settings;
  settings.rank.generic_samples = samples;
  settings.rank.rank_threshold = threshold;
  settings.uniqueness.methods = loopdyn::uniquenessMethods(m.model, method);
  if (settings.uniqueness.methods.empty())
    throw loopdyn::InvalidArgument("method: expected auto, all, rank, qr, svd or nullspace, got '" + method + "'");
  settings.uniqueness.rank_threshold = threshold;
  settings.uniqueness.uniqueness_threshold = uniqueness_threshold;
  for (const auto& problem : {loopdyn::rankOptionsProblem(settings.rank), loopdyn::uniquenessOptionsProblem(settings.uniqueness)})
    if (problem) throw loopdyn::InvalidArgument(problem->option + ": " + problem->message);
  if (coordinates != "absolute" && coordinates != "relative")
    throw loopdyn::InvalidArgument("coordinates: expected absolute or relative, got '" + coordinates + "'");
  settings.relative = coordinates == "relative";
  if (const std::vector<std::string> problems = loopdyn::resolveGroups(m.model, groups, settings.uniqueness.extra_groups);
      !problems.empty()) {
    std::string message = "groups: " + problems.front();
    for (std::size_t i = 1; i < problems.size(); ++i) message += "; " + problems[i];
    throw loopdyn::InvalidArgument(message);
  }
  return settings;
}

/// The sweep `text` asks for ("JOINT.angle=FROM:TO:POINTS"), checked (InvalidArgument "sweep: ...").
loopdyn::SweepRequest sweepRequest(const PyModel& m, const std::string& text, const std::string& csv_path) {
  loopdyn::SweepRequest request;
  if (const std::string problem = loopdyn::parseSweep(text, request); !problem.empty())
    throw loopdyn::InvalidArgument("sweep: '" + text + "': " + problem);
  if (!csv_path.empty() && loopdyn::io::sameFile(csv_path, m.path))
    throw loopdyn::InvalidArgument("sweep_csv: '" + csv_path + "' is the model file: an output never replaces its model");
  return request;
}

/// The sweep from the assembled state; its CSV written when csv_path names one (not yet committed).
loopdyn::CriterionSweep sweptCriterion(const PyModel& m, const loopdyn::State& start, const loopdyn::SweepRequest& request,
                                       const std::string& csv_path, std::optional<loopdyn::io::CsvFile>& csv) {
  loopdyn::CriterionSweep sweep;
  try {
    sweep = loopdyn::sweepCriterion(m.spec, m.model, start, request);
  } catch (const loopdyn::InvalidArgument& e) {
    throw loopdyn::InvalidArgument("sweep: " + std::string(e.what()));
  }
  if (!csv_path.empty()) {
    csv.emplace(csv_path, loopdyn::reports::sweepCsvHeader(m.model, request));
    loopdyn::reports::writeSweepRows(*csv, m.model, sweep);
  }
  return sweep;
}

py::object analyzeModel(const PyModel& m, int samples, const std::string& method, double threshold,
                        double uniqueness_threshold, bool criterion, bool motions, bool topology,
                        const std::string& coordinates, const std::vector<std::string>& groups,
                        const std::string& sweep, const std::string& sweep_csv,
                        const std::vector<std::string>& actuators) {
  loopdyn::reports::AnalysisSettings settings =
      analysisSettings(m, samples, method, threshold, uniqueness_threshold, coordinates, groups);
  const bool actuation = !actuators.empty(), actuation_sweep = actuation && !sweep.empty();
  if (actuation_sweep && criterion)
    throw loopdyn::InvalidArgument("sweep: with criterion it sweeps the criterion, with actuators the actuation: give one");
  if (actuation_sweep && !sweep_csv.empty())
    throw loopdyn::InvalidArgument("sweep_csv: it writes the criterion's sweep; the actuation's is in the report");
  settings.criterion = criterion || (!sweep.empty() && !actuation);  // (a sweep tabulates the criterion)
  settings.motions = motions;
  settings.topology = topology;
  const loopdyn::SweepRequest request = sweep.empty() ? loopdyn::SweepRequest{} : sweepRequest(m, sweep, sweep_csv);
  loopdyn::reports::AnalysisResults results;
  std::optional<loopdyn::io::CsvFile> csv;
  {
    py::gil_scoped_release release;  // a large model's analysis need not hold other Python threads
    loopdyn::KinematicsWorkspace ws(m.model);
    const loopdyn::AssemblyResult assembly = loopdyn::assemble(m.model, ws, loopdyn::initialState(m.model));
    if (!assembly.converged) throw AssemblyFailed(m.path + ": " + assembly.message, assembly.failure);
    std::optional<loopdyn::CriterionSweep> swept;
    if (!sweep.empty() && !actuation) swept = sweptCriterion(m, assembly.state, request, sweep_csv, csv);
    results = loopdyn::reports::computeAnalysis(m.model, assembly, m.path, settings);
    results.sweep = std::move(swept);
    if (actuation) {
      loopdyn::ActuationRequest wanted{actuators, request};
      results.actuation = loopdyn::analyzeActuation(m.spec, wanted);
      results.actuation_sweep = request;
    }
    if (csv) csv->commit();
  }
  // the object `loopdyn analyze --json` prints, as Python objects
  PythonObjectWriter report;
  loopdyn::reports::writeAnalysis(report, results);
  return report.result();
}

/// Each column's samples as a numpy array, by name.
py::dict columnArrays(const std::vector<std::string>& names, const std::vector<std::vector<double>>& rows) {
  py::dict columns;
  for (std::size_t j = 0; j < names.size(); ++j) {
    py::array_t<double> values(static_cast<py::ssize_t>(rows.size()));
    auto out = values.mutable_unchecked<1>();
    for (std::size_t i = 0; i < rows.size(); ++i) out(static_cast<py::ssize_t>(i)) = rows[i][j];
    columns[py::str(names[j])] = values;
  }
  return columns;
}

/// What loopdyn.Simulation holds of a run (python/loopdyn/__init__.py).
py::dict simulationFields(const loopdyn::Model& model, const loopdyn::SimulationResult& result) {
  py::dict out;
  out["ok"] = result.ok;
  out["status"] = loopdyn::runStatusName(result.status);
  out["failure"] = loopdyn::reports::failureText(result.failure);
  out["failure_reason"] = result.ok ? "" : loopdyn::failureReasonName(result.failure.reason);
  out["failure_time"] = result.failure_time;
  // every event as the CLI's JSON writes it (kind, t, text and its kind's fields), as a dict
  PythonObjectWriter events;
  events.beginArray();
  for (const loopdyn::RunEvent& e : result.events) loopdyn::reports::writeEvent(events, model, e);
  events.endArray();
  out["events"] = events.result();
  py::list passages;
  for (const loopdyn::SingularPassage& p : result.passages) passages.append(p.t);
  out["passages"] = passages;
  out["energy_drift"] = result.energy_drift_max;
  out["energy_scale"] = result.energy_scale;
  out["max_position_violation"] = result.max_position_violation;
  out["max_velocity_violation"] = result.max_velocity_violation;
  out["steps"] = result.statistics.steps;
  out["rhs_evaluations"] = result.statistics.rhs_evaluations;
  const loopdyn::RunStageSeconds& s = result.stage_seconds;
  py::dict stages;
  for (const auto& [name, seconds] : {std::pair{"start", s.start}, {"integration", s.integration}, {"samples", s.samples},
                                      {"watch", s.watch}, {"projections", s.projections},
                                      {"formulation", s.formulation}, {"checks", s.checks}})
    stages[name] = seconds;
  out["stage_seconds"] = stages;
  return out;
}

/// A run that did not start: the model's initial configuration cannot be assembled (nothing written).
py::dict unassembledRun(const PyModel& m, const loopdyn::SimulationRequest& request,
                        const loopdyn::AssemblyResult& assembly) {
  loopdyn::resolvePoints(m.model, request.points);  // (a wrong name is the request's problem first)
  loopdyn::SimulationResult result;
  result.fail(loopdyn::RunStatus::StartFailed, 0, loopdyn::RunFailure::told(assembly.message));
  py::dict out = simulationFields(m.model, result);
  out["formulation"] = "";
  out["columns"] = py::dict();
  return out;
}

/// loopdyn.simulate: the command line's run (reports/simulation_job.hpp) with the rows kept, and
/// the CSV and the page written when out and report name them.
py::dict simulateModel(const PyModel& m, const loopdyn::SimulationRequest& request, const std::string& out_path,
                       const std::string& report_path, bool mark_non_unique) {
  if (const std::string conflict = loopdyn::reports::outputConflict(m.path, out_path, report_path, {"out", "report"});
      !conflict.empty())
    throw loopdyn::InvalidArgument(conflict);
  std::optional<loopdyn::reports::SimulationJob> job;
  {
    py::gil_scoped_release release;  // a long run need not hold other Python threads
    loopdyn::LapTimer clock;
    loopdyn::KinematicsWorkspace ws(m.model);
    const loopdyn::AssemblyResult assembly = loopdyn::assemble(m.model, ws, loopdyn::initialState(m.model));
    if (!assembly.converged) {
      py::gil_scoped_acquire acquire;
      return unassembledRun(m, request, assembly);
    }
    job.emplace(m.model, assembly, loopdyn::reports::LoadSeconds{0, 0, clock.lap()},
                loopdyn::reports::SimulationFiles{m.path, out_path, report_path}, request,
                loopdyn::SetupNeeds{mark_non_unique, false, {}});
    loopdyn::checkTrajectorySize(request, job->columns().names().size());
    job->openOutputs();
    job->run(true);
    job->commit();
  }
  py::dict out = simulationFields(m.model, job->summary().result);
  out["formulation"] = job->summary().formulation;
  out["columns"] = columnArrays(job->columns().names(), job->rows());
  out["non_unique"] = job->columns().nonUniqueNames();
  out["warnings"] = job->summary().warnings;
  PythonObjectWriter summary;  // the object `loopdyn simulate --json` prints
  loopdyn::reports::writeSimulation(summary, job->summary());
  out["summary"] = summary.result();
  out["out"] = job->csvPath();
  out["report"] = job->reportPath();
  return out;
}

/// loopdyn.inverse: the library's inverse dynamics (loopdyn/inverse.hpp) with every row kept.
py::dict inverseModel(const PyModel& m, const std::vector<std::string>& actuators, const std::string& trajectory,
                      double t_end, double sample, const std::vector<std::string>& columns, const std::string& reactions,
                      const std::string& resolution, const std::map<std::string, double>& motor_constants,
                      const std::map<std::string, std::pair<double, double>>& effort_limits) {
  loopdyn::InverseRequest request;
  request.resolution = resolution;
  request.motor_constants = motor_constants;
  request.effort_limits = effort_limits;
  request.actuators = actuators;
  request.trajectory = trajectory;
  request.t_end = t_end;
  request.sample = sample;
  if (!columns.empty()) request.columns = columns;
  request.reactions = reactions;
  loopdyn::InverseTable table;
  {
    py::gil_scoped_release release;
    table = loopdyn::inverseModel(m.spec, request);
  }
  py::dict out;
  const loopdyn::InverseResult& r = table.result;
  out["ok"] = r.ok();
  out["status"] = loopdyn::reports::inverseStatusName(r.status);
  out["failure"] = loopdyn::reports::inverseFailureText(r, table.drivers);
  out["failure_time"] = r.ok() ? 0.0 : r.t;
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(table.values.rows()));
  for (Eigen::Index i = 0; i < table.values.rows(); ++i)
    rows[static_cast<std::size_t>(i)].assign(table.values.row(i).begin(), table.values.row(i).end());
  out["columns"] = columnArrays(table.columns, rows);
  out["non_unique"] = table.non_unique;
  out["drivers"] = table.drivers;
  const auto overDrivers = [&](const std::vector<loopdyn::VecX>& vectors) {  // each a dict driver -> coefficient
    py::list list;
    for (const loopdyn::VecX& p : vectors) {
      py::dict d;
      for (std::size_t i = 0; i < table.drivers.size(); ++i) d[py::str(table.drivers[i])] = p(static_cast<Eigen::Index>(i));
      list.append(d);
    }
    return list;
  };
  out["preloads"] = overDrivers(table.preloads);
  out["unbounded_efforts"] = overDrivers(r.unbounded_efforts);
  out["max_position_residual"] = r.max_position_residual;
  out["max_velocity_residual"] = r.max_velocity_residual;
  out["max_acceleration_residual"] = r.max_acceleration_residual;
  out["max_continuity_miss"] = r.max_continuity_miss;
  return out;
}

/// The library's request, field by field (its checks are the library's, as the CLI's).
void bindRequest(py::module_& mod) {
  py::class_<loopdyn::SimulationRequest>(mod, "_Request", "loopdyn::SimulationRequest (loopdyn.hpp)")
      .def(py::init<>())
      .def_readwrite("t_end", &loopdyn::SimulationRequest::t_end)
      .def_readwrite("sample", &loopdyn::SimulationRequest::sample)
      .def_readwrite("method", &loopdyn::SimulationRequest::method)
      .def_readwrite("coordinates", &loopdyn::SimulationRequest::coordinates)
      .def_readwrite("integrator", &loopdyn::SimulationRequest::integrator)
      .def_readwrite("rtol", &loopdyn::SimulationRequest::rtol)
      .def_readwrite("atol", &loopdyn::SimulationRequest::atol)
      .def_readwrite("step", &loopdyn::SimulationRequest::step)
      .def_readwrite("max_step", &loopdyn::SimulationRequest::max_step)
      .def_readwrite("stabilization", &loopdyn::SimulationRequest::stabilization)
      .def_readwrite("threads", &loopdyn::SimulationRequest::threads)
      .def_readwrite("columns", &loopdyn::SimulationRequest::columns)
      .def_readwrite("reactions", &loopdyn::SimulationRequest::reactions)
      .def_readwrite("points", &loopdyn::SimulationRequest::points)
      .def_readwrite("max_steps", &loopdyn::SimulationRequest::max_steps)
      .def_readwrite("continuation", &loopdyn::SimulationRequest::continuation)
      .def_readwrite("switching", &loopdyn::SimulationRequest::switching)
      .def_readwrite("eliminate", &loopdyn::SimulationRequest::eliminate)
      .def_readwrite("baumgarte_alpha", &loopdyn::SimulationRequest::baumgarte_alpha)
      .def_readwrite("baumgarte_beta", &loopdyn::SimulationRequest::baumgarte_beta)
      .def_readwrite("projection_tolerance", &loopdyn::SimulationRequest::projection_tolerance)
      .def_readwrite("energy_tolerance", &loopdyn::SimulationRequest::energy_tolerance);
}
}  // namespace

PYBIND11_MODULE(_loopdyn, mod) {
  mod.doc() = "loopdyn: rigid multibody systems with closed loops and redundant constraints";
  mod.attr("__version__") = loopdyn::version();
  py::register_exception<loopdyn::ModelError>(mod, "ModelError", PyExc_ValueError);
  py::register_exception<loopdyn::InvalidArgument>(mod, "InvalidArgument", PyExc_ValueError);
  static py::exception<AssemblyFailed> assembly_error(mod, "AssemblyError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const AssemblyFailed& e) {
      py::object error = py::reinterpret_borrow<py::object>(assembly_error.ptr())(e.what());
      error.attr("kind") = loopdyn::assemblyFailureName(e.failure.kind);
      py::list pairs;
      for (const loopdyn::NamedMisfit& m : e.failure.misfits) pairs.append(m.name);
      error.attr("pairs") = pairs;
      PyErr_SetObject(assembly_error.ptr(), error.ptr());
    }
  });
  py::register_exception<loopdyn::io::OutputError>(mod, "OutputError", PyExc_OSError);

  py::class_<PyModel>(mod, "Model", "A compiled, immutable mechanism.")
      .def_static(
          "from_yaml",
          [](const std::string& text, const std::string& name) { return warnedModel(loopdyn::io::parseModel(text, name), name); },
          py::arg("text"), py::arg("name") = "<yaml>", "A model from YAML text; ModelError names the line.")
      .def_property_readonly("name", [](const PyModel& m) { return m.model.name(); })
      .def_property_readonly("dimension", [](const PyModel& m) { return m.model.dimension(); })
      .def_property_readonly("n", [](const PyModel& m) { return m.model.nv(); }, "velocity coordinates")
      .def_property_readonly("m", [](const PyModel& m) { return m.model.m(); }, "holonomic equations")
      .def_property_readonly("h", [](const PyModel& m) { return m.model.h(); }, "nonholonomic equations")
      .def_property_readonly("bodies",
                             [](const PyModel& m) {
                               std::vector<std::string> names;
                               for (const loopdyn::Body& b : m.model.bodies()) names.push_back(b.name);
                               return names;
                             })
      .def_property_readonly("units",
                             [](const PyModel& m) {
                               const loopdyn::Units& u = m.model.units();
                               py::dict d;
                               for (const auto& [key, unit] : {std::pair{"length", &u.length}, {"angle", &u.angle},
                                                               {"mass", &u.mass}, {"time", &u.time}, {"force", &u.force}})
                                 d[key] = unit->name;
                               return d;
                             },
                             "the units the file declared (every number loopdyn gives back is SI)")
      .def_property_readonly("warnings", [](const PyModel& m) { return m.model.warnings(); },
                             "what the reader warned of, file:line:col: warning: ...")
      .def_property_readonly("pairs",
                             [](const PyModel& m) {
                               std::vector<std::string> names;
                               for (const loopdyn::Pair& p : m.model.pairs()) names.push_back(p.name);
                               return names;
                             })
      .def("_analyze", &analyzeModel, py::arg("samples") = loopdyn::RankOptions{}.generic_samples,
           py::arg("method") = "auto", py::arg("threshold") = loopdyn::kRankThreshold,
           py::arg("uniqueness_threshold") = loopdyn::kUniquenessThreshold, py::arg("criterion") = false,
           py::arg("motions") = false, py::arg("topology") = false, py::arg("coordinates") = "absolute",
           py::arg("groups") = std::vector<std::string>{}, py::arg("sweep") = "", py::arg("sweep_csv") = "",
           py::arg("actuators") = std::vector<std::string>{}, "The report of `loopdyn analyze --json` as Python objects.")
      .def("__repr__", [](const PyModel& m) {
        return "<loopdyn.Model '" + m.model.name() + "': " + std::to_string(m.model.nb()) + " bodies, n = " +
               std::to_string(m.model.nv()) + ">";
      });

  mod.def(
      "load", [](const std::string& path) { return warnedModel(loopdyn::io::readModelFile(path), path); }, py::arg("path"),
      "Reads and compiles a model file; ModelError lists every problem as file:line:col; what looks wrong but "
      "is not an error (an angle that looks like degrees) is a UserWarning.");
  bindRequest(mod);
  mod.def("_inverse", &inverseModel, py::arg("model"), py::arg("actuators"), py::arg("trajectory"), py::arg("t_end"),
          py::arg("sample"), py::arg("columns"), py::arg("reactions"), py::arg("resolution"),
          py::arg("motor_constants"), py::arg("effort_limits"));
  mod.def("_simulate", &simulateModel, py::arg("model"), py::arg("request"), py::arg("out") = "",
          py::arg("report") = "", py::arg("mark_non_unique") = false);
}
