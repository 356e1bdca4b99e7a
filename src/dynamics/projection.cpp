#include "loopdyn/dynamics/projection.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/singular_start.hpp"

namespace loopdyn {

namespace {

/// Central-difference step for A_dot, as a distance along the motion relative to L: balances the
/// truncation error (step^2) against rounding (1e-16 / step).
constexpr Scalar kRateStep = 5e-6;
/// The release replaces the triangular solves with R11 once |R_rr| / |R_11| falls below this
/// multiple of rho (far from singular its effect, (sigma / rho)^-4, is below 1e-4 there).
constexpr Scalar kReleaseSwitch = 10;

using ConstMapMat = Eigen::Map<const MatX>;

/// The K rows (first r pivoted) of `rows`.
template <class Out, class In>
void pivotedRows(const TangentFactorization& tf, const In& rows, Out& out) {
  out.resize(tf.r, rows.cols());
  for (int k = 0; k < tf.r; ++k) out.row(k) = rows.row(tf.K[static_cast<std::size_t>(k)]);
}

}  // namespace

void ProjectionFormulation::solveTransposed(DynamicsWorkspace& ws, Eigen::Ref<MatX> p) const {
  const TangentFactorization& tf = ws.tangent;
  if (!ws.r11_released) {
    tf.R11.transpose().triangularView<Eigen::Lower>().solveInPlace(p);
    return;
  }
  // released: R11^T = V s U^T, p = U diag(g / s) V^T rhs with g = s^4 / (s^4 + rho^4)
  const auto& svd = ws.r11_svd;
  const VecX& s = svd.singularValues();
  const Scalar rho4 = std::pow(release_ * s(0), 4);
  MatX y = svd.matrixV().transpose() * p;
  for (Eigen::Index k = 0; k < s.size(); ++k) {
    const Scalar s4 = std::pow(s(k), 4);
    y.row(k) *= s(k) > 0 ? s4 / (s4 + rho4) / s(k) : 0;
  }
  p.noalias() = svd.matrixU() * y;
}

namespace {

/// (rate of A) T = d/dt (diag(row) C diag(col)) T by central differences along the motion x.v.
void jacobianRateTimes(const Model& model, DynamicsWorkspace& ws, const State& x, const MatX& T, Scalar speed) {
  ws.AdotT.setZero(model.nc(), T.cols());
  if (!(speed > 0)) return;
  const Scalar e = kRateStep * model.characteristicLength() / speed;
  for (const Scalar sign : {1.0, -1.0}) {
    ws.x_shifted.t = x.t + sign * e;
    ws.x_shifted.v = x.v;
    displacePositions(model, x.q, (sign * e) * x.v, ws.x_shifted.q);
    evaluateConstraints(model, ws.kin_shifted, ws.x_shifted);
    ws.AdotT.noalias() += (sign / (2 * e)) * (ws.kin_shifted.C * ws.TS);
  }
  ws.AdotT = ws.scaling.row.asDiagonal() * ws.AdotT;
}

}  // namespace

ProjectionFormulation::ProjectionFormulation(const Model& model, int rank, bool continuation, Scalar release)
    : n_(model.nv()), r_(rank), f_(model.nv() - rank), continuation_(continuation), release_(release), watch_(rank) {
  LOOPDYN_CHECK(rank >= 0 && rank <= model.nv(), "projection: rank ", rank, " out of range");
}

std::string ProjectionFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                            Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du, bool multipliers) const {
  const ConstMapMat T(u.data(), n_, f_);
  const auto qdot = u.tail(f_);
  const VecX& S = ws.scaling.col;
  const VecX& row = ws.scaling.row;
  if (x.v.size() != n_) x.v.setZero(n_);
  // velocities, eq. (11b): v~ = T u + Q1 p'
  evaluateConstraints(model, ws.kin, x);
  ws.tangent.compute(ws.kin, ws.scaling, r_);
  const TangentFactorization& tf = ws.tangent;
  // next to a singular configuration the vanishing direction of R11 is released (see the header)
  ws.r11_released = release_ > 0 && r_ > 0 && tf.diagonalRatio(r_ - 1) < kReleaseSwitch * release_;
  if (ws.r11_released) ws.r11_svd.compute(tf.R11, Eigen::ComputeFullU | Eigen::ComputeFullV);
  pivotedRows(tf, -row.cwiseProduct(ws.kin.b), ws.p1);
  solveTransposed(ws, ws.p1);
  ws.vt.noalias() = T * qdot;
  ws.vt.noalias() += tf.Q1 * ws.p1;
  x.v = S.cwiseProduct(ws.vt);
  // accelerations, eqs. (10)-(11a)
  evaluateConstraints(model, ws.kin, x);
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  ws.Gamma = ws.kin.Gamma;
  if (baumgarte.beta != 0) ws.Gamma.head(model.m()) -= baumgarte.beta * baumgarte.beta * ws.kin.Phi;
  pivotedRows(tf, row.cwiseProduct(ws.Gamma), ws.p2);
  solveTransposed(ws, ws.p2);
  ws.TS = S.asDiagonal() * T;
  ws.at.noalias() = tf.Q1 * ws.p2;                  // beta'' (scaled)
  ws.r = ws.F - ws.M * S.cwiseProduct(ws.at);      // F - M S beta''
  ws.rhs_u.noalias() = ws.TS.transpose() * ws.r;
  ws.Mt.noalias() = ws.TS.transpose() * ws.M * ws.TS;
  ws.mt_llt.compute(ws.Mt);
  if (ws.mt_llt.info() != Eigen::Success) return "the projected mass matrix T^T M T is not positive definite";
  ws.mt_llt.solveInPlace(ws.rhs_u);                // T^T a~
  ws.at.noalias() += T * ws.rhs_u;
  ws.a = S.cwiseProduct(ws.at);
  // continuation (*): T_dot = -Q1 X, X = R11^-T (A_dot T)_K; du/dt = T^T a~ - X^T p'
  jacobianRateTimes(model, ws, x, ws.TS, ws.vt.norm());
  pivotedRows(tf, ws.AdotT, ws.X);
  solveTransposed(ws, ws.X);
  Eigen::Map<MatX>(du.data(), n_, f_).noalias() = -tf.Q1 * ws.X;
  du.tail(f_) = ws.rhs_u;
  du.tail(f_).noalias() -= ws.X.transpose() * ws.p1;
  if (multipliers) {
    // least-norm scaled multipliers: A^T lambda_s = S (F - M a)
    ws.cod.setThreshold(kRankThreshold);
    ws.cod.compute(tf.At);
    ws.lambda = row.cwiseProduct(ws.cod.solve(S.cwiseProduct(ws.F - ws.M * ws.a)));
  }
  return {};
}

Scalar ProjectionFormulation::constraintPower(const DynamicsWorkspace& ws, const State& x) const {
  return (ws.M * ws.a - ws.F).dot(x.v);
}

std::string ProjectionFormulation::start(const Model& model, DynamicsWorkspace& ws, const State& x,
                                         Eigen::Ref<VecX> u) {
  passages_.clear();
  resets_ = 0;
  const Scalar ratio = watch_.start(model, ws, x);
  const TangentFactorization& tf = ws.tangent;
  Eigen::Map<MatX> T(u.data(), n_, f_);
  const VecX vt = ws.scaling.col.cwiseInverse().cwiseProduct(x.v);
  start_event_.clear();
  if (ratio >= kSingularRatio) {
    T = tf.fullQ().rightCols(f_);
  } else {
    // a singular start: the branch the motion takes decides T (singular_start.hpp)
    const SingularStart branch = singularStartBasis(model, ws, x, r_);
    if (!branch.problem.empty())
      return "the initial configuration is singular: " + branch.problem;
    T = branch.T;
    std::ostringstream os;
    os << "starts at a singular configuration (|R_rr|/|R_11| = " << ratio << "): rank " << branch.rank << " of "
       << r_ << ", " << r_ - branch.rank << " extra admissible motion(s); the motion takes the branch of its initial "
       << (branch.at_rest ? "acceleration" : "velocity") << " (misfit " << branch.misfit << ")";
    if (branch.misfit > kBranchMisfit)
      os << ": that direction lies between branches, and the rigid model does not decide which one the mechanism "
            "takes; this is the nearest";
    start_event_ = os.str();
  }
  u.tail(f_) = T.transpose() * vt;
  return {};
}

std::string ProjectionFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  evaluateConstraints(model, ws.kin, x);
  ws.tangent.compute(ws.kin, ws.scaling, r_);
  VecX u(n_ * f_ + f_), du(n_ * f_ + f_);
  Eigen::Map<MatX> T(u.data(), n_, f_);
  T = ws.tangent.fullQ().rightCols(f_);
  u.tail(f_) = T.transpose() * ws.scaling.col.cwiseInverse().cwiseProduct(x.v);
  State xs = x;
  return evaluate(model, ws, xs, u, du, true);
}

Formulation::StepOutcome ProjectionFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step,
                                                          const State& x, Eigen::Ref<VecX> u) {
  StepOutcome outcome;
  // singular configurations inside the step (singular_watch.hpp)
  const SingularWatch::Approach approach = watch_.afterStep(model, ws, step, x);
  if (approach.passage) {
    recordPassage(model, ws, step, approach.t);
    const SingularPassage& p = passages_.back();
    std::ostringstream os;
    os << "singular configuration (|R_rr|/|R_11| = " << p.ratio << "): rank " << p.rank_regular << " -> " << p.rank
       << ", " << p.new_motions.cols() << " new admissible motion(s); the tracked motion continues";
    outcome.event = os.str();
    watch_.ratioAt(model, ws, x);  // recordPassage factorised elsewhere
  }

  Eigen::Map<MatX> T(u.data(), n_, f_);
  const TangentFactorization& tf = ws.tangent;
  const MatX T_old = T;
  if (!continuation_) {
    T = tf.fullQ().rightCols(f_);
  } else {
    const Scalar drift = std::max((tf.At.transpose() * T).norm(), (T.transpose() * T - MatX::Identity(f_, f_)).norm());
    if (!step.projected && drift <= step.tolerance) return outcome;
    if (!reorthogonalize(tf.Q1, T)) return outcome;  // not expected: T lost a direction
  }
  // the same velocities in the new basis (T^T Q1 = 0, so the particular part drops out)
  u.tail(f_) = T.transpose() * (T_old * u.tail(f_));
  outcome.restart = true;
  ++resets_;
  return outcome;
}

void ProjectionFormulation::recordPassage(const Model& model, DynamicsWorkspace& ws, const Step& step, Scalar t) {
  State xs;
  VecX us;
  step.at(t, xs, us);
  watch_.ratioAt(model, ws, xs);
  const TangentFactorization& tf = ws.tangent;
  SingularPassage p;
  p.t = t;
  p.ratio = tf.diagonalRatio(r_ - 1);
  p.rank_regular = r_;
  p.rank = std::min(tf.rankAt(kSingularRatio), r_);
  // null C_s there: the last n - rank columns of Q; the tracked T lies in it (nearly)
  const MatX N = tf.fullQ().rightCols(n_ - p.rank);
  MatX T = ConstMapMat(us.data(), n_, f_);
  const MatX G = N.transpose() * T;  // T in the basis N
  Eigen::ColPivHouseholderQR<MatX> qr(G);
  const MatX Qg = qr.householderQ();
  const VecX& S = ws.scaling.col;
  // the continuing motions: T moved into null C_s there (App. A, keeps their orientation); the
  // new ones: the rest of null C_s
  reorthogonalize(tf.fullQ().leftCols(p.rank), T);
  p.continuing = S.asDiagonal() * T;
  p.new_motions = S.asDiagonal() * (N * Qg.rightCols(n_ - p.rank - f_));
  passages_.push_back(std::move(p));
}

}  // namespace loopdyn
