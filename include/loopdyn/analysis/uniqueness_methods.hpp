#pragma once
/// The four numerical tests of the direct-sum criterion for reaction uniqueness (paper 001,
/// sect. 3.2-3.3; paper 000, sect. 3), each working from its own factorisation of the constraint
/// matrix.
///
/// The multipliers lambda of an overconstrained system are fixed only up to a self-equilibrated
/// set: any two solutions of C^T lambda = f differ by a vector of the null space of C^T. A
/// quantity y = K lambda is therefore unique exactly when K N = 0 for a basis N of that null
/// space. For a pair X (rows C_X of C, the rest C_Y) with y = f_X = C_X^T lambda_X this is
/// C_X^T N_X = 0, equivalent to span(C^T) = span(C_X^T) (+) span(C_Y^T) (direct sum).
///
///   rank       rank(C_X) + rank(C_Y) - rank(C) = 0 (paper 001, sect. 3.3; paper 000, eq. (27));
///              for a general element, rank([C^T; K]) = rank(C^T)
///   qr         C E = Q R with column pivoting; the last p columns of Q span the null space of
///              C^T; B_X = C_X^T Q_X^col = 0 (paper 001, eqs. (21)-(27))
///   svd        C^T = U S V^T; the right singular vectors of the zero singular values span the
///              null space; B = C_X^T V_X^n = 0 (paper 000, eqs. (38)-(44))
///   nullspace  N from an LU factorisation with full pivoting of C^T (any basis will do);
///              C_X^T N_X = 0 (paper 000, eqs. (45)-(51))
///
/// Second step (paper 000, sect. 3.1): a single multiplier lambda_k is unique exactly when row k
/// of N is zero, i.e. when row k of C is independent of all the others.
///
/// All tests take the dimensionless C_s (kinematics/scaling.hpp); row and column scaling change
/// neither the spans nor the zero rows of N, so the answers are those for C, in any units.

#include <optional>
#include <string_view>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

enum class UniquenessMethod { Rank, QR, SVD, Nullspace };

std::string_view methodName(UniquenessMethod method);
std::optional<UniquenessMethod> methodFromName(std::string_view name);

/// Relative threshold of the QR, SVD and nullspace tests on ||B|| / ||K|| (and on the rows of
/// N). For a unique element B is rounding noise (~1e-15 at the bundled models' regular
/// configurations); for a non-unique one ||B|| / ||K|| is the sine of an angle between force
/// subspaces, 1e-2 or more for the bundled models. 1e-8 sits in the middle, in decades.
inline constexpr Scalar kUniquenessThreshold = 1e-8;

/// One test's answer about one element.
struct Decision {
  bool unique = true;
  /// rank: the rank defect (r_X + r_Y - r, or rank([C^T; K]) - r); qr/svd/nullspace:
  /// ||B|| / ||K|| (Frobenius norms), between 0 and 1 for orthonormal bases.
  Scalar indicator = 0;
  /// How clear-cut the decision is: decades between the deciding quantity and its threshold
  /// (rank: the pivot nearest to the rank threshold; others: ||B|| / ||K|| against the
  /// uniqueness threshold). Below ~2 the answer depends on the thresholds.
  Scalar margin = 0;
};

/// One method, with its factorisation of C_s done once, answering questions about elements.
class UniquenessTest {
 public:
  /// C_s: (m + h) x n, dimensionless. rank_threshold: relative to the largest pivot (or
  /// singular value) of C_s. uniqueness_threshold: see kUniquenessThreshold.
  UniquenessTest(UniquenessMethod method, const MatX& C_s, Scalar rank_threshold, Scalar uniqueness_threshold);

  UniquenessMethod method() const { return method_; }
  /// Rank of C as this method's factorisation decides it.
  int rank() const { return rank_; }

  /// Is y = K lambda_s unique? K: k x (m + h), acting on the scaled multipliers.
  Decision element(const MatX& K) const;
  /// Is the reaction f_X = C_X^T lambda_X of the pair with rows [row, row + rows) unique?
  Decision pair(int row, int rows) const;
  /// Is the single multiplier lambda_row unique?
  Decision component(int row) const;

 private:
  int rankOf(const MatX& A, Scalar& margin) const;
  Decision nullBasisDecision(const MatX& B, Scalar scale) const;
  /// Throws std::logic_error unless N is an orthonormal basis of the null space of C_s^T: a
  /// wrong basis (issue 22) would silently turn unique reactions into non-unique ones.
  void verifyNullBasis() const;
  /// Rows [row, row + rows) of the null-space basis N (none of its columns when C has full row rank).
  MatX nullRows(int row, int rows) const;

  UniquenessMethod method_;
  Scalar uniqueness_threshold_;
  Scalar pivot_threshold_ = 0;  ///< absolute: rank_threshold times the largest pivot of C_s
  int rank_ = 0;
  Scalar rank_margin_ = 0;
  MatX C_;  ///< C_s
  MatX N_;  ///< orthonormal basis of the null space of C_s^T (qr, svd, nullspace), checked
};

}  // namespace loopdyn
