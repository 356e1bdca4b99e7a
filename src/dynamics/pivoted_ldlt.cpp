#include "loopdyn/dynamics/pivoted_ldlt.hpp"

#include <numeric>
#include <utility>

namespace loopdyn {

void PivotedLdlt::factorize(Scalar threshold) {
  const auto n = G_.rows();
  perm_.resize(static_cast<std::size_t>(n));
  std::iota(perm_.begin(), perm_.end(), 0);
  D_.setZero(n);
  work_.resize(n);
  rank_ = 0;
  Scalar* g = G_.data();  // column-major: G(i, j) = g[i + j n]
  const auto at = [&](Eigen::Index i, Eigen::Index j) -> Scalar& { return g[i + j * n]; };
  Scalar first = 0;
  for (Eigen::Index k = 0; k < n; ++k) {
    Eigen::Index p = k;
    for (Eigen::Index i = k + 1; i < n; ++i)
      if (at(i, i) > at(p, p)) p = i;
    if (k == 0) first = at(p, p);
    if (!(at(p, p) > threshold * first)) {
      // dependent rows: zero pivots, no elimination (L's trailing block is the identity)
      for (Eigen::Index j = k; j < n; ++j)
        for (Eigen::Index i = k; i < n; ++i) at(i, j) = 0;
      break;
    }
    if (p != k) {
      for (Eigen::Index j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
      for (Eigen::Index i = 0; i < n; ++i) std::swap(at(i, k), at(i, p));
      std::swap(perm_[static_cast<std::size_t>(k)], perm_[static_cast<std::size_t>(p)]);
    }
    const Scalar d = at(k, k);
    D_(k) = d;
    ++rank_;
    for (Eigen::Index i = k + 1; i < n; ++i) at(i, k) /= d;
    // Schur complement, kept symmetric (both triangles: later pivots swap whole rows and columns)
    for (Eigen::Index j = k + 1; j < n; ++j) {
      const Scalar dl = d * at(j, k);
      for (Eigen::Index i = k + 1; i < n; ++i) at(i, j) -= dl * at(i, k);
      at(k, j) = 0;
    }
  }
}

void PivotedLdlt::solveInPlace(Eigen::Ref<VecX> r) const {
  const auto n = G_.rows();
  if (n == 0) return;
  // G = P^T L D L^T P: r <- P^T L^-T D^+ L^-1 P r, D^+ zero on the zero pivots
  for (Eigen::Index k = 0; k < n; ++k) work_(k) = r(perm_[static_cast<std::size_t>(k)]);
  for (Eigen::Index k = 0; k < n; ++k) work_.tail(n - k - 1) -= work_(k) * G_.col(k).tail(n - k - 1);
  for (Eigen::Index k = 0; k < n; ++k) work_(k) = D_(k) != 0 ? work_(k) / D_(k) : 0;
  for (Eigen::Index k = n - 1; k >= 0; --k) work_(k) -= G_.col(k).tail(n - k - 1).dot(work_.tail(n - k - 1));
  for (Eigen::Index k = 0; k < n; ++k) r(perm_[static_cast<std::size_t>(k)]) = work_(k);
}

void PivotedLdlt::solveColumnsInPlace(Eigen::Ref<MatX> R) const {
  const auto n = G_.rows();
  if (n == 0 || R.cols() == 0) return;
  // the same steps as solveInPlace, on all columns at once (triangular solves with L's unit
  // diagonal; L is zero below the zero pivots)
  work_matrix_.resize(n, R.cols());
  for (Eigen::Index k = 0; k < n; ++k) work_matrix_.row(k) = R.row(perm_[static_cast<std::size_t>(k)]);
  G_.triangularView<Eigen::UnitLower>().solveInPlace(work_matrix_);
  for (Eigen::Index k = 0; k < n; ++k) work_matrix_.row(k) *= D_(k) != 0 ? 1 / D_(k) : 0;
  G_.triangularView<Eigen::UnitLower>().transpose().solveInPlace(work_matrix_);
  for (Eigen::Index k = 0; k < n; ++k) R.row(perm_[static_cast<std::size_t>(k)]) = work_matrix_.row(k);
}

}  // namespace loopdyn
