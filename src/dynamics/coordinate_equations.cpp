#include "loopdyn/dynamics/coordinate_equations.hpp"

#include "loopdyn/analysis/projective_criterion.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/tree_dynamics.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

std::string jointState(const TreeKinematics& tree, State& x) {
  try {
    const VecX reference = x.q_r;
    tree.relativeState(x, x.q_r, x.v_r, reference.size() == tree.nq() ? &reference : nullptr);
  } catch (const InvalidArgument& e) {
    return std::string("no joint coordinates give this state: ") + e.what();
  }
  return {};
}

// ---- absolute coordinates ----

BodyCoordinateEquations::BodyCoordinateEquations(const Model& model) : n_(model.nv()) {
  for (int row = 0; row < model.nc(); ++row) rows_.push_back(row);
  row_ = constraintScaling(model).row;
}

std::vector<std::string> BodyCoordinateEquations::names(const Model& model) const {
  return velocityCoordinateNames(model);
}

std::unique_ptr<Coordinates> BodyCoordinateEquations::coordinates(const Model& model) const {
  return std::make_unique<AbsoluteCoordinates>(model);
}

std::string BodyCoordinateEquations::projectPositions(const Model& model, DynamicsWorkspace& ws, State& x) const {
  return loopdyn::projectPositions(model, ws, x);
}

void BodyCoordinateEquations::evaluateConstraints(const Model& model, DynamicsWorkspace& ws, const State& x) {
  loopdyn::evaluateConstraints(model, ws.kin, x);
}

void BodyCoordinateEquations::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                       const Baumgarte& baumgarte) {
  loopdyn::evaluateConstraints(model, ws.kin, x);
  loopdyn::massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  stabilizedGamma(model, ws, x, baumgarte);
}

void BodyCoordinateEquations::massMatrix(const Model& model, DynamicsWorkspace& ws, MatX& M) const {
  loopdyn::massMatrix(model, ws.kin.motion, M);
}

void BodyCoordinateEquations::multipliers(const Model&, DynamicsWorkspace& ws, const VecX& mu) const {
  ws.lambda = mu;
}

void BodyCoordinateEquations::scaledTransposed(const DynamicsWorkspace& ws, MatX& At) const {
  At.noalias() = ws.scaling.col.asDiagonal() * ws.kin.C.dense().transpose() * ws.scaling.row.asDiagonal();
}

// ---- relative (joint) coordinates ----

JointCoordinateEquations::JointCoordinateEquations(const Model& model) : tree_(model), equations_(model, tree_) {
  rows_ = equations_.rows;
  const ConstraintScaling scaling = constraintScaling(model);
  row_.resize(static_cast<Eigen::Index>(rows_.size()));
  for (std::size_t i = 0; i < rows_.size(); ++i) row_(static_cast<Eigen::Index>(i)) = scaling.row(rows_[i]);
}

std::vector<std::string> JointCoordinateEquations::names(const Model& model) const {
  return jointCoordinateNames(model, 'v');
}

std::unique_ptr<Coordinates> JointCoordinateEquations::coordinates(const Model& model) const {
  return std::make_unique<JointCoordinates>(model);
}

std::string JointCoordinateEquations::carry(State& x) const { return jointState(tree_, x); }

void JointCoordinateEquations::toPositions(const Model& model, State& x) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), "joint coordinates: the state has none");
  tree_.absolutePositions(x.q_r, x.t, x);
  x.v.setZero(model.nv());
  if (x.v_r.size() != tree_.nv()) x.v_r.setZero(tree_.nv());
}

std::string JointCoordinateEquations::projectPositions(const Model& model, DynamicsWorkspace& ws, State& x) const {
  // onto Phi = 0 (absolute Newton steps keep the tree joints), then the joint coordinates there
  toPositions(model, x);
  if (std::string problem = loopdyn::projectPositions(model, ws, x); !problem.empty()) return problem;
  return jointState(tree_, x);
}

void JointCoordinateEquations::evaluateConstraints(const Model& model, DynamicsWorkspace& ws, const State& x) {
  loopdyn::evaluateConstraints(model, ws.kin, x);
  equations_.evaluateConstraints(model, tree_, ws, x);
}

void JointCoordinateEquations::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                        const Baumgarte& baumgarte) {
  tree_.absoluteState(x.q_r, x.v_r, x.t, x);
  equations_.evaluate(model, tree_, ws, x, baumgarte);
}

void JointCoordinateEquations::massMatrix(const Model& model, DynamicsWorkspace& ws, MatX& M) const {
  compositeRigidBodyMassMatrix(model, tree_, ws.kin.motion, equations_.axes, M);
}

void JointCoordinateEquations::bodyAccelerations(const State& x, DynamicsWorkspace& ws) const {
  tree_.absoluteAccelerations(x.q_r, x.v_r, ws.a_r, ws.a);  // A = J a_r + Jdot v_r
}

void JointCoordinateEquations::multipliers(const Model& model, DynamicsWorkspace& ws, const VecX& mu) const {
  equations_.treeMultipliers(model, ws, mu);
}

void JointCoordinateEquations::scaledTransposed(const DynamicsWorkspace& ws, MatX& At) const {
  equations_.scaledTransposed(ws.scaling, At);
}

std::unique_ptr<CoordinateEquations> coordinateEquations(const Model& model, bool relative) {
  if (relative) return std::make_unique<JointCoordinateEquations>(model);
  return std::make_unique<BodyCoordinateEquations>(model);
}

}  // namespace loopdyn
