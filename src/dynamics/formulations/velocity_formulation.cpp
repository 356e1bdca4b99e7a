#include "loopdyn/dynamics/formulations/velocity_formulation.hpp"

#include <limits>

#include "loopdyn/common/check.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"

namespace loopdyn {

std::unique_ptr<Coordinates> VelocityFormulation::coordinates(const Model& model) const {
  return equations_->coordinates(model);
}

Problem VelocityFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  State xs = x;
  if (Problem problem = equations_->carry(xs); !problem.empty()) return problem;
  equations_->bodyVelocities(xs);
  Evaluation how;
  how.multipliers = true;
  return solveAt(model, ws, xs, how);
}

Problem VelocityFormulation::begin(const Model& model, DynamicsWorkspace&, const State& x, Eigen::Ref<VecX> u) {
  State xs = x;
  checkStateSize(model, xs);
  if (Problem problem = equations_->carry(xs); !problem.empty()) return problem;
  u = equations_->velocities(xs);
  return {};
}

Problem VelocityFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                          Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                          const Evaluation& how) const {
  equations_->velocities(x) = u;
  equations_->bodyVelocities(x);
  if (how.project) {
    if (Problem problem = projectState(model, ws, x, kProjectionTolerance, how.kinematics_at_x); !problem.empty())
      return problem;
    if (Problem problem = equations_->carry(x); !problem.empty()) return problem;
  }
  Problem problem = solveAt(model, ws, x, how);
  // (a failed solve may leave the accelerations unset: a mass matrix that is not positive definite
  // crashed the copy of an empty a_r into du; the fuzzer's mobile robot with a body of inertia 2e31)
  if (problem.empty()) du = equations_->accelerations(ws);
  else du.setConstant(std::numeric_limits<Scalar>::quiet_NaN());
  return problem;
}

Problem VelocityFormulation::velocities(const Model&, DynamicsWorkspace&, State& x, Eigen::Ref<const VecX> u,
                                            Eigen::Ref<VecX>) const {
  equations_->velocities(x) = u;
  equations_->bodyVelocities(x);
  return {};
}

Formulation::StepOutcome VelocityFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step,
                                                        const State& x, Eigen::Ref<VecX> u) {
  if (carriesVelocities() || !step.projected) return {};
  // the projected positions (the carried ones derived from them) with the velocities of the
  // step's end, then those velocities onto C v + b = 0 and back to the carried ones
  State xs = x;
  equations_->velocities(xs) = u;
  equations_->bodyVelocities(xs);
  evaluateConstraints(model, ws.kin, xs);
  projectVelocities(model, ws, xs);
  StepOutcome outcome;
  if (Problem problem = equations_->carry(xs); !problem.empty()) {
    outcome.failure = problem;  // (the run says when)
    return outcome;
  }
  u = equations_->velocities(xs);
  outcome.restart = true;
  return outcome;
}

}  // namespace loopdyn
