// The front door of inverse dynamics (include/loopdyn/inverse.hpp): the actuators become drivers
// that follow the trajectory's table.

#include "loopdyn/inverse.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "loopdyn/common/spelling.hpp"
#include "loopdyn/io/csv_table.hpp"
#include "actuators.hpp"
#include "row_matrix.hpp"

namespace loopdyn {

namespace {

using detail::Actuator;
using detail::resolveActuator;
using detail::targetOf;

[[noreturn]] void refuse(const std::string& field, const std::string& message) {
  throw InvalidArgument(field + ": " + message);
}

[[noreturn]] void tableError(const io::CsvTable& table, int line, const std::string& message) {
  throw ModelError({Diagnostic{SourceLocation{table.path, line, 1}, message}});
}

/// Column `name` of the table, or nothing.
const std::vector<Scalar>* column(const io::CsvTable& table, const std::string& name) {
  const int j = table.find(name);
  return j < 0 ? nullptr : &table.columns[static_cast<std::size_t>(j)];
}

/// The table's times: column t, increasing strictly, at least 4 rows (the trajectory's splines).
std::vector<Scalar> tableTimes(const io::CsvTable& table) {
  const std::vector<Scalar>* t = column(table, "t");
  if (!t) tableError(table, table.header_line, "no column 't' (the times)" + didYouMean("t", table.names));
  for (std::size_t i = 1; i < t->size(); ++i)
    if (!((*t)[i] > (*t)[i - 1]))
      tableError(table, table.lines[i], "the times must increase strictly (t = " + std::to_string((*t)[i]) + " after " +
                                            std::to_string((*t)[i - 1]) + ")");
  if (t->size() < 4) tableError(table, table.lines.back(), "a trajectory needs at least 4 rows (its splines' fewest)");
  return *t;
}

/// The driver on actuator a following the table's column JOINT.q1 (with JOINT.v1 its rates, if given).
DriverSpec trajectoryDriver(const ModelSpec& spec, const Actuator& a, const io::CsvTable& table,
                            const std::vector<Scalar>& times) {
  const std::vector<Scalar>* q = column(table, a.joint + ".q1");
  if (!q)
    tableError(table, table.header_line,
               "no column '" + a.joint + ".q1' (the coordinate of the actuated joint '" + a.joint + "')" +
                   didYouMean(a.joint + ".q1", table.names));
  const std::vector<Scalar>* v = column(table, a.joint + ".v1");
  const std::vector<Scalar>* acc = column(table, a.joint + ".a1");
  if (acc && !v)
    tableError(table, table.header_line,
               "column '" + a.joint + ".a1' (the accelerations) needs '" + a.joint + ".v1' (the rates) beside it");
  DriverSpec d;
  d.name = a.driver;
  d.target = targetOf(spec, a);
  d.joint = a.joint;
  d.profile = Profile::trajectory(times, *q, v ? *v : std::vector<Scalar>{}, acc ? *acc : std::vector<Scalar>{});
  d.where = SourceLocation{table.path, table.header_line, 1};
  return d;
}

/// The run's times without a table: from t0 to t_end every `sample` (the last one at t_end).
std::vector<Scalar> sampledTimes(Scalar t0, const InverseRequest& request) {
  if (!(request.t_end > t0) || !std::isfinite(request.t_end))
    refuse("t_end", "must be after the initial time " + std::to_string(t0) + " (or give a trajectory)");
  if (!(request.sample > 0) || !std::isfinite(request.sample)) refuse("sample", "must be positive");
  const double count = std::ceil((request.t_end - t0) / request.sample - 1e-9);
  if (count > 1e7) refuse("sample", "more than 10 million samples");
  std::vector<Scalar> times;
  for (long i = 0; i < static_cast<long>(count); ++i) times.push_back(t0 + static_cast<Scalar>(i) * request.sample);
  times.push_back(request.t_end);
  return times;
}

/// The index of actuator `name` among the drivers, or the request's field refused.
std::size_t driverIndex(const std::vector<std::string>& drivers, const std::string& name, const std::string& field) {
  const auto it = std::find(drivers.begin(), drivers.end(), name);
  if (it == drivers.end()) refuse(field, "'" + name + "' is not an actuator of the run" + didYouMean(name, drivers));
  return static_cast<std::size_t>(it - drivers.begin());
}

/// The request's resolution over the drivers (every name an actuator, constants positive, bounds
/// ordered; weighted needs constants and bounded limits).
EffortResolution effortResolution(const InverseRequest& request, const std::vector<std::string>& drivers) {
  EffortResolution r;
  if (request.resolution == "weighted") r.kind = EffortResolution::Kind::Weighted;
  else if (request.resolution == "bounded") r.kind = EffortResolution::Kind::Bounded;
  else if (request.resolution != "least-norm")
    refuse("resolution", "'" + request.resolution + "' is not one of least-norm, weighted, bounded" +
                             didYouMean(request.resolution, {"least-norm", "weighted", "bounded"}));
  if (r.kind == EffortResolution::Kind::Weighted && request.motor_constants.empty())
    refuse("motor_constants", "the weighted resolution needs the actuators' motor constants");
  if (r.kind == EffortResolution::Kind::Bounded && request.effort_limits.empty())
    refuse("effort_limits", "the bounded resolution needs the actuators' effort limits");
  if (r.kind != EffortResolution::Kind::Bounded && !request.effort_limits.empty())
    refuse("effort_limits", "limits are kept by the bounded resolution only");
  const Eigen::Index n = static_cast<Eigen::Index>(drivers.size());
  r.motor_constants = VecX::Ones(n);
  for (const auto& [name, k] : request.motor_constants) {
    if (!(k > 0) || !std::isfinite(k)) refuse("motor_constants", "'" + name + "' needs a positive finite constant");
    r.motor_constants(static_cast<Eigen::Index>(driverIndex(drivers, name, "motor_constants"))) = k;
  }
  r.lower = VecX::Constant(n, -std::numeric_limits<Scalar>::infinity());
  r.upper = VecX::Constant(n, std::numeric_limits<Scalar>::infinity());
  for (const auto& [name, bounds] : request.effort_limits) {
    if (std::isnan(bounds.first) || std::isnan(bounds.second) || !(bounds.first < bounds.second))
      refuse("effort_limits", "'" + name + "' needs a lower limit below its upper one");
    const Eigen::Index i = static_cast<Eigen::Index>(driverIndex(drivers, name, "effort_limits"));
    r.lower(i) = bounds.first, r.upper(i) = bounds.second;
  }
  return r;
}

}  // namespace

InverseSetup setUpInverse(const ModelSpec& spec_in, const InverseRequest& request) {
  ModelSpec spec = spec_in;
  std::vector<Actuator> actuators;
  for (const std::string& name : request.actuators) {
    if (std::any_of(actuators.begin(), actuators.end(), [&](const Actuator& a) { return a.driver == name || a.joint == name; }))
      refuse("actuators", "'" + name + "' is named twice");
    actuators.push_back(resolveActuator(spec, name));
    targetOf(spec, actuators.back());
  }
  std::vector<Scalar> times;
  if (!request.trajectory.empty()) {
    const io::CsvTable table = io::readCsvTable(request.trajectory);
    times = tableTimes(table);
    for (const Actuator& a : actuators) spec.drivers.push_back(trajectoryDriver(spec, a, table, times));
  } else if (!actuators.empty()) {
    refuse("actuators", "an actuator follows a trajectory: give one (a CSV with t and JOINT.q1 columns)");
  }
  InverseSetup setup{compile(std::move(spec)), {}, {}, {}, {}, {}, {}, {}};
  for (const Actuator& a : actuators) setup.drivers.push_back(a.driver);
  setup.options.resolution = effortResolution(request, driverNames(setup.model));
  State guess = initialState(setup.model);
  if (times.empty()) times = sampledTimes(guess.t, request);
  guess.t = times.front();
  KinematicsWorkspace kin(setup.model);
  AssemblyOptions assembly;
  assembly.keep_prescribed_velocities = false;
  setup.start = assemble(setup.model, kin, guess, assembly);
  setup.times = std::move(times);
  if (!setup.start.converged) return setup;  // (no uniqueness, no columns: there is no start)
  const ColumnOptions options = columnOptionsFor(request.columns, request.reactions, 0, false);
  setup.uniqueness = uniquenessMarks(setup.model, setup.start.state, options);
  setup.preloads = effortPreloads(setup.model, setup.start.state);
  setup.columns = std::make_unique<SampleColumns>(setup.model, setup.uniqueness, options);
  return setup;
}

InverseResult runInverse(const InverseSetup& setup, const std::function<void(const std::vector<double>&)>& on_row) {
  std::vector<double> row;
  const auto fill = [&](const Sample& sample) {
    setup.columns->fill(setup.model, sample, row);
    on_row(row);
  };
  return inverseDynamics(setup.model, setup.start.state, setup.times, fill, setup.options);
}

InverseTable inverseModel(const ModelSpec& spec, const InverseRequest& request) {
  InverseSetup setup = setUpInverse(spec, request);
  InverseTable out;
  out.drivers = driverNames(setup.model);
  out.start = setup.start;
  if (!setup.start.converged) {
    out.result.status = InverseStatus::AssemblyFailed;
    out.result.t = setup.times.front();
    out.result.assembly = setup.start.failure;
    return out;
  }
  out.columns = setup.columns->names();
  out.non_unique = setup.columns->nonUniqueNames();
  out.preloads = setup.preloads;
  std::vector<std::vector<double>> rows;
  out.result = runInverse(setup, [&](const std::vector<double>& row) { rows.push_back(row); });
  out.values = detail::rowMatrix(rows, out.columns.size());
  return out;
}

}  // namespace loopdyn
