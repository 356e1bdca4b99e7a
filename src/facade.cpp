#include "loopdyn/loopdyn.hpp"

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/formulation_choice.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/ode/integrator.hpp"
#include "loopdyn/sim/sample_columns.hpp"

namespace loopdyn {

const char* version() { return LOOPDYN_VERSION; }

Model loadModel(const std::string& path) { return compile(io::readModelFile(path)); }

Model modelFromYaml(const std::string& text, const std::string& file_name) {
  return compile(io::parseModel(text, file_name));
}

Analysis analyze(const Model& model, const RankOptions& rank_options, const UniquenessOptions& uniqueness_options) {
  Analysis out;
  KinematicsWorkspace ws(model);
  out.assembly = assemble(model, ws, initialState(model));
  if (!out.assembly.converged) return out;
  out.rank = analyzeConstraints(model, ws, out.assembly.state, rank_options);
  out.uniqueness = analyzeReactionUniqueness(model, ws, out.assembly.state, uniqueness_options);
  return out;
}

Trajectory simulateModel(const Model& model, const SimulationRequest& request) {
  LOOPDYN_CHECK(request.t_end > 0 && request.sample > 0 && request.rtol > 0 && request.atol >= 0,
                "t_end, sample and rtol must be positive, atol positive or 0 (rtol / 100)");
  const auto integrator = ode::methodFromName(request.integrator);
  LOOPDYN_CHECK(integrator.has_value(), "unknown integrator '", request.integrator, "'");
  Trajectory out;
  KinematicsWorkspace kin(model);
  const AssemblyResult assembled = assemble(model, kin, initialState(model));
  if (!assembled.converged) {
    out.result.fail(RunStatus::StartFailed, 0, assembled.message);
    return out;
  }
  const State& x0 = assembled.state;
  FormulationChoice choice;
  choice.method = request.method;
  choice.coordinates = request.coordinates;
  BuiltFormulation built = buildFormulation(model, x0, choice);
  LOOPDYN_CHECK(built.formulation != nullptr, built.problem);
  out.formulation = std::string(built.formulation->name());

  SimulationOptions options;
  options.t_end = x0.t + request.t_end;
  options.sample_interval = request.sample;
  options.integrator = *integrator;
  options.ode.rtol = request.rtol;
  options.ode.atol = request.atol > 0 ? request.atol : defaultAbsoluteTolerance(request.rtol);
  options.generic_rank = built.generic_rank;
  // the * marks as the CLI makes them: uniqueness at the initial state and near it (QR decides)
  UniquenessOptions uniqueness;
  uniqueness.methods = {UniquenessMethod::QR};
  const UniquenessReport flags = analyzeReactionUniquenessNear(model, kin, x0, uniqueness);
  ColumnOptions column_options;
  column_options.generalized_velocities = built.formulation->generalizedVelocityCount(model);
  column_options.joint_coordinates = built.formulation->coordinates(model)->relative();
  const SampleColumns columns(model, flags, column_options);
  options.multipliers = columns.needsMultipliers();
  out.columns = columns.names();
  out.non_unique = columns.nonUniqueNames();

  std::vector<std::vector<double>> rows;
  std::vector<double> row;
  out.result = simulate(model, *built.formulation, x0, options, [&](const Sample& sample, const DynamicsWorkspace&) {
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
