#pragma once
/// The largest eigenvalue of a symmetric positive semi-definite operator by the Lanczos process
/// with full reorthogonalisation (Golub & Van Loan, Matrix Computations, 4th ed., sect. 10.1):
/// the Krylov space of a fixed start vector, the largest eigenvalue of its tridiagonal projection
/// T_k after each step, stopped when that Ritz value moves less than `tolerance` relative or the
/// space is exhausted. It needs only products with the operator: with a sparse matrix, O(nnz) a
/// step; with a factorised one's inverse, the smallest eigenvalue of the matrix. The Ritz value
/// never exceeds the eigenvalue and converges first to the extreme end of the spectrum; within a
/// cluster of nearly equal largest eigenvalues it lands inside the cluster.

#include <functional>
#include <vector>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

/// y = A x for the operator's n x n matrix A.
using LinearOperator = std::function<void(const VecX& x, VecX& y)>;

/// The largest eigenvalue of A (n x n, symmetric positive semi-definite), at most max_steps
/// Lanczos steps. The start vector is fixed (1, 2, ..., n scaled): the same A gives the same
/// number. reorthogonalize = false: the three-term recurrence alone, O(n) memory and work a step
/// besides the product, for the extreme eigenvalue only (lost orthogonality repeats converged Ritz
/// values without moving the largest).
Scalar largestEigenvalue(Eigen::Index n, const LinearOperator& A, Scalar tolerance = 1e-12, int max_steps = 80,
                         bool reorthogonalize = true);

using SparseMatrix = Eigen::SparseMatrix<Scalar>;

/// The extreme eigenvalues of sparse Gram matrices G = A A^T (symmetric positive semi-definite,
/// both triangles stored) met one after another with one sparsity pattern, as along a motion:
/// lambda_max by Lanczos on G, lambda_min by Lanczos on G^-1 through a sparse LDL^T whose
/// fill-reducing (AMD) order and symbolic analysis are done once for the pattern, O(nnz) a Lanczos
/// step for a sparse factor. Ritz values converge from inside the spectrum: lambda_max can come
/// out below and lambda_min above the true ones where they cluster (about 1e-6 relative on the
/// ladders, tests/linalg/lanczos_test.cpp).
class GramEigenvalues {
 public:
  /// lambda_max(G); 0 for an empty G.
  Scalar largest(const SparseMatrix& G) const;
  /// lambda_min(G); 0 where G is singular to rounding (a factor pivot at or below zero).
  Scalar smallest(const SparseMatrix& G);

 private:
  Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt_;
  std::vector<int> outer_, inner_;  ///< the pattern ldlt_ was analysed for
};

/// sigma_min / sigma_max of A from its Gram matrix G = A A^T, sqrt(lambda_min / lambda_max) by
/// GramEigenvalues: 0 where G is singular to rounding; 1 for an empty G. The ratio can come out
/// above the true one where the extreme eigenvalues cluster (the watch's test). G's rounding limits
/// the ratios it resolves to about sqrt(eps) = 1.5e-8.
Scalar gramSingularValueRatio(const SparseMatrix& G);

}  // namespace loopdyn
