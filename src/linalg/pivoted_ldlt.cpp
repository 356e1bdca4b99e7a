#include "loopdyn/linalg/pivoted_ldlt.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

namespace loopdyn {

void PivotedLdlt::setPattern(Eigen::Index n, std::span<const Eigen::Index> entries) {
  std::vector<char> nonzero(static_cast<std::size_t>(n * n), 0);
  for (const Eigen::Index e : entries) nonzero[static_cast<std::size_t>(e)] = 1;
  eliminateSymbolically(n, nonzero);
}

void PivotedLdlt::eliminateSymbolically(Eigen::Index n, std::vector<char>& nonzero) {
  // L(i, k) can be nonzero where G(i, k) is, or where L(i, j) and L(k, j) both are for some j < k
  // (the Schur complement's update fills it in)
  start_.assign(static_cast<std::size_t>(n) + 1, 0);
  nonzero_.clear();
  for (Eigen::Index k = 0; k < n; ++k) {
    const auto first = nonzero_.size();
    for (Eigen::Index i = k + 1; i < n; ++i)
      if (nonzero[static_cast<std::size_t>(i + k * n)]) nonzero_.push_back(static_cast<int>(i));
    for (std::size_t a = first; a < nonzero_.size(); ++a)
      for (std::size_t b = a; b < nonzero_.size(); ++b)
        nonzero[static_cast<std::size_t>(nonzero_[b] + nonzero_[a] * n)] = 1;
    start_[static_cast<std::size_t>(k) + 1] = static_cast<int>(nonzero_.size());
  }
  pattern_size_ = n;
}

bool PivotedLdlt::factorizeRegular(Scalar ratio, bool whole) {
  const auto n = G_.rows();
  perm_.resize(static_cast<std::size_t>(n));
  end_.resize(static_cast<std::size_t>(n));
  D_.resize(n);
  work_.resize(n);
  Scalar* g = G_.data();  // column-major: G(i, j) = g[i + j n]; the lower triangle only
  if (whole) work_ = G_.diagonal();  // (kept to restore G where this fails)
  Scalar largest = 0, smallest = std::numeric_limits<Scalar>::infinity();
  bool positive = true;
  if (pattern_size_ != n) {  // no pattern given for this size: every entry may be nonzero
    std::vector<char> dense(static_cast<std::size_t>(n * n), 1);
    eliminateSymbolically(n, dense);
  }
  for (Eigen::Index k = 0; k < n; ++k) {
    const Scalar d = g[k + k * n];
    largest = std::max(largest, d);
    smallest = std::min(smallest, d);
    // not positive definite to rounding, or already below the ratio: dependent rows, stop early
    positive = d > 0 && smallest >= ratio * largest;
    if (!positive) break;
    D_(k) = d;
    Scalar* lk = g + k * n;
    // only the entries of L's pattern can be nonzero (setPattern); zero ones would update nothing
    const int first = start_[static_cast<std::size_t>(k)], count = start_[static_cast<std::size_t>(k) + 1];
    for (int a = first; a < count; ++a) lk[nonzero_[static_cast<std::size_t>(a)]] /= d;
    // (the solves stop each column at its last nonzero)
    int last = count;
    while (last > first && lk[nonzero_[static_cast<std::size_t>(last) - 1]] == 0) --last;
    end_[static_cast<std::size_t>(k)] = last > first ? nonzero_[static_cast<std::size_t>(last) - 1] + 1 : static_cast<int>(k) + 1;
    // the Schur complement's lower triangle: G(i, j) -= d l_j l_i for i >= j > k
    for (int a = first; a < count; ++a) {
      const Eigen::Index j = nonzero_[static_cast<std::size_t>(a)];
      const Scalar dl = d * lk[j];
      Scalar* gj = g + j * n;
      for (int b = a; b < count; ++b) {
        const Eigen::Index i = nonzero_[static_cast<std::size_t>(b)];
        gj[i] -= dl * lk[i];
      }
    }
  }
  regular_ = positive;
  if (!positive) {
    // G as filled, from its untouched upper triangle and the diagonal kept
    if (whole)
      for (Eigen::Index j = 0; j < n; ++j) {
        g[j + j * n] = work_(j);
        for (Eigen::Index i = j + 1; i < n; ++i) g[i + j * n] = g[j + i * n];
      }
    return false;
  }
  std::iota(perm_.begin(), perm_.end(), 0);
  rank_ = static_cast<int>(n);
  pivot_ratio_ = n > 0 ? smallest / largest : 1;
  return true;
}

void PivotedLdlt::factorize(Scalar threshold, Eigen::Index max_rank) {
  const auto n = G_.rows();
  perm_.resize(static_cast<std::size_t>(n));
  end_.resize(static_cast<std::size_t>(n));
  D_.resize(n);
  work_.resize(n);
  regular_ = false;
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
    if (!(at(p, p) > threshold * first) || k == max_rank) {
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
      const Scalar xk = x[k];
      const Scalar* lk = l + k * n;
      for (int a = start_[static_cast<std::size_t>(k)]; a < start_[static_cast<std::size_t>(k) + 1]; ++a) {
        const int i = nonzero_[static_cast<std::size_t>(a)];
        x[i] -= xk * lk[i];
      }
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
