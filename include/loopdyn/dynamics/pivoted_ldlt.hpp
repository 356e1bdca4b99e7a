#pragma once
/// P G P^T = L D L^T of a symmetric positive semidefinite G by symmetric Gaussian elimination with
/// diagonal pivoting, pivots at or below a threshold times the first taken as zero: the solver of
/// every kinetic Gram matrix (kinetic_gram.hpp) and of the divide-and-conquer algorithm's joint
/// equations (dca.hpp), both singular for redundant constraints.
///
/// At step k the largest remaining diagonal of the Schur complement is moved to k (Golub & Van
/// Loan, sect. 4.2.9 / the pivoted Cholesky of sect. 4.2.8, without square roots). G is positive
/// semidefinite, so the pivots decrease and |L_ik| <= 1; once the largest remaining one is at or
/// below the threshold times the first, the rest of G is dependent rows at rounding level: those
/// pivots are zero, their columns of L zero, and solveInPlace sets those components of the
/// solution to zero -- one of the many solutions of a consistent singular system. (Eigen's LDLT
/// does the same arithmetic through dynamic-size blocks at 4x the instructions for a 14 x 14 G, and
/// inverts pivots down to the smallest positive double.)

#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

class PivotedLdlt {
 public:
  /// The matrix to factorise: fill it (n x n, symmetric), then call factorize.
  MatX& matrix() { return G_; }
  /// Factorises matrix() in place.
  void factorize(Scalar threshold);
  /// r <- w with G w = r, zero along zero pivots.
  void solveInPlace(Eigen::Ref<VecX> r) const;
  /// Each column of R likewise.
  void solveColumnsInPlace(Eigen::Ref<MatX> R) const;
  /// Number of nonzero pivots.
  int rank() const { return rank_; }
  /// The last nonzero pivot over the first (1 for an empty G): near 1 / cond(G) on G's range.
  Scalar pivotRatio() const { return rank_ > 0 ? D_(rank_ - 1) / D_(0) : 1; }
  Eigen::Index size() const { return G_.rows(); }

 private:
  MatX G_;                  ///< G, then L below the diagonal
  VecX D_;                  ///< pivots (zero for dependent rows)
  std::vector<int> perm_;   ///< perm_[k]: the row of G factorised at step k
  mutable VecX work_;       ///< scratch of solveInPlace (one object per thread)
  mutable MatX work_matrix_;  ///< scratch of solveColumnsInPlace
  int rank_ = 0;
};

}  // namespace loopdyn
