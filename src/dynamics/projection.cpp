#include "loopdyn/dynamics/projection.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/singular_start.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"

namespace loopdyn {

namespace {

using ConstMapMat = Eigen::Map<const MatX>;

}  // namespace

ProjectionFormulation::ProjectionFormulation(const Model& model, int rank, bool continuation)
    : n_(model.nv()), r_(rank), f_(model.nv() - rank), continuation_(continuation) {
  LOOPDYN_CHECK(rank >= 0 && rank <= model.nv(), "projection: rank ", rank, " out of range");
}

std::string ProjectionFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                            Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                            const Evaluation& how) const {
  const auto qdot = u.tail(f_);
  const VecX& S = ws.scaling.col;
  const VecX& row = ws.scaling.row;
  // (b = dPhi/dt - C v from the jets, which velocitiesFrom reads, does not depend on v, but its
  // rounding does: a stale x.v made the right-hand side depend on the evaluation before it)
  x.v.setZero(n_);
  if (how.project) {
    // onto Phi = 0, and T onto the tangent space there (see the header)
    if (std::string problem = projectPositions(model, ws, x); !problem.empty()) return problem;
  } else {
    evaluateConstraints(model, ws.kin, x);
  }
  ws.tangent.compute(ws.kin, ws.scaling, r_);
  const TangentFactorization& tf = ws.tangent;
  if (how.project) {
    T_projected_ = ConstMapMat(u.data(), n_, f_);
    if (!reorthogonalize(tf, T_projected_)) return "the tangent basis T lost a direction";
  }
  const ConstMapMat T(how.project ? T_projected_.data() : u.data(), n_, f_);
  velocitiesFrom(ws, T, qdot, x);
  // accelerations, eqs. (10)-(11a); and C's rate along v for the continuation
  evaluateConstraintsAndRates(model, ws.kin, x);
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  ws.Gamma = ws.kin.Gamma;
  if (baumgarte.beta != 0) ws.Gamma.head(model.m()) -= baumgarte.beta * baumgarte.beta * ws.kin.Phi;
  tf.pivotedRows(row.cwiseProduct(ws.Gamma), p2_);
  tf.solveTransposedInPlace(p2_);
  TS_ = S.asDiagonal() * T;
  tf.q1Times(p2_, at_);                         // beta'' (scaled)
  ws.r = ws.F - ws.M * S.cwiseProduct(at_);      // F - M S beta''
  rhs_u_.noalias() = TS_.transpose() * ws.r;
  Mt_.noalias() = TS_.transpose() * ws.M * TS_;
  if (f_ > 0) {  // (a fully driven mechanism has no tangent basis: nothing to solve or continue)
    mt_llt_.compute(Mt_);
    if (mt_llt_.info() != Eigen::Success) return "the projected mass matrix T^T M T is not positive definite";
    mt_llt_.solveInPlace(rhs_u_);              // T^T a~
  }
  at_.noalias() += T * rhs_u_;
  ws.a = S.cwiseProduct(at_);
  // continuation (*): T_dot = -Q1 X, X = R11^-T (A_dot T)_K; du/dt = T^T a~ - X^T p'. Right at a
  // singular configuration (a motion leaving a singular start: the simulation steps across the
  // others) the solve with R11 divides by rounding; there, on the constraints (project), T is the
  // closest basis at every evaluation anyway and its stored value is kept (X only for the drivers)
  du.tail(f_) = rhs_u_;
  const bool frozen = how.project && r_ > 0 && tf.diagonalRatio(r_ - 1) < kFrozenBasisRatio;
  const auto rateTimes = [&](MatX& AdotT) {  // A_dot T = diag(row) C_dot diag(col) T
    AdotT.noalias() = ws.kin.C_rate * TS_;
    AdotT = row.asDiagonal() * AdotT;
  };
  continuationRates(tf, p1_, frozen, n_, f_, rateTimes, AdotT_, X_, du);
  if (how.multipliers) {
    ws.r = ws.F - ws.M * ws.a;
    leastNormMultipliers(model, ws, ws.r);
  }
  return {};
}

void ProjectionFormulation::velocitiesFrom(DynamicsWorkspace& ws, Eigen::Ref<const MatX> T,
                                           Eigen::Ref<const VecX> qdot, State& x) const {
  // eq. (11b): v~ = T u + Q1 p', with R11^T p' = -(diag(row) b)_K (ws.tangent factorised at x)
  const TangentFactorization& tf = ws.tangent;
  tf.pivotedRows(-ws.scaling.row.cwiseProduct(ws.kin.b), p1_);
  tf.solveTransposedInPlace(p1_);
  tf.q1Times(p1_, vt_);
  vt_.noalias() += T * qdot;
  x.v = ws.scaling.col.cwiseProduct(vt_);
}

std::string ProjectionFormulation::velocities(const Model& model, DynamicsWorkspace& ws, State& x,
                                              Eigen::Ref<const VecX> u, Eigen::Ref<VecX>) const {
  x.v.setZero(n_);  // (b is read below, and its rounding depends on x.v: see evaluate)
  evaluateConstraints(model, ws.kin, x);  // (b does not depend on v)
  ws.tangent.compute(ws.kin, ws.scaling, r_);
  velocitiesFrom(ws, ConstMapMat(u.data(), n_, f_), u.tail(f_), x);
  return {};
}

Scalar ProjectionFormulation::constraintPower(const DynamicsWorkspace& ws, const State& x) const {
  return (ws.M * ws.a - ws.F).dot(x.v);
}

std::string ProjectionFormulation::start(const Model& model, DynamicsWorkspace& ws, const State& x,
                                         Eigen::Ref<VecX> u) {
  resets_ = 0;
  evaluateConstraints(model, ws.kin, x);
  ws.tangent.compute(ws.kin, ws.scaling, r_);
  const TangentFactorization& tf = ws.tangent;
  const Scalar ratio = r_ > 0 ? tf.diagonalRatio(r_ - 1) : 1;
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
  Evaluation how;
  how.multipliers = true;
  return evaluate(model, ws, xs, u, du, how);
}

Formulation::StepOutcome ProjectionFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step,
                                                          const State& x, Eigen::Ref<VecX> u) {
  StepOutcome outcome;
  evaluateConstraints(model, ws.kin, x);
  ws.tangent.compute(ws.kin, ws.scaling, r_);
  outcome.restart = rebaseTangentBasis(ws.tangent, step, continuation_, n_, f_, u);
  resets_ += outcome.restart;
  return outcome;
}

void continuationRates(const TangentFactorization& tf, const VecX& p1, bool frozen, int n, int f,
                       const std::function<void(MatX& AdotT)>& rateTimes, MatX& AdotT, MatX& X, Eigen::Ref<VecX> du) {
  const bool driven = p1.size() > 0 && p1.cwiseAbs().maxCoeff() > 0;
  if (f > 0 && (!frozen || driven)) {
    rateTimes(AdotT);
    tf.pivotedRows(AdotT, X);
    tf.solveTransposedInPlace(X);
    du.tail(f).noalias() -= X.transpose() * p1;
  }
  if (frozen || f == 0)
    du.head(n * f).setZero();
  else {
    Eigen::Map<MatX> Tdot(du.data(), n, f);
    tf.q1Times(X, Tdot);
    Tdot = -Tdot;
  }
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
