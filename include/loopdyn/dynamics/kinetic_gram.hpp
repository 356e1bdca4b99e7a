#pragma once
/// The constraint rows seen through the kinetic metric: G = C_r M^-1 C_r^T with C_r = diag(row) C
/// (kinematics/scaling.hpp), over the first k rows of C (k = m: the holonomic rows; k = m + h: all),
/// factorised as P^T L D L^T P with diagonal pivoting.
///
/// Every absolute formulation solves with it (elimination over its kept rows, compute's row list):
///   accelerations (Gauss's principle, paper 001 eqs. (10)-(11)): G lambda_s = C_r M^-1 F - Gamma_r,
///                 a = M^-1 (F - C_r^T lambda_s), lambda = diag(row) lambda_s;
///   velocities    (least change in the kinetic metric onto C v + b = 0):
///                 v <- v - M^-1 C_r^T mu, G mu = C_r v + b_r;
///   positions     (a Newton step of least kinetic-metric length onto Phi = 0):
///                 dq = -M^-1 C_r^T nu, G nu = Phi_r (holonomic rows).
///
/// Redundant constraints make G singular. Diagonal pivoting takes the largest remaining diagonal
/// first, so the dependent rows come last with pivots at rounding level; pivots below
/// kGramPivotThreshold times the largest are taken as zero and their components of the solution
/// set to zero (pivoted_ldlt.hpp). Independent rows away from singular configurations need no
/// pivoting: G is first eliminated in the rows' order and that is kept where every pivot is at
/// least kRegularPivotRatio of the largest (pivoted_ldlt.hpp; the IFToMM double four-bar's G,
/// 14 x 14: 10.3k -> 6.3k instructions a factorisation). That picks one of the many solutions lambda_s, but not a different motion: for two
/// solutions of G w = r (r in range G), (w1 - w2)^T G (w1 - w2) = |M^-1/2 C_r^T (w1 - w2)|^2 = 0,
/// so C_r^T w, the accelerations and the velocity and position corrections are the same. The
/// least-norm multipliers reported as reactions are computed separately (formulation.hpp).
///
/// Large G (kSparseGramRows rows or more: ladders, long chains) are sparse -- two rows meet only
/// where they share a body -- and the dense pivoted LDL^T costs O(rows^3) (a 386-row ladder: 81M
/// instructions a call). There G is first factorised by Eigen's SimplicialLDLT in a fill-reducing
/// (AMD) order without pivoting, on the pattern of the rows' bodies (fixed by the model, analysed
/// once); the result is kept only where every pivot is at least kRegularPivotRatio of the largest
/// (independent rows, far from singular configurations). Otherwise -- redundant rows, or next to a
/// singular configuration -- the dense pivoted LDL^T decides, as for small G. (Eigen's
/// SimplicialLDLT permutes G into a new matrix at every factorisation: this path allocates a few
/// times a call; the bundled models' G are small and stay allocation-free, tests/allocation.)
/// Measured on the A02 ladder of 64 loops (386 rows): one lagrange right-hand side 89M -> 6.5M
/// instructions. C_r and M^-1 C_r^T are kept by bodies (each row's entries on the bodies it
/// touches: O(rows), see Ct_), not as dense rows x nv matrices: the same ladder's right-hand side
/// 224 -> 53 us, N = 256 loops 9.9 ms -> 0.23 ms (growth about n^1.05).

#include <Eigen/SparseCholesky>

#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/linalg/pivoted_ldlt.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Pivots of G at or below this fraction of the largest count as zero: squared singular values,
/// so dependence below 1e-5 of the largest singular value of M^-1/2 C_r^T. Structurally redundant
/// rows give pivots near 1e-16; the simulation does not evaluate closer to a singular
/// configuration than 1e-2 (sim/simulation.hpp), where pivots are near 1e-4.
inline constexpr Scalar kGramPivotThreshold = 1e-10;

/// G with at least this many rows is tried sparse first (see the header); smaller G always dense.
/// Beyond kLargestDenseSize rows (model/model.hpp) the dense path is out of reach: the sparse
/// factorisation is kept whatever its pivots, and where it does not exist (a zero pivot: dependent
/// rows) the solutions are not-a-number, which the simulation reports as an evaluation it could
/// not make.
inline constexpr int kSparseGramRows = 64;
/// A factorisation without pivoting (sparse, or dense in the rows' order) is kept when its smallest
/// pivot is at least this fraction of its largest: G's condition below about 1e8, so its solutions
/// are accurate to 1e-8 relative at worst. Regular evaluations stay further from singular
/// configurations than that (pivots near 1e-4 there, see kGramPivotThreshold); redundant rows give
/// pivots at rounding level, 1e-16.
inline constexpr Scalar kRegularPivotRatio = 1e-8;

class KineticGram {
 public:
  /// Forms and factorises G over the first `rows` rows of kin.C (kin and inverse_mass evaluated at
  /// the same configuration).
  void compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
               const InverseMass& inverse_mass, int rows);
  /// The same over the rows `rows` of kin.C (ascending; elimination's kept rows): G's row k is
  /// C's row rows[k].
  void compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
               const InverseMass& inverse_mass, const std::vector<int>& rows);
  /// r <- w with G w = r, zero along zero pivots (see the header).
  void solveInPlace(Eigen::Ref<VecX> r) const;
  /// out <- C_r v (v: nv entries; out: rows()).
  void rowsTimes(const VecX& v, VecX& out) const;
  /// a <- a - M^-1 C_r^T w (w: rows() entries; a: nv).
  void subtractInverseMassRowsTransposedTimes(const VecX& w, VecX& a) const;
  int rows() const { return static_cast<int>(selected_.size()); }
  /// C's rows that G is over (G's row k: C's row selectedRows()[k]).
  const std::vector<int>& selectedRows() const { return selected_; }
  /// Rows independent at the pivot threshold, and the last nonzero pivot over the first (the
  /// sparse factorisation: all rows, and its smallest pivot over its largest).
  int rank() const { return sparse_ ? rows() : ldlt_.rank(); }
  Scalar pivotRatio() const { return sparse_ ? sparse_pivot_ratio_ : ldlt_.pivotRatio(); }
  /// The last compute kept the sparse factorisation (see the header).
  bool sparse() const { return sparse_; }

 private:
  /// Adds every body's part of G (D velocity coordinates a body), term by term (gram_terms_), to
  /// its lower triangle, and with Upper to the upper one as well.
  template <int D, bool Upper>
  void addBodyBlocks();
  void addBodyBlocks(const Model& model, bool upper);
  /// Ct_ (C_r^T by bodies) from kin.C: G's row k is C's row row_of(k), scaled by its row scale.
  template <class RowOf>
  void gatherRows(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling, RowOf row_of);
  /// M^-1 C_r^T, G and its factors from C_r.
  void factorize(const Model& model, const InverseMass& inverse_mass);
  /// body_rows_ for selected_ (fixed by the model: once per selection).
  void findBodyRows(const Model& model);
  /// The sparse path: G's values on the pattern and their factorisation; false where it is not kept.
  template <int D>
  bool computeSparse(const Model& model, int rows);
  /// G's pattern from the rows' bodies and its symbolic analysis (once per row count).
  void sparsePattern(int rows);

  /// C_r by bodies: M is block-diagonal and a row touches at most two bodies, so C_r is kept as
  /// its rows' D entries on each body they touch -- column block_offset_[b] + x of Ct_ holds row
  /// body_rows_[b][x]'s entries on body b, and MinvCt_ the same times M_b^-1 (D x sum of the
  /// bodies' row counts: O(rows), where dense C_r and M^-1 C_r^T are O(rows x nv))
  MatX Ct_, MinvCt_;
  std::vector<int> block_offset_;
  std::vector<int> selected_;  ///< C's rows G is over
  /// how selected_ was given (body_rows_ is for it unless None)
  enum class Selection { None, First, Listed } selection_ = Selection::None;
  PivotedLdlt ldlt_;  ///< G and its factors (dense path)
  std::vector<std::vector<int>> body_rows_;  ///< per body, G's rows that can touch it (ascending)
  /// One term of G's dense assembly: Ct_ column x (a row on a body) times M_b^-1 C_r column y (a
  /// row on the same body), added to G's entry at `lower` (column-major) and at its mirror `upper`
  /// (-1 on the diagonal); body by body, as findBodyRows lists them.
  struct GramTerm {
    int x, y;
    Eigen::Index lower, upper;  ///< (rows^2 passes 2^31 from 46 341 rows)
  };
  std::vector<GramTerm> gram_terms_;
  bool last_regular_ = true;  ///< the last dense factorisation kept the elimination without pivoting
  int dense_pattern_rows_ = -1;  ///< the row count ldlt_'s pattern is for (set at the first dense use)
  /// gram_terms_ and ldlt_'s pattern for the dense path, at its first use.
  void densePattern(int rows);
  // the sparse path
  using SparseMatrix = Eigen::SparseMatrix<Scalar>;
  bool sparse_ = false;
  int sparse_rows_ = -1;                     ///< the row count the pattern below is for
  std::vector<int> value_index_;             ///< per (body, x >= y) term in fill order: index into G's values
  SparseMatrix Gs_;                          ///< G's lower triangle
  Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>> sparse_ldlt_;
  Scalar sparse_pivot_ratio_ = 1;
  mutable VecX sparse_work_;  ///< scratch of solveInPlace (one object per thread)
};

}  // namespace loopdyn
