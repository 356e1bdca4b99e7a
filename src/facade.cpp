#include "loopdyn/loopdyn.hpp"

#include <cmath>

#include "loopdyn/common/check.hpp"
#include "loopdyn/sim/formulation_choice.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/ode/integrator.hpp"
#include "loopdyn/sim/sample_columns.hpp"

namespace loopdyn {

const char* version() { return LOOPDYN_VERSION; }

Model loadModel(const std::string& path) { return compile(io::readModelFile(path)); }

Model modelFromYaml(const std::string& text, const std::string& file_name) {
  return compile(io::parseModel(text, file_name));
}

namespace {

Stabilization stabilizationNamed(const std::string& name) {
  if (name == "projection") return Stabilization::Projection;
  if (name == "baumgarte") return Stabilization::Baumgarte;
  LOOPDYN_CHECK(name == "none", "stabilization: expected projection, baumgarte or none, got '", name, "'");
  return Stabilization::None;
}

SimulationOptions simulationOptions(const SimulationRequest& request, const State& x0) {
  const auto integrator = ode::methodFromName(request.integrator);
  LOOPDYN_CHECK(integrator.has_value(), "integrator: unknown integrator '", request.integrator, "'");
  LOOPDYN_CHECK(std::isfinite(request.atol) && request.atol >= 0, "atol: must be 0 (rtol / 100) or a positive number");
  SimulationOptions options;
  options.t_end = x0.t + request.t_end;
  options.sample_interval = request.sample;
  options.integrator = *integrator;
  options.ode.rtol = request.rtol;
  options.ode.atol = request.atol > 0 ? request.atol : defaultAbsoluteTolerance(request.rtol);
  options.ode.fixed_step = request.step;
  options.ode.max_step = request.max_step;
  options.ode.max_steps = request.max_steps;
  options.stabilization = stabilizationNamed(request.stabilization);
  options.baumgarte_alpha = request.baumgarte_alpha;
  options.baumgarte_beta = request.baumgarte_beta;
  options.projection_tolerance = request.projection_tolerance;
  options.energy_tolerance = request.energy_tolerance;
  return options;
}

}  // namespace

SimulationSetup setUpSimulation(const Model& model, const State& x0, const SimulationRequest& request) {
  LOOPDYN_CHECK(request.threads >= 1 && request.threads <= 1024, "threads: must be from 1 to 1024");
  LOOPDYN_CHECK(request.max_steps >= 1, "max_steps: must be 1 or more");
  SimulationSetup setup;
  setup.options = simulationOptions(request, x0);
  FormulationChoice choice;
  choice.method = request.method;
  choice.coordinates = request.coordinates;
  choice.continuation = request.continuation;
  choice.switching = request.switching;
  choice.eliminate = request.eliminate;
  choice.threads = request.threads;
  BuiltFormulation built = buildFormulation(model, x0, choice);
  LOOPDYN_CHECK(built.formulation != nullptr, built.problem);
  setup.formulation = std::move(built.formulation);
  setup.eliminated = std::move(built.eliminated);
  setup.options.generic_rank = built.generic_rank;
  setup.options.regular_ratio = built.generic_ratio;
  return setup;
}

Trajectory simulateModel(const Model& model, const SimulationRequest& request) {
  std::vector<TrackedPoint> points = resolvePoints(model, request.points);  // a wrong name before any work
  Trajectory out;
  KinematicsWorkspace kin(model);
  const AssemblyResult assembled = assemble(model, kin, initialState(model));
  if (!assembled.converged) {
    out.result.fail(RunStatus::StartFailed, 0, assembled.message);
    return out;
  }
  const State& x0 = assembled.state;
  SimulationSetup setup = setUpSimulation(model, x0, request);
  if (const std::optional<OptionProblem> problem = simulationOptionsProblem(setup.options, x0.t))
    throw InvalidArgument(problem->option + ": " + problem->message);
  const std::unique_ptr<Formulation>& formulation = setup.formulation;
  SimulationOptions& options = setup.options;
  out.formulation = std::string(formulation->name());

  const ColumnOptions column_options =
      columnOptionsFor(request.columns, request.reactions, formulation->generalizedVelocityCount(model),
                       formulation->coordinates(model)->relative(), std::move(points));
  const SampleColumns columns(model, uniquenessMarks(model, x0, column_options), column_options);
  const double values = std::floor(request.t_end / request.sample + 1) * static_cast<double>(columns.names().size());
  LOOPDYN_CHECK(values <= kMaxTrajectoryValues, "sample: the trajectory would hold ", values,
                " values, more than the ", kMaxTrajectoryValues, " kept in memory: sample less often");
  options.multipliers = columns.needsMultipliers();
  out.columns = columns.names();
  out.non_unique = columns.nonUniqueNames();

  std::vector<std::vector<double>> rows;
  std::vector<double> row;
  out.result = simulate(model, *formulation, x0, options, [&](const Sample& sample, const DynamicsWorkspace&) {
    columns.fill(model, sample, row);
    rows.push_back(row);
  });
  out.values.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(out.columns.size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      out.values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  return out;
}

}  // namespace loopdyn
