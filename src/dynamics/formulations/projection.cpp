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
    : layout_(coordinateLayout(model, relative)),
      rank_(rank),
      n_(layout_.size),
      r_(rank - (model.nc() - static_cast<int>(layout_.rows.size()))),
      f_(n_ - r_),
      continuation_(continuation),
      on_gram_(!relative && model.drivers().empty()),
      unit_metric_(InverseMass::scaledIdentity(model, model.scaling())) {
  LOOPDYN_CHECK(r_ >= 0 && r_ <= n_, "projection: rank ", rank, " leaves ", r_,
                " for the constraints outside the spanning tree, out of range 0 .. ", n_);
}

std::unique_ptr<Coordinates> ProjectionFormulation::coordinates(const Model& model) const {
  return carriedCoordinates(model, layout_.relative);
}

std::unique_ptr<FormulationData> ProjectionFormulation::makeData(const Model& model) const {
  auto data = std::make_unique<Data>();
  data->equations = coordinateEquations(model, layout_.relative);
  return data;
}

void ProjectionFormulation::keepIndependentRows(Data& d) {
  const TangentFactorization& tf = d.tangent;
  d.independent_rows.assign(tf.K.begin(), tf.K.begin() + tf.r);
  std::sort(d.independent_rows.begin(), d.independent_rows.end());
}

void ProjectionFormulation::factorizeAt(Data& d, const DynamicsWorkspace& ws) const {
  d.equations->scaledTransposed(ws, d.tangent.At);
  d.tangent.computeFromAt(r_);
}

bool ProjectionFormulation::evaluateOnGram(const Model& model, Data& d, DynamicsWorkspace& ws, State& x,
                                           Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du, const Evaluation& how) const {
  // (see the header: Q1 R11^-T y = A_K^T G_K^-1 y; in velocity units, with the metric
  // diag(col)^2 in place of M^-1, A_K^T G_K^-1 y = diag(col)^-1 (diag(col)^2 C_r^T G_K^-1 y))
  const VecX& S = ws.scaling.col;
  const VecX& row = ws.scaling.row;
  const ConstMapMat T(u.data(), n_, f_);
  d.TS = S.asDiagonal() * T;
  x.v.noalias() = d.TS * u.tail(f_);  // eq. (11b) with b = 0: v~ = T u
  evaluateConstraintsAndRates(model, ws.kin, x);
  d.tangent_gram.compute(model, ws.kin, ws.scaling, unit_metric_, d.independent_rows);
  if (d.tangent_gram.rank() != d.tangent_gram.rows() || d.tangent_gram.pivotRatio() < kTangentGramRatio) return false;
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  ws.Gamma = ws.kin.Gamma;
  if (d.settings.baumgarte.beta != 0) ws.Gamma.head(model.m()) -= d.settings.baumgarte.beta * d.settings.baumgarte.beta * ws.kin.Phi;
  // the particular acceleration diag(col) Q1 p'' (eq. (10)), in velocity units
  d.w.resize(r_);
  for (int k = 0; k < r_; ++k) {
    const int i = d.independent_rows[static_cast<std::size_t>(k)];
    d.w(k) = -row(i) * ws.Gamma(i);
  }
  d.tangent_gram.solveInPlace(d.w);
  ws.a.setZero(n_);
  d.tangent_gram.subtractInverseMassRowsTransposedTimes(d.w, ws.a);
  // eq. (11a): (T^T M~ T) u_dot' = T^T (F~ - M~ Q1 p'')
  d.Ma.noalias() = ws.M * ws.a;
  d.residual = ws.F - d.Ma;
  d.rhs_u.noalias() = d.TS.transpose() * d.residual;
  d.TtM.noalias() = d.TS.transpose() * ws.M;
  d.Mt.noalias() = d.TtM * d.TS;
  d.mt_llt.compute(d.Mt);
  if (d.mt_llt.info() != Eigen::Success) return false;
  d.mt_llt.solveInPlace(d.rhs_u);
  ws.a.noalias() += d.TS * d.rhs_u;
  du.tail(f_) = d.rhs_u;
  // continuation (*): T_dot = -A_K^T G_K^-1 (A_dot T)_K, column by column, A_dot T = diag(row)
  // C_dot diag(col) T
  Eigen::Map<MatX> Tdot(du.data(), n_, f_);
  for (int j = 0; j < f_; ++j) {
    for (int k = 0; k < r_; ++k) {
      const int i = d.independent_rows[static_cast<std::size_t>(k)];
      d.w(k) = row(i) * ws.kin.C_rate.rowTimes(i, d.TS.col(j));
    }
    d.tangent_gram.solveInPlace(d.w);
    d.dv.setZero(n_);
    d.tangent_gram.subtractInverseMassRowsTransposedTimes(d.w, d.dv);
    Tdot.col(j) = d.dv.cwiseQuotient(S);
  }
  if (how.multipliers) {
    d.Ma.noalias() = ws.M * ws.a;
    d.residual = ws.F - d.Ma;
    leastNormMultipliers(model, ws, d.residual);
  }
  return true;
}

Problem ProjectionFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                            Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                            const Evaluation& how) const {
  Data& d = dataAs<Data>(model, ws);
  // away from singular configurations, in a mechanism without drivers: on G_K (see the header)
  if (!how.project && on_gram_ && f_ > 0 && r_ > 0 && static_cast<int>(d.independent_rows.size()) == r_ &&
      evaluateOnGram(model, d, ws, x, u, du, how)) {
    ++d.gram_evaluations;
    return {};
  }
  CoordinateEquations& e = *d.equations;
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
  factorizeAt(d, ws);
  if (how.project) {
    d.T_projected = ConstMapMat(u.data(), n_, f_);
    if (!reorthogonalize(d.tangent, d.T_projected)) return Problem::of(Problem::Kind::TangentBasisLost);
  }
  const ConstMapMat T(how.project ? d.T_projected.data() : u.data(), n_, f_);
  velocitiesFrom(d, ws, T, u.tail(f_), x);
  return accelerations(model, d, ws, x, T, du, how);
}

Problem ProjectionFormulation::accelerations(const Model& model, Data& d, DynamicsWorkspace& ws, State& x,
                                                 Eigen::Ref<const MatX> T, Eigen::Ref<VecX> du,
                                                 const Evaluation& how) const {
  CoordinateEquations& e = *d.equations;
  const TangentFactorization& tf = d.tangent;
  const VecX& S = e.col(ws);
  // eqs. (10)-(11a); and C's rate along the motion for the continuation
  e.evaluate(model, ws, x, d.settings.baumgarte, true);
  const MatX& M = e.M(ws);
  VecX& a = e.accelerations(ws);
  d.row_b = e.row().cwiseProduct(e.Gamma(ws));
  tf.pivotedRows(d.row_b, d.p2);
  tf.solveTransposedInPlace(d.p2);
  d.TS = S.asDiagonal() * T;
  tf.q1Times(d.p2, d.at);  // beta'' (scaled)
  a = S.cwiseProduct(d.at);
  d.Ma.noalias() = M * a;
  d.residual = e.F(ws) - d.Ma;  // F - M S beta''
  d.rhs_u.noalias() = d.TS.transpose() * d.residual;
  d.TtM.noalias() = d.TS.transpose() * M;
  d.Mt.noalias() = d.TtM * d.TS;
  if (f_ > 0) {  // (a fully driven mechanism has no tangent basis: nothing to solve or continue)
    d.mt_llt.compute(d.Mt);
    if (d.mt_llt.info() != Eigen::Success) return Problem::of(Problem::Kind::ProjectedMassNotPositiveDefinite);
    d.mt_llt.solveInPlace(d.rhs_u);  // T^T a~
  }
  d.at.noalias() += T * d.rhs_u;
  a = S.cwiseProduct(d.at);
  e.bodyAccelerations(x, ws);
  // continuation (*): T_dot = -Q1 X, X = R11^-T (A_dot T)_K; du/dt = T^T a~ - X^T p'. Right at a
  // singular configuration (a motion leaving a singular start: the simulation steps across the
  // others) the solve with R11 divides by rounding; there, on the constraints (project), T is the
  // closest basis at every evaluation anyway and its stored value is kept (X only for the drivers)
  du.tail(f_) = d.rhs_u;
  const bool frozen = how.project && r_ > 0 && tf.diagonalRatio(r_ - 1) < kFrozenBasisRatio * d.settings.ratio_scale;
  continuationRates(
      tf, d.p1, frozen, n_, f_, [&](MatX& AdotT) { e.rateTimes(model, ws, x, d.TS, AdotT); }, d.AdotT, d.X, du);
  if (!ws.a.allFinite()) return {};  // (the simulation names the bodies)
  if (how.multipliers) e.leastNormMultipliers(model, ws);
  return {};
}

void ProjectionFormulation::velocitiesFrom(Data& d, const DynamicsWorkspace& ws, Eigen::Ref<const MatX> T,
                                           Eigen::Ref<const VecX> qdot, State& x) const {
  // eq. (11b): w~ = T u + Q1 p', with R11^T p' = -(diag(row) b)_K (the tangent factorised at x)
  const CoordinateEquations& e = *d.equations;
  const TangentFactorization& tf = d.tangent;
  d.row_b = -e.row().cwiseProduct(e.b(ws));
  tf.pivotedRows(d.row_b, d.p1);
  tf.solveTransposedInPlace(d.p1);
  tf.q1Times(d.p1, d.vt);
  d.vt.noalias() += T * qdot;
  e.velocities(x) = e.col(ws).cwiseProduct(d.vt);
}

Problem ProjectionFormulation::velocities(const Model& model, DynamicsWorkspace& ws, State& x,
                                              Eigen::Ref<const VecX> u, Eigen::Ref<VecX>) const {
  Data& d = dataAs<Data>(model, ws);
  CoordinateEquations& e = *d.equations;
  e.toPositions(model, x);  // (b is read below, and its rounding depends on the velocities: see evaluate)
  e.evaluateConstraints(model, ws, x);  // (b does not depend on them)
  factorizeAt(d, ws);
  velocitiesFrom(d, ws, ConstMapMat(u.data(), n_, f_), u.tail(f_), x);
  e.bodyVelocities(x);
  return {};
}

Scalar ProjectionFormulation::constraintPower(const DynamicsWorkspace& ws, const State& x) const {
  const CoordinateEquations& e = *dataAs<Data>(ws).equations;
  return (e.M(ws) * e.accelerations(ws) - e.F(ws)).dot(e.velocities(x));
}

Problem ProjectionFormulation::begin(const Model& model, DynamicsWorkspace& ws, const State& x,
                                         Eigen::Ref<VecX> u) const {
  Data& d = dataAs<Data>(model, ws);
  CoordinateEquations& e = *d.equations;
  State xs = x;
  checkStateSize(model, xs);
  if (Problem problem = e.carry(xs); !problem.empty()) return problem;
  e.evaluateConstraints(model, ws, xs);
  factorizeAt(d, ws);
  const TangentFactorization& tf = d.tangent;
  const Scalar ratio = r_ > 0 ? tf.diagonalRatio(r_ - 1) : 1;
  Eigen::Map<MatX> T(u.data(), n_, f_);
  keepIndependentRows(d);
  if (ratio >= kSingularRatio * d.settings.ratio_scale) {
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
    d.start_event = singularStartEvent(branch, xs, ratio, rank_, e.relative());
  }
  u.tail(f_) = T.transpose() * e.col(ws).cwiseInverse().cwiseProduct(e.velocities(xs));
  return {};
}

Problem ProjectionFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  Data& d = dataAs<Data>(model, ws);
  CoordinateEquations& e = *d.equations;
  State xs = x;
  if (Problem problem = e.carry(xs); !problem.empty()) return problem;
  e.evaluateConstraints(model, ws, xs);
  factorizeAt(d, ws);
  VecX u(n_ * f_ + f_), du(n_ * f_ + f_);
  Eigen::Map<MatX> T(u.data(), n_, f_);
  T = d.tangent.fullQ().rightCols(f_);
  u.tail(f_) = T.transpose() * e.col(ws).cwiseInverse().cwiseProduct(e.velocities(xs));
  Evaluation how;
  how.multipliers = true;
  return evaluate(model, ws, xs, u, du, how);
}

Formulation::StepOutcome ProjectionFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step,
                                                          const State& x, Eigen::Ref<VecX> u) const {
  Data& d = dataAs<Data>(model, ws);
  StepOutcome outcome;
  d.equations->evaluateConstraints(model, ws, x);
  factorizeAt(d, ws);
  keepIndependentRows(d);
  outcome.restart = rebaseTangentBasis(d.tangent, step, continuation_, n_, f_, u);
  d.resets += outcome.restart;
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
