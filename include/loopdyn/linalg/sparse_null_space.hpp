#pragma once
/// The null space of a sparse wide matrix A (rows x n), for a matrix too large for a dense QR: a
/// rank-revealing sparse QR of A^T (SuiteSparseQR, `libsuitesparse-dev`), A^T P = Q [R; 0], in a
/// fill-reducing column order, a column counted dependent where its part left after the columns
/// before it is at most `threshold` times A's largest row norm (Heath's rule, SPQR's `tol`: the
/// dense pivoted QR's |R_kk| / |R_11| >= threshold read in SPQR's order). The null space is Q's last
/// n - rank columns, formed by applying Q's reflectors to them: O(nonzeros of the reflectors) a
/// column. Heath's rule reveals a rank gap of several decades (a singular configuration crossed,
/// where some rows become dependent) as the dense pivoted QR does; it is not a guaranteed
/// rank-revealing factorisation near its threshold, which the callers keep for small matrices.

#include "loopdyn/linalg/lanczos.hpp"

namespace loopdyn {

struct SparseNullSpace {
  bool ok = false;  ///< the factorisation ran
  int rank = 0;     ///< rows of A found independent
  MatX basis;       ///< n x (n - rank), orthonormal columns with A basis ~ 0
};

/// The null space of A at the relative rank threshold (see above).
SparseNullSpace sparseNullSpace(const SparseMatrix& A, Scalar threshold);

}  // namespace loopdyn
