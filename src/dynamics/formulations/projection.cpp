#include "loopdyn/dynamics/formulations/projection.hpp"

#include <algorithm>
#include <cmath>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/singular_start.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"

namespace loopdyn {

namespace {

using ConstMapMat = Eigen::Map<const MatX>;

}  // namespace

ProjectionFormulation::ProjectionFormulation(const Model& model, int rank, bool continuation, bool relative)
    : equations_(coordinateEquations(model, relative)),
      rank_(rank),
      n_(equations_->size()),
      r_(rank - (model.nc() - static_cast<int>(equations_->rows().size()))),
      f_(n_ - r_),
      continuation_(continuation),
      on_gram_(!relative && model.drivers().empty()),
      unit_metric_(InverseMass::scaledIdentity(model, model.scaling())) {
  LOOPDYN_CHECK(r_ >= 0 && r_ <= n_, "projection: rank ", rank, " leaves ", r_,
                " for the constraints outside the spanning tree, out of range 0 .. ", n_);
}

std::unique_ptr<Coordinates> ProjectionFormulation::coordinates(const Model& model) const {
  return equations_->coordinates(model);
}

void ProjectionFormulation::keepIndependentRows(const TangentFactorization& tf) {
  independent_rows_.assign(tf.K.begin(), tf.K.begin() + tf.r);
  std::sort(independent_rows_.begin(), independent_rows_.end());
}

void ProjectionFormulation::factorizeAt(const DynamicsWorkspace& ws) const {
  equations_->scaledTransposed(ws, tangent_.At);
  tangent_.computeFromAt(r_);
}

bool ProjectionFormulation::evaluateOnGram(const Model& model, DynamicsWorkspace& ws, State& x,
                                           Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du, const Evaluation& how) const {
  // (see the header: Q1 R11^-T y = A_K^T G_K^-1 y; in velocity units, with the metric
  // diag(col)^2 in place of M^-1, A_K^T G_K^-1 y = diag(col)^-1 (diag(col)^2 C_r^T G_K^-1 y))
  const VecX& S = ws.scaling.col;
  const VecX& row = ws.scaling.row;
  const ConstMapMat T(u.data(), n_, f_);
  TS_ = S.asDiagonal() * T;
  x.v.noalias() = TS_ * u.tail(f_);  // eq. (11b) with b = 0: v~ = T u
  evaluateConstraintsAndRates(model, ws.kin, x);
  tangent_gram_.compute(model, ws.kin, ws.scaling, unit_metric_, independent_rows_);
  if (tangent_gram_.rank() != tangent_gram_.rows() || tangent_gram_.pivotRatio() < kTangentGramRatio) return false;
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  ws.Gamma = ws.kin.Gamma;
  if (settings_.baumgarte.beta != 0) ws.Gamma.head(model.m()) -= settings_.baumgarte.beta * settings_.baumgarte.beta * ws.kin.Phi;
  // the particular acceleration diag(col) Q1 p'' (eq. (10)), in velocity units
  w_.resize(r_);
  for (int k = 0; k < r_; ++k) {
    const int i = independent_rows_[static_cast<std::size_t>(k)];
    w_(k) = -row(i) * ws.Gamma(i);
  }
  tangent_gram_.solveInPlace(w_);
  ws.a.setZero(n_);
  tangent_gram_.subtractInverseMassRowsTransposedTimes(w_, ws.a);
  // eq. (11a): (T^T M~ T) u_dot' = T^T (F~ - M~ Q1 p'')
  Ma_.noalias() = ws.M * ws.a;
  residual_ = ws.F - Ma_;
  rhs_u_.noalias() = TS_.transpose() * residual_;
  TtM_.noalias() = TS_.transpose() * ws.M;
  Mt_.noalias() = TtM_ * TS_;
  mt_llt_.compute(Mt_);
  if (mt_llt_.info() != Eigen::Success) return false;
  mt_llt_.solveInPlace(rhs_u_);
  ws.a.noalias() += TS_ * rhs_u_;
  du.tail(f_) = rhs_u_;
  // continuation (*): T_dot = -A_K^T G_K^-1 (A_dot T)_K, column by column, A_dot T = diag(row)
  // C_dot diag(col) T
  Eigen::Map<MatX> Tdot(du.data(), n_, f_);
  for (int j = 0; j < f_; ++j) {
    for (int k = 0; k < r_; ++k) {
      const int i = independent_rows_[static_cast<std::size_t>(k)];
      w_(k) = row(i) * ws.kin.C_rate.rowTimes(i, TS_.col(j));
    }
    tangent_gram_.solveInPlace(w_);
    dv_.setZero(n_);
    tangent_gram_.subtractInverseMassRowsTransposedTimes(w_, dv_);
    Tdot.col(j) = dv_.cwiseQuotient(S);
  }
  if (how.multipliers) {
    Ma_.noalias() = ws.M * ws.a;
    residual_ = ws.F - Ma_;
    leastNormMultipliers(model, ws, residual_);
  }
  return true;
}

Problem ProjectionFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                            Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                            const Evaluation& how) const {
  // away from singular configurations, in a mechanism without drivers: on G_K (see the header)
  if (!how.project && on_gram_ && f_ > 0 && r_ > 0 && static_cast<int>(independent_rows_.size()) == r_ &&
      evaluateOnGram(model, ws, x, u, du, how)) {
    ++gram_evaluations_;
    return {};
  }
  CoordinateEquations& e = *equations_;
  // (b = dPhi/dt - C v from the jets, which velocitiesFrom reads, does not depend on v, but its
  // rounding does: stale velocities made the right-hand side depend on the evaluation before it)
  e.toPositions(model, x);
  if (how.project) {
    // onto Phi = 0, and T onto the tangent space there (see the header)
    if (Problem problem = e.projectPositions(model, ws, x); !problem.empty()) return problem;
    e.constraintsFromKinematics(model, ws, x);
  } else {
    e.evaluateConstraints(model, ws, x);
  }
  factorizeAt(ws);
  if (how.project) {
    T_projected_ = ConstMapMat(u.data(), n_, f_);
    if (!reorthogonalize(tangent_, T_projected_)) return Problem::of(Problem::Kind::TangentBasisLost);
  }
  const ConstMapMat T(how.project ? T_projected_.data() : u.data(), n_, f_);
  velocitiesFrom(ws, T, u.tail(f_), x);
  return accelerations(model, ws, x, T, du, how);
}

Problem ProjectionFormulation::accelerations(const Model& model, DynamicsWorkspace& ws, State& x,
                                                 Eigen::Ref<const MatX> T, Eigen::Ref<VecX> du,
                                                 const Evaluation& how) const {
  CoordinateEquations& e = *equations_;
  const TangentFactorization& tf = tangent_;
  const VecX& S = e.col(ws);
  // eqs. (10)-(11a); and C's rate along the motion for the continuation
  e.evaluate(model, ws, x, settings_.baumgarte, true);
  const MatX& M = e.M(ws);
  VecX& a = e.accelerations(ws);
  row_b_ = e.row().cwiseProduct(e.Gamma(ws));
  tf.pivotedRows(row_b_, p2_);
  tf.solveTransposedInPlace(p2_);
  TS_ = S.asDiagonal() * T;
  tf.q1Times(p2_, at_);  // beta'' (scaled)
  a = S.cwiseProduct(at_);
  Ma_.noalias() = M * a;
  residual_ = e.F(ws) - Ma_;  // F - M S beta''
  rhs_u_.noalias() = TS_.transpose() * residual_;
  TtM_.noalias() = TS_.transpose() * M;
  Mt_.noalias() = TtM_ * TS_;
  if (f_ > 0) {  // (a fully driven mechanism has no tangent basis: nothing to solve or continue)
    mt_llt_.compute(Mt_);
    if (mt_llt_.info() != Eigen::Success) return Problem::of(Problem::Kind::ProjectedMassNotPositiveDefinite);
    mt_llt_.solveInPlace(rhs_u_);  // T^T a~
  }
  at_.noalias() += T * rhs_u_;
  a = S.cwiseProduct(at_);
  e.bodyAccelerations(x, ws);
  // continuation (*): T_dot = -Q1 X, X = R11^-T (A_dot T)_K; du/dt = T^T a~ - X^T p'. Right at a
  // singular configuration (a motion leaving a singular start: the simulation steps across the
  // others) the solve with R11 divides by rounding; there, on the constraints (project), T is the
  // closest basis at every evaluation anyway and its stored value is kept (X only for the drivers)
  du.tail(f_) = rhs_u_;
  const bool frozen = how.project && r_ > 0 && tf.diagonalRatio(r_ - 1) < kFrozenBasisRatio * settings_.ratio_scale;
  continuationRates(
      tf, p1_, frozen, n_, f_, [&](MatX& AdotT) { e.rateTimes(model, ws, x, TS_, AdotT); }, AdotT_, X_, du);
  if (!ws.a.allFinite()) return {};  // (the simulation names the bodies)
  if (how.multipliers) e.leastNormMultipliers(model, ws);
  return {};
}

void ProjectionFormulation::velocitiesFrom(const DynamicsWorkspace& ws, Eigen::Ref<const MatX> T,
                                           Eigen::Ref<const VecX> qdot, State& x) const {
  // eq. (11b): w~ = T u + Q1 p', with R11^T p' = -(diag(row) b)_K (tangent_ factorised at x)
  const CoordinateEquations& e = *equations_;
  const TangentFactorization& tf = tangent_;
  row_b_ = -e.row().cwiseProduct(e.b(ws));
  tf.pivotedRows(row_b_, p1_);
  tf.solveTransposedInPlace(p1_);
  tf.q1Times(p1_, vt_);
  vt_.noalias() += T * qdot;
  e.velocities(x) = e.col(ws).cwiseProduct(vt_);
}

Problem ProjectionFormulation::velocities(const Model& model, DynamicsWorkspace& ws, State& x,
                                              Eigen::Ref<const VecX> u, Eigen::Ref<VecX>) const {
  CoordinateEquations& e = *equations_;
  e.toPositions(model, x);  // (b is read below, and its rounding depends on the velocities: see evaluate)
  e.evaluateConstraints(model, ws, x);  // (b does not depend on them)
  factorizeAt(ws);
  velocitiesFrom(ws, ConstMapMat(u.data(), n_, f_), u.tail(f_), x);
  e.bodyVelocities(x);
  return {};
}

Scalar ProjectionFormulation::constraintPower(const DynamicsWorkspace& ws, const State& x) const {
  const CoordinateEquations& e = *equations_;
  return (e.M(ws) * e.accelerations(ws) - e.F(ws)).dot(e.velocities(x));
}

Problem ProjectionFormulation::begin(const Model& model, DynamicsWorkspace& ws, const State& x,
                                         Eigen::Ref<VecX> u) {
  CoordinateEquations& e = *equations_;
  resets_ = 0;
  start_event_.reset();
  State xs = x;
  checkStateSize(model, xs);
  if (Problem problem = e.carry(xs); !problem.empty()) return problem;
  e.evaluateConstraints(model, ws, xs);
  factorizeAt(ws);
  const TangentFactorization& tf = tangent_;
  const Scalar ratio = r_ > 0 ? tf.diagonalRatio(r_ - 1) : 1;
  Eigen::Map<MatX> T(u.data(), n_, f_);
  keepIndependentRows(tf);
  if (ratio >= kSingularRatio * settings_.ratio_scale) {
    T = tf.fullQ().rightCols(f_);
  } else {
    // a singular start: the branch the motion takes decides T (singular_start.hpp), found in the
    // bodies' velocities
    const SingularStart branch = singularStartBasis(model, ws, xs, rank_);
    if (!branch.problem.empty()) {
      Problem problem = branch.problem;
      problem.at_singular_start = true;
      return problem;
    }
    T = e.basisFromBodies(ws, xs, branch.T);
    start_event_ = singularStartEvent(branch, xs, ratio, rank_, e.relative());
  }
  u.tail(f_) = T.transpose() * e.col(ws).cwiseInverse().cwiseProduct(e.velocities(xs));
  return {};
}

Problem ProjectionFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  CoordinateEquations& e = *equations_;
  State xs = x;
  if (Problem problem = e.carry(xs); !problem.empty()) return problem;
  e.evaluateConstraints(model, ws, xs);
  factorizeAt(ws);
  VecX u(n_ * f_ + f_), du(n_ * f_ + f_);
  Eigen::Map<MatX> T(u.data(), n_, f_);
  T = tangent_.fullQ().rightCols(f_);
  u.tail(f_) = T.transpose() * e.col(ws).cwiseInverse().cwiseProduct(e.velocities(xs));
  Evaluation how;
  how.multipliers = true;
  return evaluate(model, ws, xs, u, du, how);
}

Formulation::StepOutcome ProjectionFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step,
                                                          const State& x, Eigen::Ref<VecX> u) {
  StepOutcome outcome;
  equations_->evaluateConstraints(model, ws, x);
  factorizeAt(ws);
  keepIndependentRows(tangent_);
  outcome.restart = rebaseTangentBasis(tangent_, step, continuation_, n_, f_, u);
  resets_ += outcome.restart;
  return outcome;
}

bool rebaseTangentBasis(const TangentFactorization& tf, const Formulation::Step& step, bool continuation, int n, int f,
                        Eigen::Ref<VecX> u) {
  Eigen::Map<MatX> T(u.data(), n, f);
  // the basis the evaluations used: the stored one, or on the constraints its closest tangent basis
  MatX T_old = T;
  if (step.on_constraints) reorthogonalize(tf, T_old);
  if (!continuation) {
    T = tf.fullQ().rightCols(f);
  } else {
    const Scalar drift = std::max((tf.At.transpose() * T).norm(), (T.transpose() * T - MatX::Identity(f, f)).norm());
    if (!step.projected && drift <= step.tolerance) return false;
    if (!reorthogonalize(tf, T)) return false;  // not expected: T lost a direction
  }
  // the same velocities in the new basis (T^T Q1 = 0, so the particular part drops out)
  u.tail(f) = T.transpose() * (T_old * u.tail(f));
  return true;
}

}  // namespace loopdyn
