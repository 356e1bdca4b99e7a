#include "loopdyn/dynamics/formulations/partitioning.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/analysis/projective_criterion.hpp"

namespace loopdyn {

namespace {

std::vector<int> complement(const std::vector<int>& set, int n) {
  std::vector<int> rest;
  for (int i = 0; i < n; ++i)
    if (!std::binary_search(set.begin(), set.end(), i)) rest.push_back(i);
  return rest;
}


/// The dimensionless C_KD of partition p (diag(row) C diag(col) on rows K, columns D).
void scaledBlock(const MatX& C, const VecX& row, const VecX& col, const Partition& p, MatX& cd) {
  const auto r = static_cast<Eigen::Index>(p.rows.size());
  cd.resize(r, r);
  for (Eigen::Index j = 0; j < r; ++j)
    for (Eigen::Index i = 0; i < r; ++i) cd(i, j) = row(p.rows[i]) * C(p.rows[i], p.dependent[j]) * col(p.dependent[j]);
}

/// Its reciprocal condition estimate (1 without rows).
Scalar rowsCondition(const MatX& C, const VecX& row, const VecX& col, const Partition& p) {
  if (p.rows.empty()) return 1;
  MatX cd;
  scaledBlock(C, row, col, p, cd);
  return Eigen::PartialPivLU<MatX>(cd).rcond();
}

}  // namespace

Scalar currentQuality(const Partition& p, const MatX& M, const MatX& Md) {
  const auto k = static_cast<Eigen::Index>(p.independent.size());
  if (k == 0) return 1;
  // mu = lambda_max(N_I M_d N_I)^-1/2, N_I = diag(M^-1(i,i))^1/2 (see the header)
  const Eigen::LLT<MatX> mass(M);
  const auto n = M.rows();
  VecX norms(k), e(n);
  for (Eigen::Index j = 0; j < k; ++j) {
    e.setZero(n);
    e(p.independent[j]) = 1;
    mass.matrixL().solveInPlace(e);  // |L^-1 e_i|^2 = M^-1(i,i)
    norms(j) = e.norm();
  }
  const MatX gram = norms.asDiagonal() * Md * norms.asDiagonal();
  const Eigen::SelfAdjointEigenSolver<MatX> eigen(gram, Eigen::EigenvaluesOnly);
  return 1 / std::sqrt(eigen.eigenvalues()(k - 1));
}

bool PartitionedEquations::velocities(const MatX& C, const VecX& b, const VecX& row, const VecX& col,
                                      const Partition& p, Eigen::Ref<const VecX> u, VecX& v) {
  const auto& K = p.rows;
  const auto& I = p.independent;
  const auto& D = p.dependent;
  r_ = static_cast<int>(K.size());
  k_ = static_cast<int>(I.size());
  const auto n = static_cast<Eigen::Index>(r_ + k_);
  // C_KD on the dimensionless matrix (pivoting and conditioning independent of units)
  scaledBlock(C, row, col, p, cd_);
  if (r_ > 0) {
    cd_lu_.compute(cd_);
    if (!(cd_lu_.rcond() > kSingularBlock)) return false;
  }
  // A = -C_KD^-1 C_KI and eta = -C_KD^-1 b_K (eqs. (7)-(9)); D^T = [I; A]
  ci_.resize(r_, k_);
  p2_.resize(r_);
  for (int i = 0; i < r_; ++i) {
    for (int j = 0; j < k_; ++j) ci_(i, j) = row(K[i]) * C(K[i], I[j]);
    p2_(i) = row(K[i]) * b(K[i]);
  }
  X_.resize(r_, k_);
  eta_.resize(r_);
  // (k = 0: a fully driven mechanism, no independent coordinate; Eigen 3.4's blocks of matrices
  // without columns are undefined, so they are skipped)
  if (r_ > 0) {
    if (k_ > 0) X_.noalias() = cd_lu_.solve(ci_);
    eta_.noalias() = cd_lu_.solve(p2_);
  }
  Dt_.setZero(n, k_);
  for (int j = 0; j < k_; ++j) Dt_(I[j], j) = 1;
  for (int i = 0; i < r_; ++i) {
    if (k_ > 0) Dt_.row(D[i]) = -col(D[i]) * X_.row(i);
    eta_(i) *= -col(D[i]);
  }
  // velocities: v = D^T u + [0; eta]
  v.noalias() = Dt_ * u;
  for (int i = 0; i < r_; ++i) v(D[i]) += eta_(i);
  return true;
}

bool PartitionedEquations::accelerations(const MatX& M, const VecX& F, const VecX& Gamma, const VecX& row,
                                         const VecX& col, const Partition& p, VecX& a, Eigen::Ref<VecX> a_I) {
  const auto& K = p.rows;
  const auto& D = p.dependent;
  const auto n = static_cast<Eigen::Index>(r_ + k_);
  // xi = C_KD^-1 Gamma_K (eq. (10)), then eqs. (12)-(14)
  xi_.resize(r_);
  for (int i = 0; i < r_; ++i) p2_(i) = row(K[i]) * Gamma(K[i]);
  if (r_ > 0) xi_.noalias() = cd_lu_.solve(p2_);
  at_.setZero(n);  // [0; xi]
  for (int i = 0; i < r_; ++i) at_(D[i]) = col(D[i]) * xi_(i);
  r_F_ = F;
  r_F_.noalias() -= M * at_;            // F - M [0; xi]
  a_I.noalias() = Dt_.transpose() * r_F_;  // h_d, eq. (14)
  MDt_.noalias() = M * Dt_;
  Mt_.noalias() = Dt_.transpose() * MDt_;  // M_d, eq. (13)
  if (k_ > 0) {
    mt_llt_.compute(Mt_);
    if (mt_llt_.info() != Eigen::Success) return false;
    mt_llt_.solveInPlace(a_I);  // a_I, eq. (12)
  }
  a = at_;
  a.noalias() += Dt_ * a_I;  // eq. (10)
  return true;
}

void PartitionedEquations::dependentRowMultipliers(const MatX& M, const VecX& F, const VecX& a, const VecX& row,
                                                   const VecX& col, const Partition& p, VecX& lambda) const {
  // eq. (38) on the dependent rows: C_KD^T lambda_K = (F - M a)_D, with C_KD^-T = R_K Cs_KD^-T S_D
  const auto r = static_cast<Eigen::Index>(p.rows.size());
  if (r == 0) return;
  VecX residual = F;
  residual.noalias() -= M * a;
  VecX rhs(r);
  for (Eigen::Index i = 0; i < r; ++i) rhs(i) = col(p.dependent[i]) * residual(p.dependent[i]);
  const VecX lambda_K = cd_lu_.transpose().solve(rhs);
  for (Eigen::Index i = 0; i < r; ++i) lambda(p.rows[i]) = row(p.rows[i]) * lambda_K(i);
}

Scalar PartitionedEquations::rcond() const { return r_ > 0 ? cd_lu_.rcond() : 1; }

PartitioningFormulation::PartitioningFormulation(const Model& model, int rank, Scalar switch_ratio, bool relative)
    : layout_(coordinateLayout(model, relative)),
      rank_(rank),
      r_(rank - (model.nc() - static_cast<int>(layout_.rows.size()))),
      k_(layout_.size - r_),
      switch_ratio_(switch_ratio),
      names_(velocityNames(model, relative)) {
  LOOPDYN_CHECK(r_ >= 0 && r_ <= layout_.size, "partitioning: rank ", rank, " leaves ", r_,
                " for the constraints outside the spanning tree, out of range 0 .. ", layout_.size);
  LOOPDYN_CHECK(switch_ratio >= 0 && switch_ratio < 1, "partitioning: switch ratio ", switch_ratio,
                " must be in [0, 1)");
}

std::unique_ptr<Coordinates> PartitioningFormulation::coordinates(const Model& model) const {
  return carriedCoordinates(model, layout_.relative);
}

std::unique_ptr<FormulationData> PartitioningFormulation::makeData(const Model& model) const {
  auto data = std::make_unique<Data>();
  data->equations = coordinateEquations(model, layout_.relative);
  return data;
}

std::vector<int> PartitioningFormulation::eliminatedEquations(const FormulationData& data) const {
  const Data& d = dataAs<Data>(data);
  std::vector<int> out;
  const std::vector<int>& rows = layout_.rows;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!std::binary_search(d.partition.rows.begin(), d.partition.rows.end(), static_cast<int>(i))) out.push_back(rows[i]);
  return out;
}

Partition PartitioningFormulation::choosePartition(const Model& model, Data& d, DynamicsWorkspace& ws,
                                                   const State& x) const {
  CoordinateEquations& e = *d.equations;
  e.evaluateConstraints(model, ws, x);
  e.massMatrix(model, ws, d.M);
  const ProjectiveCriterion criterion =
      projectiveCriterion(d.M, e.C(ws), ConstraintScaling{e.row(), e.col(ws)}, r_);
  Partition p;
  p.independent = criterion.best_set;
  std::sort(p.independent.begin(), p.independent.end());
  p.dependent = complement(p.independent, e.size());
  p.quality = criterion.set_sigma_min;
  // the rows: the first r pivots of the QR of the scaled C^T
  e.scaledTransposed(ws, d.tangent.At);
  d.tangent.computeFromAt(r_);
  p.rows.assign(d.tangent.K.begin(), d.tangent.K.begin() + r_);
  std::sort(p.rows.begin(), p.rows.end());
  p.condition = rowsCondition(e.C(ws), e.row(), e.col(ws), p);
  return p;
}

Problem PartitioningFormulation::evaluateWith(const Partition& p, const Model& model, Data& d, DynamicsWorkspace& ws,
                                              State& x, Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                              bool multipliers) const {
  CoordinateEquations& e = *d.equations;
  // (b's rounding depends on the velocities: stale ones would carry the last evaluation over)
  e.toPositions(model, x);
  e.evaluateConstraints(model, ws, x);  // C and b: positions and time only
  // (the problem of this set of independent coordinates, built only when there is one)
  const auto problem = [&](Problem::Kind kind) {
    Problem out = Problem::of(kind);
    for (const int i : p.independent) out.names.push_back(names_[static_cast<std::size_t>(i)]);
    out.value = d.partitioned.rcond();
    return out;
  };
  if (!d.partitioned.velocities(e.C(ws), e.b(ws), e.row(), e.col(ws), p, u, e.velocities(x)))
    return problem(Problem::Kind::DependentCoordinatesSingular);
  e.evaluate(model, ws, x, d.settings.baumgarte);
  if (!d.partitioned.accelerations(e.M(ws), e.F(ws), e.Gamma(ws), e.row(), e.col(ws), p, e.accelerations(ws), du))
    return problem(Problem::Kind::ReducedMassNotPositiveDefinite);
  e.bodyAccelerations(x, ws);
  if (multipliers && ws.a.allFinite()) {
    // eq. (38): the rows K carry the constraint forces, the other rows kept none, the tree joints
    // (in joint coordinates) what the bodies' equations leave
    d.mu.setZero(static_cast<Eigen::Index>(e.rows().size()));
    d.partitioned.dependentRowMultipliers(e.M(ws), e.F(ws), e.accelerations(ws), e.row(), e.col(ws), p, d.mu);
    e.multipliers(model, ws, d.mu);
  }
  return {};
}

Problem PartitioningFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                              Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                              const Evaluation& how) const {
  Data& d = dataAs<Data>(model, ws);
  if (how.project)
    if (Problem problem = d.equations->projectPositions(model, ws, x); !problem.empty()) return problem;
  return evaluateWith(d.partition, model, d, ws, x, u, du, how.multipliers);
}

Scalar PartitioningFormulation::constraintPower(const DynamicsWorkspace& ws, const State& x) const {
  const CoordinateEquations& e = *dataAs<Data>(ws).equations;
  return (e.M(ws) * e.accelerations(ws) - e.F(ws)).dot(e.velocities(x));
}

Problem PartitioningFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  Data& d = dataAs<Data>(model, ws);
  State xs = x;
  if (Problem problem = d.equations->carry(xs); !problem.empty()) return problem;
  const VecX w = d.equations->velocities(xs);
  d.equations->toPositions(model, xs);
  const Partition p = choosePartition(model, d, ws, xs);
  VecX du(k_);
  return evaluateWith(p, model, d, ws, xs, w(p.independent), du, true);
}

Problem PartitioningFormulation::begin(const Model& model, DynamicsWorkspace& ws, const State& x,
                                           Eigen::Ref<VecX> u) const {
  Data& d = dataAs<Data>(model, ws);
  if (const Scalar ratio = SingularWatch(rank_, d.settings.ratio_scale).start(model, ws, x); ratio < kSingularRatio) {
    Problem problem = Problem::of(Problem::Kind::PartitioningSingularStart);
    problem.value = ratio;
    problem.rank = rank_;
    return problem;
  }
  State xs = x;
  checkStateSize(model, xs);
  if (Problem problem = d.equations->carry(xs); !problem.empty()) return problem;
  d.partition = choosePartition(model, d, ws, xs);
  d.memory = {d.partition.quality, rowsTriggerAfter(d.partition.condition)};
  u = d.equations->velocities(xs)(d.partition.independent);
  return {};
}

Formulation::StepOutcome PartitioningFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step&,
                                                            const State& x, Eigen::Ref<VecX> u) const {
  // (the simulation's watch stops the run at a singular configuration, which partitioning cannot
  // pass: passesSingularConfigurations())
  if (switch_ratio_ == 0 || k_ == 0) return {};
  Data& d = dataAs<Data>(model, ws);
  State xs = x;
  VecX du(k_);
  if (!evaluateWith(d.partition, model, d, ws, xs, u, du, false).empty()) return {};  // the next step reports it
  const Scalar quality = currentQuality(d.partition, d.equations->M(ws), d.partitioned.Md());
  const Scalar condition = d.partitioned.rcond();
  const std::optional<CoordinateSwitch> s = switchPartition(
      x.t, quality, condition, switch_ratio_, d.partition, d.memory, [&] { return choosePartition(model, d, ws, xs); },
      d.switches);
  if (!s) return {};
  u = d.equations->velocities(xs)(d.partition.independent);  // the same velocities, in the new coordinates
  return {true, switchEvent(*s, switch_ratio_, condition, names_), {}};
}

std::optional<CoordinateSwitch> switchPartition(Scalar t, Scalar quality, Scalar condition, Scalar ratio,
                                                Partition& current, SwitchingMemory& memory,
                                                const std::function<Partition()>& choose,
                                                std::vector<CoordinateSwitch>& switches) {
  const bool rows_degraded = condition < memory.rows_trigger;
  if (quality >= ratio * memory.best_quality && !rows_degraded) return std::nullopt;
  // the current set has degraded against the best known, or its rows: is there a better one here?
  const Partition best = choose();
  memory.best_quality = best.quality;
  const bool set_degraded = quality < ratio * best.quality;
  const bool rows_better = rows_degraded && best.condition >= kRowsHysteresis * condition;
  const bool same = best.independent == current.independent && best.rows == current.rows;
  if (same || (!set_degraded && !rows_better)) {
    memory.rows_trigger = rowsTriggerAfter(condition);
    return std::nullopt;
  }
  CoordinateSwitch s;
  s.t = t;
  s.from = current.independent;
  s.to = best.independent;
  s.quality_from = quality;
  s.quality_to = best.quality;
  s.rows_changed = best.rows != current.rows;
  switches.push_back(s);
  current = best;
  memory.rows_trigger = rowsTriggerAfter(best.condition);
  return s;
}

std::string coordinateSet(const std::vector<std::string>& names, const std::vector<int>& set) {
  std::string out;
  for (const int i : set) out += (out.empty() ? "" : ", ") + names[static_cast<std::size_t>(i)];
  return "{" + out + "}";
}

RunEvent switchEvent(const CoordinateSwitch& s, Scalar ratio, Scalar condition, const std::vector<std::string>& names) {
  RunEvent e;
  e.t = s.t;
  if (s.from == s.to) {
    e.kind = EventKind::RowsRechosen;
    e.condition = condition;
    return e;
  }
  e.kind = EventKind::CoordinateSwitch;
  for (const int i : s.from) e.from.push_back(names[static_cast<std::size_t>(i)]);
  for (const int i : s.to) e.to.push_back(names[static_cast<std::size_t>(i)]);
  e.quality_from = s.quality_from;
  e.quality_to = s.quality_to;
  e.switch_ratio = ratio;
  return e;
}

VecX partitionedReactions(const Model& model, const DynamicsWorkspace& ws, const PartitionedEquations& equations,
                          const Partition& p, ReactionScheme scheme, VecX* tangential) {
  const auto r = static_cast<Eigen::Index>(p.rows.size());
  const auto n = ws.M.rows();
  VecX lambda = VecX::Zero(model.nc());
  if (r == 0) return lambda;
  VecX lambda_K(r);
  switch (scheme) {
    case ReactionScheme::DependentRows:
      equations.dependentRowMultipliers(ws.M, ws.F, ws.a, ws.scaling.row, ws.scaling.col, p, lambda);
      return lambda;
    case ReactionScheme::InverseMass: {
      // eq. (35): (B M^-1 B^T) lambda_K = B M^-1 F - Gamma_K, B = C_K
      const MatX B = ws.kin.C.dense()(p.rows, Eigen::all);
      const Eigen::LLT<MatX> mass(ws.M);
      const MatX MinvBt = mass.solve(B.transpose());
      const VecX Gamma_K = ws.Gamma(p.rows);
      lambda_K = (B * MinvBt).ldlt().solve(B * mass.solve(ws.F) - Gamma_K);
      break;
    }
    case ReactionScheme::Augmented: {
      // eq. (37): (T_bd M)^T [lambda_K; y] = F - M a, (T_bd M)^T = [B^T, M D^T]
      MatX TbdM_t(n, n);
      TbdM_t << ws.kin.C.dense()(p.rows, Eigen::all).transpose(), ws.M * equations.Dt();
      const VecX y = TbdM_t.partialPivLu().solve(ws.F - ws.M * ws.a);
      lambda_K = y.head(r);
      if (tangential) *tangential = y.tail(n - r);
      break;
    }
  }
  for (Eigen::Index i = 0; i < r; ++i) lambda(p.rows[i]) = lambda_K(i);
  return lambda;
}

}  // namespace loopdyn
