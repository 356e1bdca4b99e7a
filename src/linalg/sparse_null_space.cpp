#include "loopdyn/linalg/sparse_null_space.hpp"

#include <Eigen/SPQRSupport>

namespace loopdyn {

SparseNullSpace sparseNullSpace(const SparseMatrix& A, Scalar threshold) {
  using SpqrMatrix = Eigen::SparseMatrix<Scalar, Eigen::ColMajor, SuiteSparse_long>;
  SparseNullSpace out;
  const Eigen::Index n = A.cols();
  Scalar largest_row = 0;
  const SpqrMatrix At = A.transpose();  // (A's rows are At's columns)
  for (Eigen::Index c = 0; c < At.outerSize(); ++c) largest_row = std::max(largest_row, At.col(c).norm());
  if (largest_row == 0) {
    out.ok = true;
    out.basis = MatX::Identity(n, n);
    return out;
  }
  Eigen::SPQR<SpqrMatrix> qr;
  qr.setPivotThreshold(threshold * largest_row);
  qr.compute(At);
  if (qr.info() != Eigen::Success) return out;
  out.rank = static_cast<int>(qr.rank());
  // Q [0; I]: the columns of Q after the first `rank`
  MatX tail = MatX::Zero(n, n - out.rank);
  tail.bottomRows(n - out.rank).setIdentity();
  out.basis = qr.matrixQ() * tail;
  out.ok = true;
  return out;
}

}  // namespace loopdyn
