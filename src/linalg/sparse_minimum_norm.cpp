#include "loopdyn/linalg/sparse_minimum_norm.hpp"

namespace loopdyn {

SparseMinimumNorm::SparseMinimumNorm(SparseMatrix A) : A_(std::move(A)), wide_(A_.rows() <= A_.cols()) {
  ldlt_.compute(wide_ ? SparseMatrix(A_ * A_.transpose()) : SparseMatrix(A_.transpose() * A_));
  ok_ = ldlt_.info() == Eigen::Success && (ldlt_.rows() == 0 || ldlt_.vectorD().minCoeff() > 0);
}

VecX SparseMinimumNorm::apply(const VecX& b) const {
  return wide_ ? VecX(A_.transpose() * ldlt_.solve(b)) : VecX(ldlt_.solve(VecX(A_.transpose() * b)));
}

VecX SparseMinimumNorm::solve(const VecX& b) const {
  VecX x = apply(b);
  x += apply(b - A_ * x);  // (one refinement step)
  return x;
}

}  // namespace loopdyn
