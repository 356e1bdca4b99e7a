#include "loopdyn/dynamics/formulations/lagrange.hpp"

namespace loopdyn {

Problem LagrangeFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                         const Evaluation& how) const {
  CoordinateEquations& e = *equations_;
  if (Problem problem = e.gaussAllRows(model, ws, x, settings_, how.project, mu_); !problem.empty()) return problem;
  if (!ws.a.allFinite()) return {};  // (the simulation names the bodies)
  if (!how.multipliers) return {};
  e.gaussMultipliers(model, ws);
  // the rows' multipliers as reported (the least-norm choice where they are not unique)
  const std::vector<int>& rows = e.rows();
  for (std::size_t i = 0; i < rows.size(); ++i) mu_(static_cast<Eigen::Index>(i)) = ws.lambda(rows[i]);
  return {};
}

Scalar LagrangeFormulation::constraintPower(const DynamicsWorkspace& ws, const State&) const {
  return mu_.dot(equations_->b(ws));  // (b of the rows kept, at the last evaluation)
}

}  // namespace loopdyn
