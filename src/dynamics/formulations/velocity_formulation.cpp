#include "loopdyn/dynamics/formulations/velocity_formulation.hpp"

#include <limits>

#include "loopdyn/common/check.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"

namespace loopdyn {

Problem VelocityFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  const CoordinateEquations& e = equations(model, ws);
  State xs = x;
  if (Problem problem = e.carry(xs); !problem.empty()) return problem;
  e.bodyVelocities(xs);
  Evaluation how;
  how.multipliers = true;
  return solveAt(model, ws, xs, how);
}

Problem VelocityFormulation::begin(const Model& model, DynamicsWorkspace& ws, const State& x,
                                   Eigen::Ref<VecX> u) const {
  const CoordinateEquations& e = equations(model, ws);
  State xs = x;
  checkStateSize(model, xs);
  if (Problem problem = e.carry(xs); !problem.empty()) return problem;
  u = e.velocities(xs);
  return {};
}

Problem VelocityFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                          Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                          const Evaluation& how) const {
  const CoordinateEquations& e = equations(model, ws);
  e.velocities(x) = u;
  e.bodyVelocities(x);
  if (how.project) {
    if (Problem problem = projectState(model, ws, x, kProjectionTolerance, how.kinematics_at_x); !problem.empty())
      return problem;
    if (Problem problem = e.carry(x); !problem.empty()) return problem;
  }
  Problem problem = solveAt(model, ws, x, how);
  // (a failed solve may leave the accelerations unset: a mass matrix that is not positive definite
  // crashed the copy of an empty a_r into du; the fuzzer's mobile robot with a body of inertia 2e31)
  if (problem.empty()) du = e.accelerations(ws);
  else du.setConstant(std::numeric_limits<Scalar>::quiet_NaN());
  return problem;
}

Problem VelocityFormulation::velocities(const Model& model, DynamicsWorkspace& ws, State& x,
                                        Eigen::Ref<const VecX> u, Eigen::Ref<VecX>) const {
  const CoordinateEquations& e = equations(model, ws);
  e.velocities(x) = u;
  e.bodyVelocities(x);
  return {};
}

Formulation::StepOutcome VelocityFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step,
                                                        const State& x, Eigen::Ref<VecX> u) const {
  if (carriesVelocities() || !step.projected) return {};
  const CoordinateEquations& e = equations(model, ws);
  // the projected positions (the carried ones derived from them) with the velocities of the
  // step's end, then those velocities onto C v + b = 0 and back to the carried ones
  State xs = x;
  e.velocities(xs) = u;
  e.bodyVelocities(xs);
  evaluateConstraints(model, ws.kin, xs);
  projectVelocities(model, ws, xs);
  StepOutcome outcome;
  if (Problem problem = e.carry(xs); !problem.empty()) {
    outcome.failure = problem;  // (the run says when)
    return outcome;
  }
  u = e.velocities(xs);
  outcome.restart = true;
  return outcome;
}

}  // namespace loopdyn
