#include "loopdyn/dynamics/pivoted_qr_diagonal.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace loopdyn {

namespace {
constexpr Scalar kRecompute = 1.5e-8;  // sqrt(double's epsilon)
}  // namespace

void PivotedQrDiagonal::compute(const MatX& A) {
  const Eigen::Index rows = A.rows(), cols = A.cols(), size = std::min(rows, cols);
  W_ = A;
  norms_.resize(cols);
  exact_.resize(cols);
  diagonal_.setZero(size);
  pivots_.resize(static_cast<std::size_t>(cols));
  std::iota(pivots_.begin(), pivots_.end(), 0);
  // plain loops over the column-major storage: on matrices of this size Eigen's dynamic-size
  // block expressions cost more than the arithmetic
  const auto column = [&](Eigen::Index j) { return W_.data() + j * rows; };
  const auto remainingNorm = [&](Eigen::Index j, Eigen::Index k) {
    const Scalar* w = column(j);
    Scalar sum = 0;
    for (Eigen::Index i = k; i < rows; ++i) sum += w[i] * w[i];
    return sum;
  };
  for (Eigen::Index j = 0; j < cols; ++j) exact_(j) = norms_(j) = remainingNorm(j, 0);
  for (Eigen::Index k = 0; k < size; ++k) {
    // the remaining column of largest norm to k
    Eigen::Index p = k;
    for (Eigen::Index j = k + 1; j < cols; ++j)
      if (norms_(j) > norms_(p)) p = j;
    if (!(norms_(p) > 0)) break;  // the rest is zero (R's remaining diagonal stays 0)
    if (p != k) {
      std::swap_ranges(column(k), column(k) + rows, column(p));
      std::swap(norms_(k), norms_(p));
      std::swap(exact_(k), exact_(p));
      std::swap(pivots_[static_cast<std::size_t>(k)], pivots_[static_cast<std::size_t>(p)]);
    }
    // reflector H = I - v v^T / (v^T v / 2) with H x = alpha e_1, alpha = -sign(x_0) |x|
    Scalar* v = column(k);
    const Scalar norm = std::sqrt(remainingNorm(k, k));  // (exactly: the downdate chose the column)
    const Scalar alpha = v[k] >= 0 ? -norm : norm;
    diagonal_(k) = norm;
    const Scalar half_vtv = norm * norm - alpha * v[k];  // v^T v / 2 = |x|^2 - alpha x_0 >= |x|^2
    v[k] -= alpha;                                        // x is now v
    for (Eigen::Index j = k + 1; j < cols; ++j) {
      Scalar* w = column(j);
      Scalar dot = 0;
      for (Eigen::Index i = k; i < rows; ++i) dot += v[i] * w[i];
      const Scalar f = dot / half_vtv;
      for (Eigen::Index i = k; i < rows; ++i) w[i] -= f * v[i];
      // the remaining norm without row k, downdated; recomputed where that cancels (LAPACK's
      // xLAQP2 rule: below sqrt(eps) of its last exact value)
      norms_(j) -= w[k] * w[k];
      if (norms_(j) <= kRecompute * exact_(j)) exact_(j) = norms_(j) = remainingNorm(j, k + 1);
    }
  }
}

}  // namespace loopdyn
