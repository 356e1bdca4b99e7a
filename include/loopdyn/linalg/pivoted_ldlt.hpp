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
/// and the interchanges are a third of the instructions on a 14 x 14 G. factorizeRegular(ratio)
/// therefore eliminates in the given order on the lower triangle alone (an LDL^T of a positive
/// definite matrix is backward stable without pivoting, Golub & Van Loan sect. 4.2.3) and succeeds
/// where every pivot is at least `ratio` of the largest. Dependent or nearly dependent rows give a
/// pivot below that (d_k = 1 / (G_11..kk^-1)_kk, at rounding level for a dependent row whatever
/// the order), and the pivoted factorisation above decides on G as filled (restored from its upper
/// triangle, or filled again: the kinetic Gram matrix fills only the lower triangle while its
/// rows were independent the last time, and the whole where they were not).
/// That elimination also uses G's sparsity (rows on different bodies do not couple): given the
/// entries of G that may be nonzero (setPattern), the symbolic elimination lists those of L, and
/// only they are scaled and update the Schur complement (zero ones would update nothing: the same
/// result to the bit). The double four-bar's 14 x 14 G: 6.6k instructions dense, 3.3k stopping
/// each column at its last nonzero, 2.4k with the pattern.

#include <span>
#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

class PivotedLdlt {
 public:
  /// The matrix to factorise: fill it (n x n, symmetric), then call factorize.
  MatX& matrix() { return G_; }
  /// The entries of G's lower triangle that may be nonzero (column-major positions i + j n,
  /// i >= j), for the elimination without pivoting to skip the others (and those of L they
  /// cannot fill in). Without it, for another size of G, every entry may be nonzero.
  void setPattern(Eigen::Index n, std::span<const Eigen::Index> entries);
  /// Factorises matrix() in place with diagonal pivoting (matrix() filled whole, symmetric);
  /// with max_rank >= 0 at most that many pivots are nonzero (the rest taken as dependent).
  void factorize(Scalar threshold, Eigen::Index max_rank = -1);
  /// Factorises matrix() in place in the given order, reading its lower triangle alone (see the
  /// header): true where every pivot is at least `ratio` of the largest. Where it fails, matrix()
  /// is restored for factorize if it was filled `whole` (symmetric: restored from the untouched
  /// upper triangle), and otherwise left overwritten for the caller to fill again.
  bool factorizeRegular(Scalar ratio, bool whole = false);
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
  /// L's pattern from `nonzero` (n x n, column-major; filled in on the way).
  void eliminateSymbolically(Eigen::Index n, std::vector<char>& nonzero);

  MatX G_;                  ///< G, then L below the diagonal
  VecX D_;                  ///< pivots (zero for dependent rows)
  std::vector<int> perm_;   ///< perm_[k]: the row of G factorised at step k
  std::vector<int> end_;    ///< L's column k is zero from row end_[k] on
  // the pattern of L without pivoting (setPattern): column k may be nonzero in the rows
  // nonzero_[start_[k] .. start_[k+1])
  std::vector<int> start_;
  std::vector<int> nonzero_;
  Eigen::Index pattern_size_ = -1;  ///< the size of G the pattern is for
  mutable VecX work_;       ///< scratch of solveInPlace (one object per thread)
  int rank_ = 0;
  Scalar pivot_ratio_ = 1;
  bool regular_ = false;
};

}  // namespace loopdyn
