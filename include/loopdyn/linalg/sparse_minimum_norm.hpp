#pragma once
/// The minimum-norm least-squares solution x = A^+ b of A x = b for a sparse A of full rank:
/// independent rows (x = A^T (A A^T)^-1 b, the smallest x that solves it) or independent columns
/// (x = (A^T A)^-1 A^T b, the least-squares solution), through a sparse LDL^T of the smaller Gram
/// matrix in approximate-minimum-degree order (Eigen's SimplicialLDLT): O(nonzeros of the factor) a
/// solve, linear in A's size for the row structure of a chain, a ladder or a tree with local loops.
/// The Gram matrix squares A's condition; one step of iterative refinement recovers what that loses
/// where sigma_min / sigma_max of A is above about 1e-6. Where A is rank-deficient (a factor pivot
/// at or below zero) `ok()` is false and the callers take their dense, rank-revealing route.

#include <Eigen/SparseCholesky>

#include "loopdyn/linalg/lanczos.hpp"

namespace loopdyn {

class SparseMinimumNorm {
 public:
  explicit SparseMinimumNorm(SparseMatrix A);
  /// The factor exists and its pivots are positive.
  bool ok() const { return ok_; }
  /// A^+ b (requires ok()).
  VecX solve(const VecX& b) const;
  /// x - A^+ A x: x's part in the null space of A (independent rows).
  VecX nullSpacePart(const VecX& x) const { return x - solve(A_ * x); }
  const SparseMatrix& matrix() const { return A_; }

 private:
  /// One application of A^+ (through the factor of the smaller Gram matrix).
  VecX apply(const VecX& b) const;
  SparseMatrix A_;
  bool wide_ = true;  ///< rows <= columns: A A^T factored; else A^T A
  Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt_;
  bool ok_ = false;
};

}  // namespace loopdyn
