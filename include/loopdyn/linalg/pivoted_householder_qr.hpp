#pragma once
/// The Householder QR with column pivoting, A P = Q R, with Q kept as its reflectors
/// (Golub & Van Loan, Algorithm 5.4.1): at step k the remaining column of largest norm is swapped
/// to k (the first of equal ones) and a reflector H_k = I - v_k v_k^T / beta_k zeroes it below the
/// diagonal; Q = H_0 H_1 ... H_{s-1}, s = min(rows, cols). The remaining norms are downdated, and
/// recomputed where that cancels (LAPACK's rule).
///
/// What the singular watch reads (|R_jj| / |R_11| and which row of C a pivot is) and what the
/// projection formulation needs (Q1 p, Q1^T x and R11^-T p for the first r pivots,
/// tangent_space.hpp) without ever forming Q: applying r reflectors to a vector costs about
/// 4 r rows, forming Q1 about 4 r^2 rows. Plain loops over the column-major storage: on the double
/// four-bar's 15 x 14 C_s^T, Eigen's ColPivHouseholderQR, through dynamic-size blocks, takes 45k
/// instructions and forming Q1 from it 20k more; this takes 21k (callgrind; with Eigen's vectorised
/// maps for the reflections, 23k).
/// Same R as Eigen's up to rounding, with the same signs: R_kk = -sign(x_0) |x|, and where the
/// column is already zero below the diagonal H_k = I and R_kk = x_0.

#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

class PivotedHouseholderQr {
 public:
  /// Factorises A (rows x cols); no allocation once sized for A's shape.
  void compute(const MatX& A);
  /// |R_jj|, j < min(rows, cols): non-increasing.
  const VecX& diagonal() const { return diagonal_; }
  /// pivots()[j]: the column of A taken at step j.
  const std::vector<int>& pivots() const { return pivots_; }
  /// R_ij, i <= j < cols (R's entries below the diagonal are zero and are not stored).
  Scalar r(Eigen::Index i, Eigen::Index j) const { return i == j ? signed_diagonal_(i) : W_(i, j); }
  /// X <- H_0 H_1 ... H_{count-1} X (count <= min(rows, cols)): with count = s, Q X; with X's rows
  /// from `count` on zero, Q's first `count` columns times X's first `count` rows.
  void applyReflectors(Eigen::Ref<MatX> X, int count) const;
  /// X <- H_{count-1} ... H_1 H_0 X: with count = s, Q^T X; its first `count` rows are those of
  /// Q^T X for every count (the later reflectors leave them alone).
  void applyReflectorsTransposed(Eigen::Ref<MatX> X, int count) const;

 private:
  void reflect(Eigen::Index k, Scalar* x) const;  ///< x <- H_k x (x: one column of `rows` entries)

  MatX W_;                   ///< R above the diagonal, v_k from the diagonal down in column k
  VecX half_vtv_;            ///< v_k^T v_k / 2 (0: H_k = I)
  VecX norms_, exact_;       ///< squared remaining column norms, and at their last recomputation (scratch)
  VecX diagonal_, signed_diagonal_;  ///< |R_jj| and R_jj
  std::vector<int> pivots_;
};

}  // namespace loopdyn
