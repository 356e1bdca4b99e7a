#include "loopdyn/linalg/pivoted_householder_qr.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {
constexpr Scalar kRecompute = 1.5e-8;  // sqrt(double's epsilon)
}  // namespace

inline void PivotedHouseholderQr::reflect(Eigen::Index k, Scalar* x) const {
  if (!(half_vtv_(k) > 0)) return;
  const Eigen::Index rows = W_.rows();
  const Scalar* v = W_.data() + k * rows;
  Scalar dot = 0;
  for (Eigen::Index i = k; i < rows; ++i) dot += v[i] * x[i];
  const Scalar f = dot / half_vtv_(k);
  for (Eigen::Index i = k; i < rows; ++i) x[i] -= f * v[i];
}

void PivotedHouseholderQr::compute(const MatX& A) {
  const Eigen::Index rows = A.rows(), cols = A.cols(), size = std::min(rows, cols);
  W_ = A;
  norms_.resize(cols);
  exact_.resize(cols);
  diagonal_.setZero(size);
  signed_diagonal_.setZero(size);
  half_vtv_.setZero(size);
  pivots_.resize(static_cast<std::size_t>(cols));
  std::iota(pivots_.begin(), pivots_.end(), 0);
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
    if (p != k) {
      std::swap_ranges(column(k), column(k) + rows, column(p));
      std::swap(norms_(k), norms_(p));
      std::swap(exact_(k), exact_(p));
      std::swap(pivots_[static_cast<std::size_t>(k)], pivots_[static_cast<std::size_t>(p)]);
    }
    // reflector H = I - v v^T / (v^T v / 2) with H x = alpha e_1, alpha = -sign(x_0) |x|; a column
    // already zero below the diagonal keeps H = I and R_kk = x_0 (as Eigen's: no sign flip)
    Scalar* v = column(k);
    const Scalar tail = remainingNorm(k, k + 1);
    if (tail == 0) {
      diagonal_(k) = std::abs(v[k]);
      signed_diagonal_(k) = v[k];
    } else {
      const Scalar norm = std::sqrt(tail + v[k] * v[k]);
      const Scalar alpha = v[k] >= 0 ? -norm : norm;
      diagonal_(k) = norm;
      signed_diagonal_(k) = alpha;
      half_vtv_(k) = norm * norm - alpha * v[k];  // v^T v / 2 = |x|^2 - alpha x_0 >= |x|^2
      v[k] -= alpha;                              // x is now v
    }
    for (Eigen::Index j = k + 1; j < cols; ++j) {
      Scalar* w = column(j);
      reflect(k, w);
      // the remaining norm without row k, downdated; recomputed where that cancels (LAPACK's
      // xLAQP2 rule: below sqrt(eps) of its last exact value)
      norms_(j) -= w[k] * w[k];
      if (norms_(j) <= kRecompute * exact_(j)) exact_(j) = norms_(j) = remainingNorm(j, k + 1);
    }
  }
}

void PivotedHouseholderQr::applyReflectors(Eigen::Ref<MatX> X, int count) const {
  LOOPDYN_CHECK(X.rows() == W_.rows() && count <= half_vtv_.size(), "applyReflectors: sizes");
  for (Eigen::Index c = 0; c < X.cols(); ++c)
    for (Eigen::Index k = count - 1; k >= 0; --k) reflect(k, X.col(c).data());
}

void PivotedHouseholderQr::applyReflectorsTransposed(Eigen::Ref<MatX> X, int count) const {
  LOOPDYN_CHECK(X.rows() == W_.rows() && count <= half_vtv_.size(), "applyReflectorsTransposed: sizes");
  for (Eigen::Index c = 0; c < X.cols(); ++c)
    for (Eigen::Index k = 0; k < count; ++k) reflect(k, X.col(c).data());
}

}  // namespace loopdyn
