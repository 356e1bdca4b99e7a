#include "loopdyn/loopdyn.hpp"

#include <cmath>

#include "loopdyn/common/check.hpp"
#include "loopdyn/common/stage_clock.hpp"
#include "loopdyn/sim/formulation_choice.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/ode/integrator.hpp"
#include "loopdyn/sim/sample_columns.hpp"
#include "row_matrix.hpp"

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

/// The formulation the request chooses, into the setup (its name, eliminated equations, ranks).
void chooseFormulation(const Model& model, const State& x0, const SimulationRequest& request, SimulationSetup& setup) {
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
}

/// The rows' columns and the uniqueness that marks them, into the setup.
void chooseColumns(const Model& model, const State& x0, const SimulationRequest& request, const SetupNeeds& needs,
                   std::vector<TrackedPoint> points, SimulationSetup& setup) {
  const Formulation& formulation = *setup.formulation;
  ColumnOptions options = columnOptionsFor(request.columns, request.reactions,
                                           formulation.generalizedVelocityCount(model),
                                           formulation.coordinates(model)->relative(), std::move(points));
  options.mark_non_unique = needs.mark_non_unique;
  setup.uniqueness = uniquenessMarks(model, x0, options, needs.every_pair);
  setup.columns = std::make_unique<SampleColumns>(model, setup.uniqueness, options);
  setup.options.multipliers = setup.columns->needsMultipliers();
}

}  // namespace

SimulationSetup setUpSimulation(const Model& model, const State& x0, const SimulationRequest& request,
                                const SetupNeeds& needs) {
  LOOPDYN_CHECK(request.threads >= 1 && request.threads <= 1024, "threads: must be from 1 to 1024");
  LOOPDYN_CHECK(request.max_steps >= 1, "max_steps: must be 1 or more");
  std::vector<TrackedPoint> points = resolvePoints(model, request.points);  // a wrong name before any work
  const auto stage = [&](const char* name) {
    if (needs.stage) needs.stage(name);
  };
  LapTimer clock;
  SimulationSetup setup;
  setup.options = simulationOptions(request, x0);
  stage("choosing the formulation: the constraints' generic rank");
  chooseFormulation(model, x0, request, setup);
  if (const std::optional<OptionProblem> problem = simulationOptionsProblem(setup.options, x0.t))
    throw InvalidArgument(problem->option + ": " + problem->message);
  setup.formulation_seconds = clock.lap();
  stage("deciding which reactions are unique");
  chooseColumns(model, x0, request, needs, std::move(points), setup);
  setup.uniqueness_seconds = clock.lap();
  return setup;
}

SimulationResult runSimulation(const Model& model, SimulationSetup& setup, const State& x0,
                               const std::function<void(double t, const std::vector<double>& row)>& on_row) {
  std::vector<double> row;
  return simulate(model, *setup.formulation, x0, setup.options, [&](const Sample& sample, const DynamicsWorkspace&) {
    setup.columns->fill(model, sample, row);
    on_row(sample.x.t, row);
  });
}

void checkTrajectorySize(const SimulationRequest& request, std::size_t columns) {
  const double values = std::floor(request.t_end / request.sample + 1) * static_cast<double>(columns);
  LOOPDYN_CHECK(values <= kMaxTrajectoryValues, "sample: the trajectory would hold ", values,
                " values, more than the ", kMaxTrajectoryValues, " kept in memory: sample less often");
}

Trajectory simulateModel(const Model& model, const SimulationRequest& request) {
  resolvePoints(model, request.points);  // a wrong name before any work
  Trajectory out;
  KinematicsWorkspace kin(model);
  const AssemblyResult assembled = assemble(model, kin, initialState(model));
  if (!assembled.converged) {
    out.result.fail(RunStatus::StartFailed, 0, RunFailure::told(assembled.message));
    return out;
  }
  const State& x0 = assembled.state;
  SimulationSetup setup = setUpSimulation(model, x0, request);
  out.formulation = std::string(setup.formulation->name());
  out.columns = setup.columns->names();
  out.non_unique = setup.columns->nonUniqueNames();
  checkTrajectorySize(request, out.columns.size());

  std::vector<std::vector<double>> rows;
  out.result = runSimulation(model, setup, x0, [&](double, const std::vector<double>& row) { rows.push_back(row); });
  out.values = detail::rowMatrix(rows, out.columns.size());
  return out;
}

}  // namespace loopdyn
