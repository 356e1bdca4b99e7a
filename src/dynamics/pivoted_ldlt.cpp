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
  // the lower triangle only, in plain loops over the column-major storage (G(i, j) = g[i + j n],
  // i >= j): on matrices of this size Eigen's dynamic-size blocks cost more than the arithmetic
  Scalar* g = G_.data();
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
        for (Eigen::Index i = j; i < n; ++i) at(i, j) = 0;
      break;
    }
    if (p != k) {
      // symmetric interchange of rows and columns k and p, within the lower triangle
      std::swap(at(k, k), at(p, p));
      for (Eigen::Index j = 0; j < k; ++j) std::swap(at(k, j), at(p, j));
      for (Eigen::Index i = k + 1; i < p; ++i) std::swap(at(i, k), at(p, i));
      for (Eigen::Index i = p + 1; i < n; ++i) std::swap(at(i, k), at(i, p));
      std::swap(perm_[static_cast<std::size_t>(k)], perm_[static_cast<std::size_t>(p)]);
    }
    const Scalar d = at(k, k);
    D_(k) = d;
    ++rank_;
    // Schur complement of the trailing lower triangle: G_ij -= G_ik G_jk / d, then L_ik = G_ik / d
    Scalar* column_k = g + k * n;
    for (Eigen::Index j = k + 1; j < n; ++j) {
      const Scalar gjk = column_k[j] / d;
      Scalar* column_j = g + j * n;
      for (Eigen::Index i = j; i < n; ++i) column_j[i] -= column_k[i] * gjk;
    }
    for (Eigen::Index i = k + 1; i < n; ++i) column_k[i] /= d;
  }
}

void PivotedLdlt::solveInPlace(Eigen::Ref<VecX> r) const {
  const auto n = G_.rows();
  if (n == 0) return;
  // G = P^T L D L^T P: r <- P^T L^-T D^+ L^-1 P r, D^+ zero on the zero pivots
  Scalar* w = work_.data();
  const Scalar* g = G_.data();
  for (Eigen::Index k = 0; k < n; ++k) w[k] = r(perm_[static_cast<std::size_t>(k)]);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Scalar* l = g + k * n;
    for (Eigen::Index i = k + 1; i < n; ++i) w[i] -= w[k] * l[i];
  }
  for (Eigen::Index k = 0; k < n; ++k) w[k] = D_(k) != 0 ? w[k] / D_(k) : 0;
  for (Eigen::Index k = n - 1; k >= 0; --k) {
    const Scalar* l = g + k * n;
    Scalar sum = 0;
    for (Eigen::Index i = k + 1; i < n; ++i) sum += l[i] * w[i];
    w[k] -= sum;
  }
  for (Eigen::Index k = 0; k < n; ++k) r(perm_[static_cast<std::size_t>(k)]) = w[k];
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
