#pragma once
/// R's diagonal and the column order of the Householder QR with column pivoting, A P = Q R, without
/// Q: what the singular watch reads at every step end and search point (|R_jj| / |R_11|, and which
/// row of C a pivot is), sim/simulation.hpp.
///
/// Golub & Van Loan, Algorithm 5.4.1: at step k the remaining column of largest norm is swapped to
/// k (the first of equal ones) and a Householder reflector zeroes it below the diagonal; the
/// reflector is applied to the columns after it and then forgotten. The remaining norms are
/// downdated, and recomputed where that cancels (LAPACK's rule). Eigen's ColPivHouseholderQR, which also forms the reflectors' coefficients and
/// works through dynamic-size blocks, takes 30k instructions on the double four-bar's 15 x 14
/// C_s^T; this takes a quarter of that. Both give the same R up to rounding and column signs.

#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

class PivotedQrDiagonal {
 public:
  /// Factorises A (rows x cols); no allocation once sized for A's shape.
  void compute(const MatX& A);
  /// |R_jj|, j < min(rows, cols): non-increasing.
  const VecX& diagonal() const { return diagonal_; }
  /// pivots()[j]: the column of A taken at step j.
  const std::vector<int>& pivots() const { return pivots_; }

 private:
  MatX W_;                   ///< A, reduced column by column (scratch)
  VecX norms_, exact_;       ///< squared remaining column norms, and at their last recomputation (scratch)
  VecX diagonal_;            ///< |R_jj|
  std::vector<int> pivots_;
};

}  // namespace loopdyn
