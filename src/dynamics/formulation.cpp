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

DynamicsWorkspace::DynamicsWorkspace(const Model& model)
    : kin(model), a(VecX::Zero(model.nv())), lambda(VecX::Zero(model.nc())), scaling(constraintScaling(model)) {}

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
    // w = f(A A^T) r with f(s^2) = s^2 / (s^4 + mu^4) on the eigenvalues s^2 of the Gram matrix:
    // 1/s^2 (least norm) where s >> mu, 0 where s << mu (see the header)
    ws.gram.noalias() = ws.At.transpose() * ws.At;
    ws.gram_eigen.compute(ws.gram);
    const VecX& s2 = ws.gram_eigen.eigenvalues();
    const Scalar mu2 = release_ * release_ * std::max<Scalar>(s2.maxCoeff(), 0);
    ws.w.noalias() = ws.gram_eigen.eigenvectors().transpose() * ws.r;
    for (Eigen::Index k = 0; k < ws.w.size(); ++k) {
      const Scalar e = std::max<Scalar>(s2(k), 0);
      ws.w(k) *= e / (e * e + mu2 * mu2);
    }
    ws.lambda.noalias() = -ws.gram_eigen.eigenvectors() * ws.w;
    ws.z = ws.z0;
    ws.z.noalias() -= ws.At * ws.lambda;
  }
  finish(ws);
  return {};
}

EliminationFormulation::EliminationFormulation(const Model& model, std::vector<int> eliminated)
    : eliminated_(std::move(eliminated)) {
  std::sort(eliminated_.begin(), eliminated_.end());
  for (int row = 0; row < model.nc(); ++row)
    if (!std::binary_search(eliminated_.begin(), eliminated_.end(), row)) kept_.push_back(row);
}

std::string EliminationFormulation::solve(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  prepare(model, ws, x, baumgarte);
  const auto n_kept = static_cast<Eigen::Index>(kept_.size());
  MatX At_K(ws.At.rows(), n_kept);
  VecX rhs(n_kept);
  for (Eigen::Index k = 0; k < n_kept; ++k) {
    const int row = kept_[static_cast<std::size_t>(k)];
    At_K.col(k) = ws.At.col(row);
    rhs(k) = ws.scaling.row(row) * ws.Gamma(row);
  }
  // (A_K A_K^T) lambda_K = A_K z0 - Gamma_K  (paper 001, eq. (11) with the kept rows only)
  ws.gram = At_K.transpose() * At_K;
  ws.gram_llt.compute(ws.gram);
  // a Cholesky pivot ratio below 1e-6 (condition above 1e12): the kept rows are dependent
  const VecX d = ws.gram_llt.matrixLLT().diagonal().cwiseAbs();
  const bool singular =
      ws.gram_llt.info() != Eigen::Success || (n_kept > 0 && d.minCoeff() <= 1e-6 * d.maxCoeff());
  if (singular) {
    // name the kept equations that QR with column pivoting finds dependent (failure path only)
    Eigen::ColPivHouseholderQR<MatX> qr(At_K);
    qr.setThreshold(1e-6);
    std::string names;
    for (Eigen::Index k = qr.rank(); k < n_kept; ++k) {
      const int row = kept_[static_cast<std::size_t>(qr.colsPermutation().indices()(k))];
      names += (names.empty() ? "" : ", ") + model.equations()[static_cast<std::size_t>(row)].name;
    }
    return "the equations kept after elimination are dependent here (" + (names.empty() ? "?" : names) +
           "): a singular configuration, or too few equations eliminated";
  }
  const VecX lambda_K = ws.gram_llt.solve(At_K.transpose() * ws.z0 - rhs);
  ws.z = ws.z0 - At_K * lambda_K;
  ws.lambda.setZero(model.nc());
  for (Eigen::Index k = 0; k < n_kept; ++k) ws.lambda(kept_[static_cast<std::size_t>(k)]) = lambda_K(k);
  finish(ws);
  return {};
}

std::vector<int> dependentEquations(const Model& model, KinematicsWorkspace& ws, const State& x) {
  RankOptions options;
  options.generic_samples = 0;
  return analyzeConstraintsAt(model, ws, x, options).dependent_equations;
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
