#include "loopdyn/dynamics/kept_rows.hpp"

#include <Eigen/QR>

#include <algorithm>

namespace loopdyn {

bool KeptRowsSolver::solve(const MatX& At, const VecX& z0, const VecX& scaled_gamma, const std::vector<int>& kept) {
  const auto n_kept = static_cast<Eigen::Index>(kept.size());
  At_K.resize(At.rows(), n_kept);
  rhs_K.resize(n_kept);
  for (Eigen::Index k = 0; k < n_kept; ++k) {
    const int column = kept[static_cast<std::size_t>(k)];
    At_K.col(k) = At.col(column);
    rhs_K(k) = scaled_gamma(column);
  }
  gram.noalias() = At_K.transpose() * At_K;
  gram_llt.compute(gram);
  const VecX d = gram_llt.matrixLLT().diagonal().cwiseAbs();
  if (gram_llt.info() != Eigen::Success || (n_kept > 0 && d.minCoeff() <= kDependentPivot * d.maxCoeff())) return false;
  w.noalias() = At_K.transpose() * z0;
  w -= rhs_K;
  gram_llt.solveInPlace(w);
  z = z0;
  z.noalias() -= At_K * w;
  return true;
}

KeptRowsSolver::Diagnosis KeptRowsSolver::diagnose(const MatX& At, const std::vector<int>& kept) {
  Diagnosis out;
  Eigen::ColPivHouseholderQR<MatX> qr(At);
  qr.setThreshold(kDependentPivot);
  out.rank = static_cast<int>(qr.rank());
  const auto* pivots = qr.colsPermutation().indices().data();
  out.independent.assign(pivots, pivots + out.rank);
  std::sort(out.independent.begin(), out.independent.end());
  Eigen::ColPivHouseholderQR<MatX> kept_qr(At(Eigen::all, kept));
  kept_qr.setThreshold(kDependentPivot);
  // (at least the last pivot: the solve's test on a Gram matrix can fail first)
  const auto n_kept = static_cast<Eigen::Index>(kept.size());
  for (Eigen::Index k = n_kept > 0 ? std::min(kept_qr.rank(), n_kept - 1) : 0; k < n_kept; ++k)
    out.dependent.push_back(kept[static_cast<std::size_t>(kept_qr.colsPermutation().indices()(k))]);
  return out;
}

}  // namespace loopdyn
