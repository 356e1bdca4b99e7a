#pragma once
/// Gauss's principle on a set of independent constraint rows (paper 001, sect. 3.1, eq. (11)
/// without the eliminated rows) for a dense mass matrix: elimination in joint coordinates
/// (elimination.hpp, JointCoordinateEquations). (In absolute coordinates M is block-diagonal and elimination
/// solves with the kept rows' kinetic Gram matrix instead, kinetic_gram.hpp; both share the
/// independence test and the diagnosis below.)
///
/// In the metric of the mass matrix M = L L^T, with At = L^-1 C^T diag(row) (one column per
/// constraint row, scaled as kinematics/scaling.hpp) and z0 = L^-1 F, the rows K give
///   (A_K A_K^T) w = A_K z0 - (diag(row) Gamma)_K,   z = z0 - A_K^T w,
/// and then a = L^-T z and the multipliers lambda_K = diag(row)_K w (the other rows' zero).

#include <Eigen/Cholesky>

#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

/// Kept rows whose relative Cholesky pivot falls below this count as dependent (Gram condition
/// above 1e12).
inline constexpr Scalar kDependentPivot = 1e-6;

struct KeptRowsSolver {
  /// Solves on the columns `kept` of At (scaled_gamma: diag(row) Gamma over all columns). False
  /// when those columns are numerically dependent (a pivot ratio below kDependentPivot); w and z
  /// are then undefined.
  bool solve(const MatX& At, const VecX& z0, const VecX& scaled_gamma, const std::vector<int>& kept);

  /// Why the kept columns failed: the rank of all of At and of the kept columns (QR with column
  /// pivoting, the same 1e-6), the kept columns found dependent, and the columns QR keeps here.
  struct Diagnosis {
    int rank = 0;                  ///< of all of At: below kept.size() at a singular configuration
    /// kept columns QR leaves out; at least the last of their pivots (the weakest), since the
    /// solves' tests on Gram matrices can fail before QR's
    std::vector<int> dependent;
    std::vector<int> independent;  ///< the first `rank` pivots of all of At, ascending
  };
  static Diagnosis diagnose(const MatX& At, const std::vector<int>& kept);

  VecX w, z;  ///< the last solve's

 private:
  MatX At_K, gram;
  VecX rhs_K;
  Eigen::LLT<MatX> gram_llt;
};

}  // namespace loopdyn
