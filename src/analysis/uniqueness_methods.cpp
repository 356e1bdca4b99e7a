#include "loopdyn/analysis/uniqueness_methods.hpp"

#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {

constexpr std::array<std::string_view, 4> kMethodNames{"rank", "qr", "svd", "nullspace"};

/// Margins are reported up to this many decades (an exact zero would be infinitely clear).
constexpr Scalar kMaxMargin = 20;

Scalar decades(Scalar value, Scalar threshold) {
  const Scalar floor = threshold * std::pow(10.0, -kMaxMargin);
  return std::min(kMaxMargin, std::abs(std::log10(std::max(value, floor) / threshold)));
}

/// Rank of a list of pivots (non-increasing magnitudes) against an absolute threshold, and the
/// margin of that decision: decades from the threshold to the nearest pivot on either side.
int countPivots(const VecX& pivots, Scalar threshold, Scalar& margin) {
  int rank = 0;
  while (rank < pivots.size() && pivots(rank) > threshold) ++rank;
  margin = kMaxMargin;
  if (rank > 0) margin = std::min(margin, decades(pivots(rank - 1), threshold));
  if (rank < pivots.size()) margin = std::min(margin, decades(pivots(rank), threshold));
  return rank;
}

/// An orthonormal basis of the span of the (independent) columns of A.
MatX orthonormalBasis(const MatX& A) {
  const Eigen::HouseholderQR<MatX> qr(A);
  return qr.householderQ() * MatX::Identity(A.rows(), A.cols());
}

/// C without rows [row, row + rows).
MatX withoutRows(const MatX& C, int row, int rows) {
  MatX out(C.rows() - rows, C.cols());
  out.topRows(row) = C.topRows(row);
  out.bottomRows(C.rows() - row - rows) = C.bottomRows(C.rows() - row - rows);
  return out;
}

}  // namespace

std::string_view methodName(UniquenessMethod method) { return kMethodNames[static_cast<std::size_t>(method)]; }

std::optional<UniquenessMethod> methodFromName(std::string_view name) {
  for (std::size_t k = 0; k < kMethodNames.size(); ++k)
    if (kMethodNames[k] == name) return static_cast<UniquenessMethod>(k);
  return std::nullopt;
}

UniquenessTest::UniquenessTest(UniquenessMethod method, const MatX& C_s, Scalar rank_threshold,
                               Scalar uniqueness_threshold)
    : method_(method), uniqueness_threshold_(uniqueness_threshold), C_(C_s) {
  LOOPDYN_CHECK(rank_threshold > 0 && uniqueness_threshold > 0, "thresholds must be positive");
  const Eigen::Index nc = C_s.rows();
  if (nc == 0 || C_s.cols() == 0) {
    // no equations (a free body, bodies on springs only): nothing to decide. No coordinates:
    // C^T = 0, every multiplier is free (its null space is everything)
    rank_ = 0;
    rank_margin_ = kMaxMargin;
    N_ = MatX::Identity(nc, nc);
    return;
  }
  switch (method) {
    case UniquenessMethod::Rank: {
      // absolute pivot threshold on the scale of the whole C, shared by all submatrix ranks
      const Eigen::ColPivHouseholderQR<MatX> qr(C_s.transpose());
      const Scalar largest = nc > 0 && C_s.cols() > 0 ? std::abs(qr.matrixQR()(0, 0)) : 0;
      pivot_threshold_ = rank_threshold * largest;
      rank_ = rankOf(C_s.transpose(), rank_margin_);
      break;
    }
    case UniquenessMethod::QR: {
      // paper 001, eq. (21): C E = Q R; the last p columns of Q span the null space of C^T
      Eigen::ColPivHouseholderQR<MatX> qr(C_s);
      const VecX pivots = qr.matrixQR().diagonal().cwiseAbs();
      pivot_threshold_ = rank_threshold * (pivots.size() > 0 ? pivots(0) : 0);
      rank_ = countPivots(pivots, pivot_threshold_, rank_margin_);
      // (the reflectors applied to those columns of the identity alone: Q itself is nc x nc)
      N_ = MatX::Identity(nc, nc).rightCols(nc - rank_);
      if (N_.cols() > 0) N_.applyOnTheLeft(qr.householderQ());  // (Eigen's blocks of an empty N_ are UB)
      break;
    }
    case UniquenessMethod::SVD: {
      // paper 000, eq. (38), for C^T: lambda = V d; the columns of V of zero singular values.
      // One-sided Jacobi, not Eigen 3.4's divide-and-conquer BDCSVD: on some rank-deficient
      // matrices (tests/data/matrices) BDCSVD's V spans the wrong null space (issue 22)
      const Eigen::JacobiSVD<MatX> svd(C_s.transpose(), Eigen::ComputeFullV);
      const VecX& sigma = svd.singularValues();
      pivot_threshold_ = rank_threshold * (sigma.size() > 0 ? sigma(0) : 0);
      rank_ = countPivots(sigma, pivot_threshold_, rank_margin_);
      N_ = svd.matrixV().rightCols(nc - rank_);
      break;
    }
    case UniquenessMethod::Nullspace: {
      // paper 000, eq. (46): any basis of the null space; here from LU with full pivoting
      Eigen::FullPivLU<MatX> lu(C_s.transpose());
      lu.setThreshold(rank_threshold);
      VecX pivots = lu.matrixLU().diagonal().cwiseAbs();
      std::sort(pivots.begin(), pivots.end(), std::greater<>());
      pivot_threshold_ = rank_threshold * (pivots.size() > 0 ? pivots(0) : 0);
      rank_ = countPivots(pivots, pivot_threshold_, rank_margin_);
      LOOPDYN_ASSERT(rank_ == lu.rank());
      // an orthonormal basis of the kernel's span, so that ||K N|| / ||K|| means the same as in
      // the qr and svd tests
      N_ = rank_ < nc ? orthonormalBasis(lu.kernel()) : MatX(nc, 0);
      break;
    }
  }
  verifyNullBasis();
}

void UniquenessTest::verifyNullBasis() const {
  if (N_.cols() == 0) return;
  // C_s^T N = 0 up to what the factorisation discarded (at most one column or singular value below
  // the pivot threshold per row or column of C_s) and rounding; N^T N = I up to rounding
  const Scalar dimensions = static_cast<Scalar>(C_.rows() + C_.cols());
  const Scalar residual = (C_.transpose() * N_).norm();
  const Scalar allowed =
      std::sqrt(dimensions) * pivot_threshold_ + 1e3 * std::numeric_limits<Scalar>::epsilon() * C_.norm();
  const Scalar orthonormality = (N_.transpose() * N_ - MatX::Identity(N_.cols(), N_.cols())).norm();
  if (residual > allowed || orthonormality > 1e-10)
    throw std::logic_error(detail::concat("internal error: the ", methodName(method_),
                                          " uniqueness test's null-space basis fails its check (||C^T N|| = ",
                                          residual, ", allowed ", allowed, "; ||N^T N - I|| = ", orthonormality,
                                          "); please report this model"));
}

int UniquenessTest::rankOf(const MatX& A, Scalar& margin) const {
  if (A.rows() == 0 || A.cols() == 0) {
    margin = kMaxMargin;
    return 0;
  }
  const Eigen::ColPivHouseholderQR<MatX> qr(A);
  return countPivots(qr.matrixQR().diagonal().cwiseAbs(), pivot_threshold_, margin);
}

MatX UniquenessTest::nullRows(int row, int rows) const {
  // (a block of a matrix without columns would offset its null data pointer)
  if (N_.cols() == 0) return MatX(rows, 0);
  return N_.middleRows(row, rows);
}

Decision UniquenessTest::nullBasisDecision(const MatX& B, Scalar scale) const {
  Decision d;
  d.indicator = scale > 0 ? B.norm() / scale : 0;
  d.unique = d.indicator <= uniqueness_threshold_;
  d.margin = std::min(rank_margin_, decades(d.indicator, uniqueness_threshold_));
  return d;
}

Decision UniquenessTest::element(const MatX& K) const {
  LOOPDYN_CHECK(K.cols() == C_.rows(), "K: expected ", C_.rows(), " columns, got ", K.cols());
  if (method_ != UniquenessMethod::Rank) return nullBasisDecision(K * N_, K.norm());
  // rank([C^T; K]) = rank(C^T): K's rows add nothing outside the row space of C^T
  Decision d;
  if (K.norm() == 0) {
    d.margin = rank_margin_;
    return d;
  }
  MatX stacked(C_.cols() + K.rows(), C_.rows());
  stacked.topRows(C_.cols()) = C_.transpose();
  // K is scaled to the size of C so that the shared pivot threshold applies to it too
  stacked.bottomRows(K.rows()) = K * (C_.rowwise().norm().maxCoeff() / K.norm());
  Scalar margin = 0;
  const int defect = rankOf(stacked, margin) - rank_;
  d.indicator = defect;
  d.unique = defect == 0;
  d.margin = std::min(margin, rank_margin_);
  return d;
}

Decision UniquenessTest::pair(int row, int rows) const {
  LOOPDYN_CHECK(row >= 0 && rows >= 0 && row + rows <= C_.rows(), "rows [", row, ", ", row + rows, ") out of range");
  const auto C_X = C_.middleRows(row, rows);
  if (method_ != UniquenessMethod::Rank) return nullBasisDecision(C_X.transpose() * nullRows(row, rows), C_X.norm());
  // paper 001, sect. 3.3; paper 000, eq. (27): rank(C_X) + rank(C_Y) - rank(C) = 0
  Scalar margin_X = 0, margin_Y = 0;
  const int r_X = rankOf(C_X, margin_X);
  const int r_Y = rankOf(withoutRows(C_, row, rows), margin_Y);
  Decision d;
  d.indicator = r_X + r_Y - rank_;
  d.unique = r_X + r_Y == rank_;
  d.margin = std::min({margin_X, margin_Y, rank_margin_});
  return d;
}

Decision UniquenessTest::component(int row) const {
  LOOPDYN_CHECK(row >= 0 && row < C_.rows(), "row ", row, " out of range [0, ", C_.rows(), ")");
  if (method_ != UniquenessMethod::Rank) return nullBasisDecision(nullRows(row, 1), 1);
  // lambda_k is unique when row k is nonzero and independent of the other rows
  Scalar margin_k = 0, margin_rest = 0;
  const int r_k = rankOf(C_.row(row), margin_k);
  const int r_rest = rankOf(withoutRows(C_, row, 1), margin_rest);
  Decision d;
  d.indicator = r_rest - (rank_ - 1);
  d.unique = r_k == 1 && r_rest == rank_ - 1;
  d.margin = std::min({margin_k, margin_rest, rank_margin_});
  return d;
}

}  // namespace loopdyn
