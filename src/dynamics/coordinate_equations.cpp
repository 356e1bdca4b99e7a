#include "loopdyn/dynamics/coordinate_equations.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

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

void CoordinateEquations::evaluateConstraints(const Model& model, DynamicsWorkspace& ws, const State& x) {
  loopdyn::evaluateConstraints(model, ws.kin, x);
  constraintsFromKinematics(model, ws, x);
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

void BodyCoordinateEquations::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                       const Baumgarte& baumgarte, bool rates) {
  if (rates)
    evaluateConstraintsAndRates(model, ws.kin, x);
  else
    loopdyn::evaluateConstraints(model, ws.kin, x);
  loopdyn::massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  stabilizedGamma(model, ws, x, baumgarte);
}

void BodyCoordinateEquations::rateTimes(const Model&, DynamicsWorkspace& ws, const State&, const MatX& TS,
                                        MatX& AdotT) {
  // A' T~ = diag(row) C' T~, C' of the evaluation
  AdotT.resize(ws.kin.C_rate.rows(), TS.cols());
  for (Eigen::Index j = 0; j < AdotT.cols(); ++j)
    for (Eigen::Index i = 0; i < AdotT.rows(); ++i) AdotT(i, j) = row_(i) * ws.kin.C_rate.rowTimes(i, TS.col(j));
}

void BodyCoordinateEquations::leastNormMultipliers(const Model& model, DynamicsWorkspace& ws) {
  force_.noalias() = ws.M * ws.a;
  force_ = ws.F - force_;
  loopdyn::leastNormMultipliers(model, ws, force_);
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

JointCoordinateEquations::JointCoordinateEquations(const Model& model)
    : tree_(model), equations_(model, tree_), kin_rates_(model) {
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

void JointCoordinateEquations::constraintsFromKinematics(const Model& model, DynamicsWorkspace& ws, const State& x) {
  equations_.evaluateConstraints(model, tree_, ws, x);
}

void JointCoordinateEquations::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                        const Baumgarte& baumgarte, bool) {
  tree_.absoluteState(x.q_r, x.v_r, x.t, x);
  equations_.evaluate(model, tree_, ws, x, baumgarte);
}

void JointCoordinateEquations::rateTimes(const Model& model, DynamicsWorkspace& ws, const State& x, const MatX& TS,
                                         MatX& AdotT) {
  // A' T~ = diag(row) (C' J + C J') T~ along the motion: C' from the equations' rate jets, J' from
  // the tree joints' axes and their rates -- exact, where it was a central difference of two
  // shifted evaluations
  const auto k = static_cast<Eigen::Index>(rows_.size());
  evaluateConstraintsAndRates(model, kin_rates_, x);
  tree_.jacobianTimes(x.q_r, x.v_r, kin_rates_.motion, TS, JT_, JdotT_, jacobian_scratch_);
  AdotT.resize(k, TS.cols());
  for (Eigen::Index i = 0; i < k; ++i) {
    const int row = rows_[static_cast<std::size_t>(i)];
    AdotT.row(i).setZero();
    kin_rates_.C_rate.addRowTimes(row, JT_, AdotT.row(i));
    kin_rates_.C.addRowTimes(row, JdotT_, AdotT.row(i));
    AdotT.row(i) *= ws.scaling.row(row);
  }
}

void JointCoordinateEquations::leastNormMultipliers(const Model& model, DynamicsWorkspace& ws) {
  // the joint-space constraint forces on the rows kept (least norm where redundant), the tree
  // joints what the bodies' equations leave
  equations_.constraintMultipliers(ws.scaling, ws.a_r, nullptr, mu_);
  equations_.treeMultipliers(model, ws, mu_);
}

MatX JointCoordinateEquations::basisFromBodies(const DynamicsWorkspace& ws, const State& x, const MatX& T) const {
  // the joint velocities of V = diag(col) T by least squares, made orthonormal (the closest
  // basis: its polar factor)
  if (T.cols() == 0) return MatX(tree_.nv(), 0);  // (Eigen's products of empty matrices are undefined)
  const MatX V = ws.scaling.col.asDiagonal() * T;
  MatX J;  // (dense, once at a singular start)
  tree_.jacobian(x.q_r, J);
  const MatX basis = equations_.col.cwiseInverse().asDiagonal() * J.colPivHouseholderQr().solve(V);
  const Eigen::SelfAdjointEigenSolver<MatX> gram(basis.transpose() * basis);
  return basis * gram.operatorInverseSqrt();
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
