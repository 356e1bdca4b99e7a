#include "loopdyn/dynamics/formulations/joint_coordinate_formulation.hpp"

#include <limits>

#include "loopdyn/common/check.hpp"

namespace loopdyn {

std::unique_ptr<Coordinates> JointCoordinateFormulation::coordinates(const Model& model) const {
  return std::make_unique<JointCoordinates>(model);
}

std::string JointCoordinateFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  State xs = x;
  if (std::string problem = jointState(tree_, xs); !problem.empty()) return problem;
  tree_.absoluteState(xs.q_r, xs.v_r, xs.t, xs);
  return solveAt(model, ws, xs, true);
}

std::string JointCoordinateFormulation::start(const Model& model, DynamicsWorkspace&, const State& x,
                                              Eigen::Ref<VecX> u) {
  State xs = x;
  checkStateSize(model, xs);
  if (std::string problem = jointState(tree_, xs); !problem.empty()) return problem;
  u = xs.v_r;
  return {};
}

std::string JointCoordinateFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                                 Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                                 const Evaluation& how) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), name(), " in joint coordinates: the state has no joint coordinates");
  x.v_r = u;
  tree_.absoluteState(x.q_r, x.v_r, x.t, x);
  if (how.project) {
    if (std::string problem = projectState(model, ws, x); !problem.empty()) return problem;
    if (std::string problem = jointState(tree_, x); !problem.empty()) return problem;
  }
  std::string problem = solveAt(model, ws, x, how.multipliers);
  // (a failed solve may leave a_r unset: a mass matrix that is not positive definite crashed the
  // copy of an empty a_r into du; the fuzzer's mobile robot with a body of inertia 2e31)
  if (problem.empty()) du = ws.a_r;
  else du.setConstant(std::numeric_limits<Scalar>::quiet_NaN());
  return problem;
}

std::string JointCoordinateFormulation::velocities(const Model&, DynamicsWorkspace&, State& x, Eigen::Ref<const VecX> u,
                                                   Eigen::Ref<VecX>) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), name(), " in joint coordinates: the state has no joint coordinates");
  x.v_r = u;
  tree_.absoluteState(x.q_r, x.v_r, x.t, x);
  return {};
}

Formulation::StepOutcome JointCoordinateFormulation::afterStep(const Model& model, DynamicsWorkspace& ws,
                                                               const Step& step, const State& x, Eigen::Ref<VecX> u) {
  if (!step.projected) return {};
  // the projected positions (x.q_r derived from them) with the joint velocities of the step's end,
  // then those velocities onto C v + b = 0 and back to joint velocities
  State xs = x;
  xs.v_r = u;
  tree_.absoluteState(xs.q_r, xs.v_r, xs.t, xs);
  evaluateConstraints(model, ws.kin, xs);
  projectVelocities(model, ws, xs);
  StepOutcome outcome;
  if (std::string problem = jointState(tree_, xs); !problem.empty()) {
    outcome.failure = "at t = " + std::to_string(x.t) + " s: " + problem;
    return outcome;
  }
  u = xs.v_r;
  outcome.restart = true;
  return outcome;
}

}  // namespace loopdyn
