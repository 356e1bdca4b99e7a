#include "loopdyn/dynamics/partitioning.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/projective_criterion.hpp"

namespace loopdyn {

namespace {

/// C_KD with a reciprocal condition estimate below this is singular: the evaluation stops.
constexpr Scalar kSingularBlock = 1e-13;

std::vector<int> complement(const std::vector<int>& set, int n) {
  std::vector<int> rest;
  for (int i = 0; i < n; ++i)
    if (!std::binary_search(set.begin(), set.end(), i)) rest.push_back(i);
  return rest;
}

std::string coordinateList(const Model& model, const std::vector<int>& set) {
  const std::vector<std::string> names = velocityCoordinateNames(model);
  std::string out;
  for (const int i : set) out += (out.empty() ? "" : ", ") + names[static_cast<std::size_t>(i)];
  return "{" + out + "}";
}

}  // namespace

Partition choosePartition(const Model& model, DynamicsWorkspace& ws, const MatX& M, const State& x, int rank) {
  const ProjectiveCriterion criterion = projectiveCriterion(model, ws.kin, M, x, rank);
  Partition p;
  p.independent = criterion.best_set;
  std::sort(p.independent.begin(), p.independent.end());
  p.dependent = complement(p.independent, model.nv());
  p.quality = criterion.set_sigma_min;
  // the rows: the first r pivots of the QR of C_s^T (ws.kin evaluated at x by the criterion)
  ws.tangent.compute(ws.kin, ws.scaling, criterion.rank);
  p.rows.assign(ws.tangent.K.begin(), ws.tangent.K.begin() + criterion.rank);
  std::sort(p.rows.begin(), p.rows.end());
  return p;
}

Scalar currentQuality(const Partition& p, DynamicsWorkspace& ws) {
  const auto k = static_cast<Eigen::Index>(p.independent.size());
  if (k == 0) return 1;
  // mu = lambda_max(N_I M_d N_I)^-1/2, N_I = diag(M^-1(i,i))^1/2 (see the header)
  ws.mass_llt.compute(ws.M);
  const auto n = ws.M.rows();
  ws.p1.resize(k);
  for (Eigen::Index j = 0; j < k; ++j) {
    ws.vt.setZero(n);
    ws.vt(p.independent[j]) = 1;
    ws.mass_llt.matrixL().solveInPlace(ws.vt);  // |L^-1 e_i|^2 = M^-1(i,i)
    ws.p1(j) = ws.vt.norm();
  }
  ws.gram = ws.p1.asDiagonal() * ws.Mt * ws.p1.asDiagonal();
  ws.gram_eigen.compute(ws.gram, Eigen::EigenvaluesOnly);
  return 1 / std::sqrt(ws.gram_eigen.eigenvalues()(k - 1));
}

PartitioningFormulation::PartitioningFormulation(const Model& model, int rank, Scalar switch_ratio)
    : n_(model.nv()), nc_(model.nc()), r_(rank), k_(model.nv() - rank), switch_ratio_(switch_ratio), watch_(rank) {
  LOOPDYN_CHECK(rank >= 0 && rank <= model.nv(), "partitioning: rank ", rank, " out of range");
  LOOPDYN_CHECK(switch_ratio >= 0 && switch_ratio < 1, "partitioning: switch ratio ", switch_ratio,
                " must be in [0, 1)");
}

std::vector<int> PartitioningFormulation::eliminatedEquations() const { return complement(partition_.rows, nc_); }

std::string PartitioningFormulation::evaluateWith(const Partition& p, const Model& model, DynamicsWorkspace& ws,
                                                  State& x, Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                                  bool multipliers) const {
  const VecX& row = ws.scaling.row;
  const VecX& col = ws.scaling.col;
  const auto& K = p.rows;
  const auto& I = p.independent;
  const auto& D = p.dependent;
  if (x.v.size() != n_) x.v.setZero(n_);
  evaluateConstraints(model, ws.kin, x);  // C and b: positions and time only
  const MatX& C = ws.kin.C;
  // C_KD on the dimensionless matrix (pivoting and conditioning independent of units):
  // C_KD^-1 = S_D Cs_KD^-1 R_K with R = diag(row), S = diag(col)
  ws.cd.resize(r_, r_);
  for (int j = 0; j < r_; ++j)
    for (int i = 0; i < r_; ++i) ws.cd(i, j) = row(K[i]) * C(K[i], D[j]) * col(D[j]);
  if (r_ > 0) {
    ws.cd_lu.compute(ws.cd);
    if (!(ws.cd_lu.rcond() > kSingularBlock))
      return "the dependent coordinates cannot be solved for: C_KD is singular (reciprocal condition " +
             std::to_string(ws.cd_lu.rcond()) + ") with the independent coordinates " + coordinateList(model, I) +
             " (at a singular configuration of the mechanism every set is singular: --method projection passes it)";
  }
  // A = -C_KD^-1 C_KI and eta = -C_KD^-1 b_K (eqs. (7)-(9)); D^T = [I; A]
  ws.ci.resize(r_, k_);
  ws.p2.resize(r_);
  for (int i = 0; i < r_; ++i) {
    for (int j = 0; j < k_; ++j) ws.ci(i, j) = row(K[i]) * C(K[i], I[j]);
    ws.p2(i) = row(K[i]) * ws.kin.b(K[i]);
  }
  ws.X.resize(r_, k_);
  ws.eta.resize(r_);
  // (k = 0: a fully driven mechanism, no independent coordinate; Eigen 3.4's blocks of matrices
  // without columns are undefined, so they are skipped)
  if (r_ > 0) {
    if (k_ > 0) ws.X.noalias() = ws.cd_lu.solve(ws.ci);
    ws.eta.noalias() = ws.cd_lu.solve(ws.p2);
  }
  ws.Dt.setZero(n_, k_);
  for (int j = 0; j < k_; ++j) ws.Dt(I[j], j) = 1;
  for (int i = 0; i < r_; ++i) {
    if (k_ > 0) ws.Dt.row(D[i]) = -col(D[i]) * ws.X.row(i);
    ws.eta(i) *= -col(D[i]);
  }
  // velocities: v = D^T u + [0; eta]
  x.v.noalias() = ws.Dt * u;
  for (int i = 0; i < r_; ++i) x.v(D[i]) += ws.eta(i);
  // accelerations: xi = C_KD^-1 Gamma_K (eq. (10)), then eqs. (12)-(14)
  evaluateConstraints(model, ws.kin, x);
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  ws.Gamma = ws.kin.Gamma;
  if (baumgarte.beta != 0) ws.Gamma.head(model.m()) -= baumgarte.beta * baumgarte.beta * ws.kin.Phi;
  ws.xi.resize(r_);
  for (int i = 0; i < r_; ++i) ws.p2(i) = row(K[i]) * ws.Gamma(K[i]);
  if (r_ > 0) ws.xi.noalias() = ws.cd_lu.solve(ws.p2);
  ws.at.setZero(n_);  // [0; xi]
  for (int i = 0; i < r_; ++i) ws.at(D[i]) = col(D[i]) * ws.xi(i);
  ws.r = ws.F;
  ws.r.noalias() -= ws.M * ws.at;                // F - M [0; xi]
  ws.rhs_u.noalias() = ws.Dt.transpose() * ws.r;  // h_d, eq. (14)
  ws.TS.noalias() = ws.M * ws.Dt;
  ws.Mt.noalias() = ws.Dt.transpose() * ws.TS;    // M_d, eq. (13)
  if (k_ > 0) {
    ws.mt_llt.compute(ws.Mt);
    if (ws.mt_llt.info() != Eigen::Success)
      return "the reduced mass matrix D M D^T is not positive definite: the independent coordinates " +
             coordinateList(model, I) + " are (nearly) a singular choice here (C_KD reciprocal condition " +
             std::to_string(r_ > 0 ? ws.cd_lu.rcond() : 1.0) + ")";
    ws.mt_llt.solveInPlace(ws.rhs_u);             // a_I, eq. (12)
  }
  ws.a = ws.at;
  ws.a.noalias() += ws.Dt * ws.rhs_u;             // eq. (10)
  du = ws.rhs_u;
  if (multipliers) ws.lambda = partitionedReactions(model, ws, p, ReactionScheme::DependentRows);
  return {};
}

std::string PartitioningFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                              Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                              const Evaluation& how) const {
  if (how.project)
    if (std::string problem = projectPositions(model, ws, x); !problem.empty()) return problem;
  return evaluateWith(partition_, model, ws, x, u, du, how.multipliers);
}

Scalar PartitioningFormulation::constraintPower(const DynamicsWorkspace& ws, const State& x) const {
  return (ws.M * ws.a - ws.F).dot(x.v);
}

std::string PartitioningFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  State xs = x;
  evaluateConstraints(model, ws.kin, xs);
  massMatrix(model, ws.kin.motion, ws.M);
  const Partition p = choosePartition(model, ws, ws.M, xs, r_);
  VecX u = x.v(p.independent), du(k_);
  return evaluateWith(p, model, ws, xs, u, du, true);
}

std::string PartitioningFormulation::start(const Model& model, DynamicsWorkspace& ws, const State& x,
                                           Eigen::Ref<VecX> u) {
  switches_.clear();
  if (const Scalar ratio = watch_.start(model, ws, x); ratio < kSingularRatio) {
    std::ostringstream os;
    os << "the initial configuration is singular (|R_rr| / |R_11| = " << ratio << " at rank " << r_
       << "): no set of independent coordinates exists there; start from a regular configuration or use "
          "--method projection (which finds the branch the motion takes) or lagrange";
    return os.str();
  }
  evaluateConstraints(model, ws.kin, x);
  massMatrix(model, ws.kin.motion, ws.M);
  partition_ = choosePartition(model, ws, ws.M, x, r_);
  best_quality_ = partition_.quality;
  u = x.v(partition_.independent);
  return {};
}

Formulation::StepOutcome PartitioningFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step,
                                                            const State& x, Eigen::Ref<VecX> u) {
  if (const std::vector<SingularWatch::Approach> passages = watch_.afterStep(model, ws, step, x); !passages.empty()) {
    const SingularWatch::Approach& a = passages.front();
    std::ostringstream os;
    os << "at t = " << a.t << " s the mechanism reaches a singular configuration (|R_rr|/|R_11| = " << a.ratio
       << " at rank " << r_ << "): every set of independent coordinates is singular there and partitioning cannot "
       << "continue; --method projection passes singular configurations";
    return {false, {}, os.str()};
  }
  if (switch_ratio_ == 0 || k_ == 0) return {};
  State& xs = ws.x_shifted;
  xs.t = x.t;
  xs.q = x.q;
  ws.rhs_K.resize(k_);
  if (!evaluateWith(partition_, model, ws, xs, u, ws.rhs_K, false).empty()) return {};  // the next step reports it
  const Scalar quality = currentQuality(partition_, ws);
  const Scalar condition = r_ > 0 ? ws.cd_lu.rcond() : 1;
  if (quality >= switch_ratio_ * best_quality_ && condition >= kRowsCondition) return {};
  // the current set has degraded against the best known: is there a better one here?
  const MatX M = ws.M;
  const Partition best = choosePartition(model, ws, M, xs, r_);
  best_quality_ = best.quality;
  if (quality >= switch_ratio_ * best.quality && condition >= kRowsCondition) return {};
  if (best.independent == partition_.independent && best.rows == partition_.rows) return {};
  CoordinateSwitch s;
  s.t = x.t;
  s.from = partition_.independent;
  s.to = best.independent;
  s.quality_from = quality;
  s.quality_to = best.quality;
  s.rows_changed = best.rows != partition_.rows;
  switches_.push_back(s);
  partition_ = best;
  u = xs.v(partition_.independent);  // the same velocities, in the new coordinates
  std::ostringstream os;
  if (s.from != s.to)
    os << "independent coordinates " << coordinateList(model, s.from) << " -> " << coordinateList(model, s.to)
       << " (projective criterion: sigma_min " << s.quality_from << " < " << switch_ratio_ << " x " << s.quality_to << ")";
  else
    os << "independent constraint rows re-chosen (C_KD ill-conditioned: reciprocal condition " << condition << ")";
  return {true, os.str(), {}};
}

VecX partitionedReactions(const Model& model, DynamicsWorkspace& ws, const Partition& p, ReactionScheme scheme,
                          VecX* tangential) {
  const auto r = static_cast<Eigen::Index>(p.rows.size());
  const auto n = ws.M.rows();
  const VecX& row = ws.scaling.row;
  const VecX& col = ws.scaling.col;
  VecX lambda = VecX::Zero(model.nc());
  if (r == 0) return lambda;
  VecX lambda_K(r);
  switch (scheme) {
    case ReactionScheme::DependentRows: {
      // eq. (38) on the dependent rows: C_KD^T lambda_K = (F - M a)_D, with
      // C_KD^-T = R_K Cs_KD^-T S_D (ws.cd_lu factorises Cs_KD)
      ws.r = ws.F;
      ws.r.noalias() -= ws.M * ws.a;
      VecX rhs(r);
      for (Eigen::Index i = 0; i < r; ++i) rhs(i) = col(p.dependent[i]) * ws.r(p.dependent[i]);
      lambda_K = ws.cd_lu.transpose().solve(rhs);
      break;
    }
    case ReactionScheme::InverseMass: {
      // eq. (35): (B M^-1 B^T) lambda_K = B M^-1 F - Gamma_K, B = C_K
      const MatX B = ws.kin.C(p.rows, Eigen::all);
      const Eigen::LLT<MatX> mass(ws.M);
      const MatX MinvBt = mass.solve(B.transpose());
      const VecX Gamma_K = ws.Gamma(p.rows);
      lambda_K = (B * MinvBt).ldlt().solve(B * mass.solve(ws.F) - Gamma_K);
      break;
    }
    case ReactionScheme::Augmented: {
      // eq. (37): (T_bd M)^T [lambda_K; y] = F - M a, (T_bd M)^T = [B^T, M D^T]
      MatX TbdM_t(n, n);
      TbdM_t << ws.kin.C(p.rows, Eigen::all).transpose(), ws.M * ws.Dt;
      const VecX y = TbdM_t.partialPivLu().solve(ws.F - ws.M * ws.a);
      lambda_K = y.head(r);
      if (tangential) *tangential = y.tail(n - r);
      break;
    }
  }
  for (Eigen::Index i = 0; i < r; ++i) lambda(p.rows[i]) = (scheme == ReactionScheme::DependentRows ? row(p.rows[i]) : 1) * lambda_K(i);
  return lambda;
}

}  // namespace loopdyn
