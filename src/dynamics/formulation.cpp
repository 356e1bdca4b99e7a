#include "loopdyn/dynamics/formulation.hpp"

#include <algorithm>
#include <cmath>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/common/spelling.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"

namespace loopdyn {

namespace {

/// Common first half: constraints, mass, forces, Cholesky of M, z0 = L^-1 F, Gamma (stabilised)
/// and At = L^-1 C^T diag(row) for all rows.
void prepare(const Model& model, DynamicsWorkspace& ws, const State& x, const Baumgarte& baumgarte) {
  evaluateConstraints(model, ws.kin, x);
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  ws.mass_llt.compute(ws.M);
  ws.Gamma = ws.kin.Gamma;
  if (baumgarte.alpha != 0 || baumgarte.beta != 0) {
    // Baumgarte (1972): drive the velocity and position violations to zero
    ws.Gamma -= 2 * baumgarte.alpha * (ws.kin.C * x.v + ws.kin.b);
    ws.Gamma.head(model.m()) -= baumgarte.beta * baumgarte.beta * ws.kin.Phi;
  }
  ws.At = (ws.kin.C.transpose() * ws.scaling.row.asDiagonal()).eval();
  ws.mass_llt.matrixL().solveInPlace(ws.At);
  ws.z0 = ws.mass_llt.matrixL().solve(ws.F);
}

/// a = L^-T z, lambda = diag(row) lambda_s.
void finish(DynamicsWorkspace& ws) {
  ws.a = ws.mass_llt.matrixU().solve(ws.z);
  ws.lambda = ws.scaling.row.cwiseProduct(ws.lambda);
}

}  // namespace

std::string Formulation::start(const Model&, DynamicsWorkspace&, const State& x, Eigen::Ref<VecX> u) {
  u = x.v;
  return {};
}

std::string Formulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                                  Eigen::Ref<VecX> du, bool) const {
  x.v = u;
  std::string problem = solve(model, ws, x);
  du = ws.a;
  return problem;
}

Scalar Formulation::constraintPower(const DynamicsWorkspace& ws, const State&) const { return ws.lambda.dot(ws.kin.b); }

Formulation::StepOutcome Formulation::afterStep(const Model&, DynamicsWorkspace&, const Step&, const State&,
                                               Eigen::Ref<VecX>) {
  return {};
}

DynamicsWorkspace::DynamicsWorkspace(const Model& model)
    : kin(model),
      a(VecX::Zero(model.nv())),
      lambda(VecX::Zero(model.nc())),
      scaling(constraintScaling(model)),
      kin_shifted(model) {}

std::string LagrangeFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  prepare(model, ws, x, baumgarte);
  // z = z0 + A^+ (Gamma_s - A z0), A = At^T; lambda_s = (A^T)^+ (z0 - z): least-norm multipliers
  ws.r = ws.scaling.row.cwiseProduct(ws.Gamma) - ws.At.transpose() * ws.z0;
  if (release_ == 0) {
    // least norm through a complete orthogonal decomposition of A^T (rank threshold kRankThreshold)
    ws.cod.setThreshold(kRankThreshold);
    ws.cod.compute(ws.At);
    ws.w = ws.cod.transpose().solve(ws.r);  // dz = A^+ r
    ws.z = ws.z0 + ws.w;
    ws.lambda = -ws.cod.solve(ws.w);
  } else {
    // w = sum_k g_k e_k e_k^T r / s_k^2 over the eigenpairs (s_k^2, e_k) of A A^T, with the
    // release weight g_k = kappa_k^4 / (kappa_k^4 + rho^4) from the KINEMATIC size of the direction,
    // kappa_k = |C_s^T e_k| / max_j |C_s^T e_j| (dimensionless, mass-independent; see the header)
    ws.gram.noalias() = ws.At.transpose() * ws.At;
    ws.gram_eigen.compute(ws.gram);
    const VecX& s2 = ws.gram_eigen.eigenvalues();
    ws.Cs_t.noalias() = ws.scaling.col.asDiagonal() * ws.kin.C.transpose() * ws.scaling.row.asDiagonal();
    ws.kappa = (ws.Cs_t * ws.gram_eigen.eigenvectors()).colwise().norm().transpose();
    const Scalar rho4 = std::pow(release_ * ws.kappa.maxCoeff(), 4);
    ws.w.noalias() = ws.gram_eigen.eigenvectors().transpose() * ws.r;
    for (Eigen::Index k = 0; k < ws.w.size(); ++k) {
      const Scalar kappa4 = std::pow(ws.kappa(k), 4);
      const Scalar g = kappa4 + rho4 > 0 ? kappa4 / (kappa4 + rho4) : 0;
      ws.w(k) = s2(k) > 0 ? ws.w(k) * g / s2(k) : 0;
    }
    ws.lambda.noalias() = -ws.gram_eigen.eigenvectors() * ws.w;
    ws.z = ws.z0;
    ws.z.noalias() -= ws.At * ws.lambda;
  }
  finish(ws);
  return {};
}

EliminationFormulation::EliminationFormulation(const Model& model, std::vector<int> eliminated, bool reselect)
    : eliminated_(std::move(eliminated)), reselect_(reselect) {
  std::sort(eliminated_.begin(), eliminated_.end());
  for (int row = 0; row < model.nc(); ++row)
    if (!std::binary_search(eliminated_.begin(), eliminated_.end(), row)) kept_.push_back(row);
}

namespace {

/// Kept rows whose relative pivot falls below this count as dependent (Gram condition above 1e12).
constexpr Scalar kDependentPivot = 1e-6;

/// Solves with the rows `kept` only: (A_K A_K^T) lambda_K = A_K z0 - Gamma_K (paper 001, eq. (11)
/// without the eliminated rows). False when the kept rows are (numerically) dependent: a Cholesky
/// pivot ratio below kDependentPivot.
bool solveKept(const Model& model, DynamicsWorkspace& ws, const std::vector<int>& kept) {
  const auto n_kept = static_cast<Eigen::Index>(kept.size());
  ws.At_K.resize(ws.At.rows(), n_kept);
  ws.rhs_K.resize(n_kept);
  for (Eigen::Index k = 0; k < n_kept; ++k) {
    const int row = kept[static_cast<std::size_t>(k)];
    ws.At_K.col(k) = ws.At.col(row);
    ws.rhs_K(k) = ws.scaling.row(row) * ws.Gamma(row);
  }
  ws.gram.noalias() = ws.At_K.transpose() * ws.At_K;
  ws.gram_llt.compute(ws.gram);
  const VecX d = ws.gram_llt.matrixLLT().diagonal().cwiseAbs();
  if (ws.gram_llt.info() != Eigen::Success || (n_kept > 0 && d.minCoeff() <= kDependentPivot * d.maxCoeff())) return false;
  ws.w.noalias() = ws.At_K.transpose() * ws.z0;
  ws.w -= ws.rhs_K;
  ws.gram_llt.solveInPlace(ws.w);
  ws.z = ws.z0;
  ws.z.noalias() -= ws.At_K * ws.w;
  ws.lambda.setZero(model.nc());
  for (Eigen::Index k = 0; k < n_kept; ++k) ws.lambda(kept[static_cast<std::size_t>(k)]) = ws.w(k);
  return true;
}

std::string equationList(const Model& model, const std::vector<int>& rows) {
  std::string names;
  for (const int row : rows) names += (names.empty() ? "" : ", ") + model.equations()[static_cast<std::size_t>(row)].name;
  return names.empty() ? "?" : names;
}

}  // namespace

std::string EliminationFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  prepare(model, ws, x, baumgarte);
  if (solveKept(model, ws, kept_)) {
    finish(ws);
    return {};
  }
  // The kept rows are dependent here. QR with column pivoting of all of At (the same matrix and
  // the same 1e-6 as the Cholesky test) tells whether the configuration is singular, or within
  // that of one (rank below the number kept), or only the choice went bad.
  Eigen::ColPivHouseholderQR<MatX> qr(ws.At);
  qr.setThreshold(kDependentPivot);
  const auto rank = static_cast<std::size_t>(qr.rank());
  std::vector<int> dependent_kept;
  {
    Eigen::ColPivHouseholderQR<MatX> kept_qr(ws.At(Eigen::all, kept_));
    kept_qr.setThreshold(kDependentPivot);
    for (Eigen::Index k = kept_qr.rank(); k < static_cast<Eigen::Index>(kept_.size()); ++k)
      dependent_kept.push_back(kept_[static_cast<std::size_t>(kept_qr.colsPermutation().indices()(k))]);
  }
  if (rank < kept_.size())
    return "a singular configuration (or within 1e-6 of one): the constraint matrix has rank " + std::to_string(rank) + " here, below the " +
           std::to_string(kept_.size()) + " equations kept after elimination (dependent: " +
           equationList(model, dependent_kept) + ")";
  if (reselect_) {
    // a regular configuration where the initial choice fails (paper 001, sect. 3.1: which
    // equations are redundant may depend on the configuration): here, the QR choice
    std::vector<int> kept(qr.colsPermutation().indices().data(), qr.colsPermutation().indices().data() + rank);
    std::sort(kept.begin(), kept.end());
    if (solveKept(model, ws, kept)) {
      finish(ws);
      return {};
    }
  }
  return "the equations kept after elimination are dependent here (" + equationList(model, dependent_kept) +
         ") although the mechanism is not singular: eliminate other equations";
}

std::vector<int> equationRows(const Model& model, const std::vector<std::string>& names) {
  std::vector<std::string> all;
  for (const Equation& e : model.equations()) all.push_back(e.name);
  std::vector<int> rows;
  for (const std::string& name : names) {
    const auto it = std::find(all.begin(), all.end(), name);
    LOOPDYN_CHECK(it != all.end(), "unknown equation '", name, "'", didYouMean(name, all),
                  " (equations are named like 'C.y' or 'W4'; `loopdyn analyze` lists them)");
    rows.push_back(static_cast<int>(it - all.begin()));
  }
  return rows;
}

}  // namespace loopdyn
