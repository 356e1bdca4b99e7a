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
///
/// Away from singular configurations the rows are independent and pivoting only costs: the search
/// and the interchanges are a third of the instructions on a 14 x 14 G. factorize(threshold,
/// regular_ratio) therefore first eliminates in the given order on the lower triangle alone (an
/// LDL^T of a positive definite matrix is backward stable without pivoting, Golub & Van Loan sect.
/// 4.2.3) and keeps it where every pivot is at least regular_ratio of the largest. Dependent or
/// nearly dependent rows give a pivot below that (d_k = 1 / (G_11..kk^-1)_kk, at rounding level for
/// a dependent row whatever the order), and the pivoted factorisation above decides, on G as filled.
/// That elimination also uses G's sparsity (rows on different bodies do not couple): each column
/// of L ends at its last nonzero, and zero entries update nothing (the double four-bar's 14 x 14
/// G: 6.6k -> 3.3k instructions; the solves stop at the same ends).

#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

class PivotedLdlt {
 public:
  /// The matrix to factorise: fill it (n x n, symmetric), then call factorize.
  MatX& matrix() { return G_; }
  /// Factorises matrix() in place; with regular_ratio > 0 first without pivoting (see the header),
  /// which needs matrix() filled exactly symmetric (a failed attempt restores its lower triangle
  /// from the upper one).
  void factorize(Scalar threshold, Scalar regular_ratio = 0);
  /// r <- w with G w = r, zero along zero pivots.
  void solveInPlace(Eigen::Ref<VecX> r) const;

  /// The factors, for products G^T W^+ G = Z^T D^+ Z with Z = L^-1 P G formed by the caller (the
  /// divide-and-conquer algorithm's node update, dca.hpp): permutation()[k] is the row of G
  /// factorised at step k, lower() holds L below its diagonal (zero in the columns of zero
  /// pivots), pivots() are D (zero for dependent rows).
  const std::vector<int>& permutation() const { return perm_; }
  const MatX& lower() const { return G_; }
  const VecX& pivots() const { return D_; }
  /// r <- P^T L^-T D^+ r: from the factorisation's order back to G's rows (solveInPlace is
  /// this after r <- L^-1 P r).
  void upperSolveInPlace(Eigen::Ref<VecX> r) const;
  /// Number of nonzero pivots.
  int rank() const { return rank_; }
  /// The smallest nonzero pivot over the largest (1 for an empty G): near 1 / cond(G) on G's range.
  Scalar pivotRatio() const { return pivot_ratio_; }
  /// The last factorize kept the elimination without pivoting.
  bool regular() const { return regular_; }
  Eigen::Index size() const { return G_.rows(); }

 private:
  /// The elimination in the given order on G's lower triangle; true where every pivot is at least
  /// `ratio` of the largest, otherwise G restored.
  bool factorizeRegular(Scalar ratio);

  MatX G_;                  ///< G, then L below the diagonal
  VecX D_;                  ///< pivots (zero for dependent rows)
  std::vector<int> perm_;   ///< perm_[k]: the row of G factorised at step k
  std::vector<int> end_;    ///< L's column k is zero from row end_[k] on
  mutable VecX work_;       ///< scratch of solveInPlace (one object per thread)
  int rank_ = 0;
  Scalar pivot_ratio_ = 1;
  bool regular_ = false;
};

}  // namespace loopdyn
