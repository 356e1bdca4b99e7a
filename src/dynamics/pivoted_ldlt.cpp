#include "loopdyn/dynamics/pivoted_ldlt.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

namespace loopdyn {

bool PivotedLdlt::factorizeRegular(Scalar ratio) {
  const auto n = G_.rows();
  Scalar* g = G_.data();  // column-major: G(i, j) = g[i + j n]; the lower triangle only
  work_ = G_.diagonal();  // (kept to restore G where this fails)
  Scalar largest = 0, smallest = std::numeric_limits<Scalar>::infinity();
  bool positive = true;
  for (Eigen::Index k = 0; k < n; ++k) {
    const Scalar d = g[k + k * n];
    largest = std::max(largest, d);
    smallest = std::min(smallest, d);
    // not positive definite to rounding, or already below the ratio: dependent rows, stop early
    positive = d > 0 && smallest >= ratio * largest;
    if (!positive) break;
    D_(k) = d;
    Scalar* lk = g + k * n;
    // G is sparse (rows on different bodies do not couple), and so is L in the rows' order: the
    // column's entries end at its last nonzero, and zero entries update nothing
    Eigen::Index end = n;
    while (end > k + 1 && lk[end - 1] == 0) --end;
    end_[static_cast<std::size_t>(k)] = static_cast<int>(end);
    for (Eigen::Index i = k + 1; i < end; ++i) lk[i] /= d;
    // the Schur complement's lower triangle: G(i, j) -= d l_j l_i for i >= j > k
    for (Eigen::Index j = k + 1; j < end; ++j) {
      if (lk[j] == 0) continue;
      const Scalar dl = d * lk[j];
      Scalar* gj = g + j * n;
      for (Eigen::Index i = j; i < end; ++i) gj[i] -= dl * lk[i];
    }
  }
  if (positive) {
    std::iota(perm_.begin(), perm_.end(), 0);
    rank_ = static_cast<int>(n);
    pivot_ratio_ = n > 0 ? smallest / largest : 1;
    return true;
  }
  // G as filled, from its untouched upper triangle and the diagonal kept
  for (Eigen::Index j = 0; j < n; ++j) {
    g[j + j * n] = work_(j);
    for (Eigen::Index i = j + 1; i < n; ++i) g[i + j * n] = g[j + i * n];
  }
  return false;
}

void PivotedLdlt::factorize(Scalar threshold, Scalar regular_ratio) {
  const auto n = G_.rows();
  perm_.resize(static_cast<std::size_t>(n));
  end_.resize(static_cast<std::size_t>(n));
  D_.resize(n);
  work_.resize(n);
  regular_ = regular_ratio > 0 && factorizeRegular(regular_ratio);
  if (regular_) return;
  std::iota(perm_.begin(), perm_.end(), 0);
  std::fill(end_.begin(), end_.end(), static_cast<int>(n));
  D_.setZero(n);
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
  pivot_ratio_ = rank_ > 0 ? D_(rank_ - 1) / D_(0) : 1;
}

void PivotedLdlt::solveInPlace(Eigen::Ref<VecX> r) const {
  const auto n = G_.rows();
  if (n == 0) return;
  if (regular_) {  // (P = I and every pivot nonzero: the same operations, fewer copies)
    work_ = r;
    Scalar* x = work_.data();
    const Scalar* l = G_.data();
    for (Eigen::Index k = 0; k < n; ++k) {
      const Eigen::Index end = end_[static_cast<std::size_t>(k)];
      const Scalar xk = x[k];
      for (Eigen::Index i = k + 1; i < end; ++i) x[i] -= xk * l[i + k * n];
    }
    for (Eigen::Index k = 0; k < n; ++k) x[k] /= D_(k);
    for (Eigen::Index k = n - 1; k >= 0; --k) {
      const Eigen::Index below = end_[static_cast<std::size_t>(k)] - k - 1;
      x[k] -= G_.col(k).segment(k + 1, below).dot(work_.segment(k + 1, below));
    }
    r = work_;
    return;
  }
  // G = P^T L D L^T P: r <- P^T L^-T D^+ L^-1 P r, D^+ zero on the zero pivots
  for (Eigen::Index k = 0; k < n; ++k) work_(k) = r(perm_[static_cast<std::size_t>(k)]);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Eigen::Index below = end_[static_cast<std::size_t>(k)] - k - 1;
    work_.segment(k + 1, below) -= work_(k) * G_.col(k).segment(k + 1, below);
  }
  r = work_;
  upperSolveInPlace(r);
}

void PivotedLdlt::upperSolveInPlace(Eigen::Ref<VecX> r) const {
  const auto n = G_.rows();
  for (Eigen::Index k = 0; k < n; ++k) work_(k) = D_(k) != 0 ? r(k) / D_(k) : 0;
  for (Eigen::Index k = n - 1; k >= 0; --k) {
    const Eigen::Index below = end_[static_cast<std::size_t>(k)] - k - 1;
    work_(k) -= G_.col(k).segment(k + 1, below).dot(work_.segment(k + 1, below));
  }
  for (Eigen::Index k = 0; k < n; ++k) r(perm_[static_cast<std::size_t>(k)]) = work_(k);
}

}  // namespace loopdyn
