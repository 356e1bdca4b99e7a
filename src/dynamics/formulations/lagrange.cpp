#include "loopdyn/dynamics/formulations/lagrange.hpp"

namespace loopdyn {

std::unique_ptr<FormulationData> LagrangeFormulation::makeData(const Model& model) const {
  std::unique_ptr<Data> data = makeDataAs<Data>(model);
  data->mu.setZero(static_cast<Eigen::Index>(layout_.rows.size()));
  return data;
}

Problem LagrangeFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                     const Evaluation& how) const {
  Data& d = dataAs<Data>(model, ws);
  CoordinateEquations& e = *d.equations;
  if (Problem problem = e.gaussAllRows(model, ws, x, d.settings, how.project, d.mu); !problem.empty()) return problem;
  if (!ws.a.allFinite()) return {};  // (the simulation names the bodies)
  if (!how.multipliers) return {};
  e.gaussMultipliers(model, ws);
  // the rows' multipliers as reported (the least-norm choice where they are not unique)
  const std::vector<int>& rows = e.rows();
  for (std::size_t i = 0; i < rows.size(); ++i) d.mu(static_cast<Eigen::Index>(i)) = ws.lambda(rows[i]);
  return {};
}

Scalar LagrangeFormulation::constraintPower(const DynamicsWorkspace& ws, const State&) const {
  const Data& d = dataAs<Data>(ws);
  return d.mu.dot(d.equations->b(ws));  // (b of the rows kept, at the last evaluation)
}

}  // namespace loopdyn
