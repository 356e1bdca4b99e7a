#include "loopdyn/dynamics/formulations/relative_projection.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/formulations/projection.hpp"
#include "loopdyn/dynamics/singular_start.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"

namespace loopdyn {

namespace {

using ConstMapMat = Eigen::Map<const MatX>;

/// The rank of C_r: the generic rank of C less the tree joints' rows (independent, and J spans
/// their null space).
int jointSpaceRank(const Model& model, int rank) {
  return rank - (model.nc() - static_cast<int>(jointSpaceConstraintRows(model).size()));
}

}  // namespace

RelativeProjectionFormulation::RelativeProjectionFormulation(const Model& model, int rank, bool continuation)
    : JointCoordinateFormulation(model),
      n_(tree_.nv()),
      r_(jointSpaceRank(model, rank)),
      f_(n_ - r_),
      continuation_(continuation),
      equations_(model, tree_),
      kin_rates_(model) {
  LOOPDYN_CHECK(r_ >= 0 && r_ <= n_, "projection in joint coordinates: rank ", rank, " leaves ", r_,
                " for the constraints outside the spanning tree, out of range 0 .. ", n_);
}

void RelativeProjectionFormulation::factorizeAt(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  equations_.evaluateConstraints(model, tree_, ws, x);
  equations_.scaledTransposed(ws.scaling, tangent_.At);
  tangent_.computeFromAt(r_);
}

void RelativeProjectionFormulation::constraintRateTimes(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                        MatX& AdotT) const {
  // A' T~ = diag(row) (C' J + C J') T~ along the motion (T~ = diag(col_r) T): C' from the
  // equations' rate jets, J' from the tree joints' axes and their rates -- exact, where it was a
  // central difference of two shifted evaluations
  const std::vector<int>& rows = equations_.rows;
  const auto k = static_cast<Eigen::Index>(rows.size());
  evaluateConstraintsAndRates(model, kin_rates_, x);
  tree_.jacobianTimes(x.q_r, x.v_r, kin_rates_.motion, TS_, JT_, JdotT_, jacobian_scratch_);
  AdotT.resize(k, f_);
  for (Eigen::Index i = 0; i < k; ++i) {
    const int row = rows[static_cast<std::size_t>(i)];
    AdotT.row(i).setZero();
    kin_rates_.C_rate.addRowTimes(row, JT_, AdotT.row(i));
    kin_rates_.C.addRowTimes(row, JdotT_, AdotT.row(i));
    AdotT.row(i) *= ws.scaling.row(row);
  }
}

void RelativeProjectionFormulation::velocitiesFrom(const DynamicsWorkspace& ws, Eigen::Ref<const MatX> T,
                                                   Eigen::Ref<const VecX> w, State& x) const {
  // eq. (11b): v~ = T w + Q1 p', with R11^T p' = -(diag(row) b)_K (tangent_ factorised at x)
  const JointSpaceEquations& e = equations_;
  const TangentFactorization& tf = tangent_;
  VecX& row_b = rhs_;
  row_b.resize(static_cast<Eigen::Index>(e.rows.size()));
  for (std::size_t i = 0; i < e.rows.size(); ++i)
    row_b(static_cast<Eigen::Index>(i)) = -ws.scaling.row(e.rows[i]) * e.b(static_cast<Eigen::Index>(i));
  tf.pivotedRows(row_b, p1_);
  tf.solveTransposedInPlace(p1_);
  tf.q1Times(p1_, vt_);
  vt_.noalias() += T * w;
  x.v_r = e.col.cwiseProduct(vt_);
  tree_.absoluteState(x.q_r, x.v_r, x.t, x);
}

std::string RelativeProjectionFormulation::velocities(const Model& model, DynamicsWorkspace& ws, State& x,
                                                      Eigen::Ref<const VecX> u, Eigen::Ref<VecX>) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), name(), " in joint coordinates: the state has no joint coordinates");
  tree_.absolutePositions(x.q_r, x.t, x);
  x.v.setZero(model.nv());
  evaluateConstraints(model, ws.kin, x);
  factorizeAt(model, ws, x);
  velocitiesFrom(ws, ConstMapMat(u.data(), n_, f_), u.tail(f_), x);
  return {};
}

std::string RelativeProjectionFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                                    Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                                    const Evaluation& how) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), name(), " in joint coordinates: the state has no joint coordinates");
  JointSpaceEquations& e = equations_;
  const VecX& S = e.col;
  const auto w = u.tail(f_);
  tree_.absolutePositions(x.q_r, x.t, x);
  x.v.setZero(model.nv());
  if (how.project) {
    // onto Phi = 0 (absolute Newton steps keep the tree joints), then T onto the tangent space there
    if (std::string problem = projectPositions(model, ws, x); !problem.empty()) return problem;
    if (std::string problem = jointState(tree_, x); !problem.empty()) return problem;
  } else {
    evaluateConstraints(model, ws.kin, x);
  }
  factorizeAt(model, ws, x);
  const TangentFactorization& tf = tangent_;
  if (how.project) {
    T_projected_ = ConstMapMat(u.data(), n_, f_);
    if (!reorthogonalize(tf, T_projected_)) return "the tangent basis T lost a direction";
  }
  const ConstMapMat T(how.project ? T_projected_.data() : u.data(), n_, f_);
  velocitiesFrom(ws, T, w, x);
  VecX& row_b = rhs_;
  // accelerations, eqs. (10)-(11a)
  e.evaluate(model, tree_, ws, x, baumgarte);
  for (std::size_t i = 0; i < e.rows.size(); ++i)
    row_b(static_cast<Eigen::Index>(i)) = ws.scaling.row(e.rows[i]) * e.gamma(static_cast<Eigen::Index>(i));
  tf.pivotedRows(row_b, p2_);
  tf.solveTransposedInPlace(p2_);
  TS_ = S.asDiagonal() * T;
  tf.q1Times(p2_, at_);  // (scaled)
  rhs_ = e.Q;
  rhs_.noalias() -= e.M * S.cwiseProduct(at_);
  VecX w_rate = TS_.transpose() * rhs_;
  Mt_.noalias() = TS_.transpose() * e.M * TS_;
  if (f_ > 0) {  // (a fully driven mechanism has no tangent basis)
    mt_llt_.compute(Mt_);
    if (mt_llt_.info() != Eigen::Success) return "the projected mass matrix T^T M_r T is not positive definite";
    mt_llt_.solveInPlace(w_rate);
  }
  at_.noalias() += T * w_rate;
  ws.a_r = S.cwiseProduct(at_);
  tree_.absoluteAccelerations(x.q_r, x.v_r, ws.a_r, ws.a);  // A = J a_r + Jdot v_r
  power_ = (e.M * ws.a_r - e.Q).dot(x.v_r);
  // continuation: T' = -Q1 X, X = R11^-T (A' T)_K; w' = T^T a~ - X^T p' (projection.hpp)
  du.tail(f_) = w_rate;
  const bool frozen = how.project && r_ > 0 && tf.diagonalRatio(r_ - 1) < kFrozenBasisRatio * ratio_scale;
  continuationRates(
      tf, p1_, frozen, n_, f_, [&](MatX& AdotT) { constraintRateTimes(model, ws, x, AdotT); }, AdotT_, X_, du);
  if (!ws.a.allFinite()) return {};  // (the simulation names the bodies)
  if (how.multipliers) {
    // the joint-space constraint forces on the rows K (least norm where redundant), the tree
    // joints what the bodies' equations leave
    e.constraintMultipliers(ws.scaling, ws.a_r, nullptr, mu_);
    e.treeMultipliers(model, ws, mu_);
  }
  return {};
}

Scalar RelativeProjectionFormulation::constraintPower(const DynamicsWorkspace&, const State&) const { return power_; }

std::string RelativeProjectionFormulation::start(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                 Eigen::Ref<VecX> u) {
  resets_ = 0;
  start_event_.reset();
  State xs = x;
  checkStateSize(model, xs);
  if (std::string problem = jointState(tree_, xs); !problem.empty()) return problem;
  evaluateConstraints(model, ws.kin, xs);
  factorizeAt(model, ws, xs);
  const TangentFactorization& tf = tangent_;
  const Scalar ratio = r_ > 0 ? tf.diagonalRatio(r_ - 1) : 1;
  Eigen::Map<MatX> T(u.data(), n_, f_);
  if (ratio >= kSingularRatio * ratio_scale) {
    T = tf.fullQ().rightCols(f_);
  } else {
    // a singular start: the branch the absolute formulation finds, in joint velocities
    // (singular_start.hpp), made orthonormal (the closest basis: its polar factor)
    const int rank = r_ + (model.nc() - static_cast<int>(equations_.rows.size()));
    const SingularStart branch = singularStartBasis(model, ws, xs, rank);
    if (!branch.problem.empty()) return "the initial configuration is singular: " + branch.problem;
    if (f_ > 0) {  // (a fully driven mechanism has no basis; Eigen's products of empty matrices are undefined)
      const MatX V = ws.scaling.col.asDiagonal() * branch.T;
      MatX J;  // (dense, once at a singular start: the joint velocities of V by least squares)
      tree_.jacobian(xs.q_r, J);
      MatX basis = equations_.col.cwiseInverse().asDiagonal() * J.colPivHouseholderQr().solve(V);
      const Eigen::SelfAdjointEigenSolver<MatX> gram(basis.transpose() * basis);
      T = basis * gram.operatorInverseSqrt();
    }
    start_event_ = singularStartEvent(branch, xs, ratio, rank, true);
  }
  u.tail(f_) = T.transpose() * equations_.col.cwiseInverse().cwiseProduct(xs.v_r);
  return {};
}

std::string RelativeProjectionFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                   bool multipliers) const {
  evaluateConstraints(model, ws.kin, x);
  factorizeAt(model, ws, x);
  VecX u(n_ * f_ + f_), du(n_ * f_ + f_);
  Eigen::Map<MatX> T(u.data(), n_, f_);
  T = tangent_.fullQ().rightCols(f_);
  u.tail(f_) = T.transpose() * equations_.col.cwiseInverse().cwiseProduct(x.v_r);
  State xs = x;
  Evaluation how;
  how.multipliers = multipliers;
  return evaluate(model, ws, xs, u, du, how);
}

Formulation::StepOutcome RelativeProjectionFormulation::afterStep(const Model& model, DynamicsWorkspace& ws,
                                                                  const Step& step, const State& x, Eigen::Ref<VecX> u) {
  StepOutcome outcome;
  evaluateConstraints(model, ws.kin, x);
  factorizeAt(model, ws, x);
  outcome.restart = rebaseTangentBasis(tangent_, step, continuation_, n_, f_, u);
  resets_ += outcome.restart;
  return outcome;
}

}  // namespace loopdyn
