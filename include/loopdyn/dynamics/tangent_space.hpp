#pragma once
/// The tangent subspace of the constraint manifold from the QR factorisation of the transposed
/// constraint matrix (paper 004, sects. 2.3-2.5), in the dimensionless velocity coordinates
/// v~ = diag(col)^-1 v of kinematics/scaling.hpp, where A = C_s = diag(row) C diag(col):
///
///   A^T P = Q R = [Q1 Q2] [R11 R12; 0 0]                     (eqs. (8), (23), (26))
///
/// with column pivoting P, so that the diagonal of R falls: the first r pivoted rows of A (K) are
/// independent, Q1 (n x r) spans range A^T and Q2 (n x (n - r)) is an orthonormal tangent basis.
/// Where |R_jj| / |R_11| drops below a threshold for j >= r_s, the configuration has rank r_s and
/// the admissible motions are T = [Q1s Q2] (eqs. (25), (28)).
///
/// Re-orthogonalisation (paper 004, App. A, whose text is lost; derived here). Given a basis T0
/// (n x f) that has drifted (integrated, or continued to a new configuration), the closest
/// orthonormal basis of the new tangent space,
///   min ||X - T0||_F  subject to  X^T X = I,  Q1^T X = 0,
/// is X = P T0 (T0^T P T0)^-1/2 with P = I - Q1 Q1^T. Proof: every feasible X is N U with N an
/// orthonormal basis of range P and U^T U = I; ||N U - T0||^2 = 2 f - 2 tr(U^T N^T T0), and
/// tr(U^T G) over U^T U = I is largest for the polar factor U = G (G^T G)^-1/2 of G = N^T T0
/// (von Neumann's trace inequality), whence X = N N^T T0 (T0^T N N^T T0)^-1/2. It needs G of full
/// column rank (T0 not orthogonal to the new tangent space); the cost is the one paper 004 lists
/// (an f x f square root and products of n x f by f x f matrices).

#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/linalg/pivoted_householder_qr.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// The pivoted QR of A^T = C_s^T and what the projection formulation reads from it. Q stays a
/// product of reflectors (pivoted_householder_qr.hpp): Q1 is applied, never formed.
struct TangentFactorization {
  PivotedHouseholderQr qr;
  MatX At;             ///< C_s^T, n x (m + h)
  std::vector<int> K;  ///< rows of C in pivot order, the first r used
  int r = 0;

  /// Factorises C_s^T from the evaluated kin.C; r = rank columns of Q make Q1.
  void compute(const KinematicsWorkspace& kin, const ConstraintScaling& scaling, int rank);
  /// The same for the dimensionless transposed matrix already in At (joint coordinates:
  /// joint_space_equations.hpp).
  void computeFromAt(int rank);
  /// The K rows (the first r pivots) of `rows` into out.
  template <class In, class Out>
  void pivotedRows(const In& rows, Out& out) const {
    out.resize(r, rows.cols());
    for (int k = 0; k < r; ++k) out.row(k) = rows.row(K[static_cast<std::size_t>(k)]);
  }
  /// out = Q1 p (resized to n x p.cols(); p has r rows): r reflectors applied to [p; 0].
  template <class Out>
  void q1Times(const Eigen::Ref<const MatX>& p, Out& out) const {
    out.resize(At.rows(), p.cols());
    out.topRows(r) = p;
    out.bottomRows(At.rows() - r).setZero();
    qr.applyReflectors(out, r);
  }
  /// X <- (I - Q1 Q1^T) X: the part of X orthogonal to range Q1.
  void projectOutQ1(Eigen::Ref<MatX> X) const;
  /// p <- R11^-T p, column by column. A pivot at rounding level (below 1e-12 of the first: right
  /// at a singular configuration, where a motion that starts there is evaluated) gives a zero
  /// component instead of a division by rounding.
  void solveTransposedInPlace(Eigen::Ref<MatX> p) const;
  /// |R_jj| / |R_11| for j < min(n, m + h): falls to zero where the rank drops.
  Scalar diagonalRatio(int j) const;
  /// The row of C taken at pivot step j.
  int pivot(int j) const;
  /// Number of diagonal ratios at or above `threshold`: the rank at that threshold.
  int rankAt(Scalar threshold) const;
  /// The full orthogonal factor Q (n x n).
  MatX fullQ() const;
  /// Its last k columns (n x k), O(n k rank) without forming Q: past the rank, a basis of the
  /// null space of C_s.
  MatX lastColumnsOfQ(int k) const;
};

/// X = P T0 (T0^T P T0)^-1/2, P = I - Q1 Q1^T: the closest orthonormal basis orthogonal to Q1
/// (see the header). Returns false, leaving T unchanged, when T0 has no full-rank projection.
bool reorthogonalize(const MatX& Q1, Eigen::Ref<MatX> T);
/// The same with Q1 the factorization's (applied as reflectors).
bool reorthogonalize(const TangentFactorization& tf, Eigen::Ref<MatX> T);
/// The same with P = N N^T, N an orthonormal basis of the complement of Q1 (a sparse QR's).
bool reorthogonalizeInto(const MatX& N, Eigen::Ref<MatX> T);

/// The admissible motions at one configuration (`loopdyn analyze --motions`): an orthonormal
/// basis of null C_s (rank decided with `threshold` on |R_jj| / |R_11|), returned in velocity
/// units (v = diag(col) v~), each column of unit scaled norm. First come the motions of one body
/// alone, each with its words (analysis/one_body_motions.hpp), then the rest, orthonormal to them.
struct AdmissibleMotions {
  int rank = 0;
  MatX motions;                    ///< nv x (nv - rank), in m/s and rad/s
  std::vector<std::string> words;  ///< per column: a one-body motion's words, or empty
};
AdmissibleMotions admissibleMotions(const Model& model, const KinematicsWorkspace& kin, Scalar threshold);

}  // namespace loopdyn
