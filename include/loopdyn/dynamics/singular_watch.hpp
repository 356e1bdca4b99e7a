#pragma once
/// Watching a motion for singular configurations, step by step (paper 004, sect. 2.5).
///
/// The distance to a singular configuration is read from the pivoted QR of C_s^T
/// (tangent_space.hpp): |R_rr| / |R_11| at the generic rank r falls to zero where the rank drops.
/// The watch takes R's diagonal from the symmetric elimination of C_s C_s^T with diagonal
/// pivoting: column pivoting on C_s^T and diagonal pivoting on C_s C_s^T = R^T R choose the same
/// pivots, and the k-th pivot is R_kk^2, in exact arithmetic. Rounding in C_s C_s^T limits the
/// ratios it resolves to about sqrt(eps) = 1.5e-8 (the Householder QR's go to 1e-16), far below
/// the thresholds they are compared with (kSingularRatio and above); C_s C_s^T is summed body by
/// body over the rows that meet there. On the double four-bar (15 x 14) a ratio costs 20.6k
/// instructions instead of 30k (7.3k of them the constraint evaluation), and the watch takes about
/// five a step with dop853.
/// After each accepted step the ratio at its end is compared with the one at its start; where the
/// smaller of the two is below kNearSingular, the step's positions are sampled (kDipSamples
/// interior points of Formulation::Step::positions: a cubic Hermite from the step ends, no
/// evaluation of the dynamics) and, where the samples say the ratio can vanish near the smallest
/// one -- or where the samples fall into one gap and rise out of it so steeply that their lines
/// meet below zero in it -- the closest approach is found by golden-section search. A step
/// cannot jump over a passage unseen: a singular configuration crossed inside the step shows as
/// a dip in the samples, a V between them, or at an end; a step may contain several. On a large
/// model the ratio can stay at its (low) regular level between samples right up to a passage;
/// a crossing step the simulation planned is then searched by the smooth sigma_r / sigma_1.
/// A large mechanism whose equations are independent on its motion (generic rank = rows, from
/// kSparseRows rows: analysis/independent_rows.hpp) is watched on sigma_r / sigma_1 itself, from
/// Lanczos on the sparse C_s C_s^T and its sparse LDL^T: O(nonzeros) a Lanczos step instead of the
/// elimination's O(m^3), and its regular level (RankReport::generic_ratio) is read on it too.

#include <array>
#include <limits>
#include <vector>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/linalg/lanczos.hpp"

namespace loopdyn {

/// Closest approach to a singular configuration counts as a passage below this |R_rr| / |R_11|;
/// the rank there is counted with the same threshold.
inline constexpr Scalar kSingularRatio = 1e-3;
/// The smallest ratio at the ends of a step below this triggers the search inside it.
inline constexpr Scalar kNearSingular = 0.2;

/// A singular configuration the motion passed (paper 004, sect. 2.5).
struct SingularPassage {
  Scalar t = 0;
  Scalar ratio = 0;      ///< |R_rr| / |R_11| at the closest approach (sigma_r / sigma_1 where ratio_is_sigma)
  bool ratio_is_sigma = false;  ///< a large model's passage, read on the sparse route
  int rank_regular = 0;  ///< the generic rank r
  int rank = 0;          ///< the rank at the singular configuration
  MatX continuing;       ///< nv x f: the motion's admissible motions, continued through (velocity units)
  MatX new_motions;      ///< nv x (r - rank): admissible only at the singular configuration
  /// sin of the largest principal angle between the tangent spaces of the motion before and after
  /// the passage, each moved into the admissible motions at the singular configuration (App. A):
  /// near 0 when the motion stays on its branch, near 1 when it turned onto another one.
  Scalar branch_change = 0;
  /// The motion is (nearly) at rest there: where branches meet, the rigid model then does not
  /// decide which one it leaves on, and a branch change is not an error.
  bool at_rest = false;
};

/// A change of branch shows as a principal angle of this size or more between the tangent spaces
/// before and after a passage (sin; the tangent of a branch turns by O(h kappa) over the window,
/// measured below 0.02 on the bundled mechanisms, while other branches meet at large angles).
inline constexpr Scalar kBranchChange = 0.3;

/// Describes the passage at x_s (the closest approach) of a motion whose tangent bases before and
/// after, in scaled coordinates (n x f, orthonormal, tangent_space.hpp), are T_before and T_after.
/// Evaluates ws.kin and ws.tangent at x_s.
/// ratio_scale: the watch's (the rank there counted below kSingularRatio times it).
/// sparse_route: where the watch reads sigma_r / sigma_1 (a large model, its equations independent
/// at regular configurations), null C_s by a sparse QR (linalg/sparse_null_space.hpp); false: the
/// dense pivoted QR at every size (the reference the tests compare it with).
SingularPassage describePassage(const Model& model, DynamicsWorkspace& ws, const State& x_s, int rank,
                                const MatX& T_before, const MatX& T_after, Scalar ratio_scale = 1,
                                bool sparse_route = true);

/// The orthonormal tangent basis (scaled coordinates, n x (n - rank)) at the positions of x: the
/// last columns of Q in the pivoted QR of C_s^T (evaluates ws.kin and ws.tangent there); where the
/// watch reads singular values (rank = rows, independent there) a basis of the same space from
/// sparse projections of random vectors (evaluates ws.kin alone).
MatX tangentBasisAt(const Model& model, DynamicsWorkspace& ws, const State& x, int rank);

/// The thresholds above (and the simulation's, sim/simulation.hpp) are set for mechanisms whose
/// regular |R_rr| / |R_11| is at least this (every bundled model: 0.06 - 1; the 256-loop ladder
/// 0.06). A mechanism whose regular level (RankReport::generic_ratio) is lower is watched on its
/// ratio divided by level / kRegularLevel (SingularWatch's scale): its regular configurations read
/// at this level, far above the passages' thresholds (kSingularRatio, the simulation's crossing
/// ratio) and below the simulation's kProjectRatio, so that it is evaluated on its constraints as
/// near a singular configuration (off them its ill-conditioned C made lagrange take 142 521 steps
/// at rtol 1e-10 and hdca 205 266 at 1e-8 over 1 s, against 4 402 and 730 on them). Before, a
/// regular 27-body ladder at 2.2e-5 read as singular everywhere: dca crossed its whole 2 s in 64
/// collocation steps without error control (0.039 J lost, exit 0), projection followed a frozen
/// basis 2e-3 m off (exit 0), lagrange stopped as "at rest at a singular configuration".
inline constexpr Scalar kRegularLevel = 1e-2;

/// The watch's scale for a mechanism whose regular |R_rr| / |R_11| is `level`: 1 from
/// kRegularLevel up.
inline Scalar ratioScale(Scalar level) { return level > 0 && level < kRegularLevel ? level / kRegularLevel : 1; }

class SingularWatch {
 public:
  /// scale: ratioScale of the mechanism's regular level (the ratios are read divided by it).
  explicit SingularWatch(int rank, Scalar scale = 1) : r_(rank), scale_(scale) {}

  /// |R_rr| / |R_11| at the positions of x (evaluates ws.kin there), divided by the scale;
  /// sigma_r / sigma_1 where the watch reads singular values (watchedBySingularValues).
  Scalar ratioAt(const Model& model, DynamicsWorkspace& ws, const State& x) const;
  /// Starts watching at x; returns the ratio there. A mechanism without singular configurations
  /// by its structure (fullRankEverywhere: a chain, a tree) is not watched: its ratio is 1
  /// throughout, with no passage and no lock-up (a 16 384-body chain's watch took as long as its
  /// integration).
  Scalar start(const Model& model, DynamicsWorkspace& ws, const State& x);

  struct Approach {
    bool passage = false;  ///< a closest approach inside the step (or at its start), below kSingularRatio
    Scalar t = 0;
    Scalar ratio = 1;
  };
  /// After an accepted step ending at x: the passages inside it (or at its start), in time order.
  /// `predicted`: where the simulation expects a singular configuration inside the step (the
  /// plan of a crossing step), searched by sigma_r / sigma_1 when the samples miss it; NaN: none.
  /// ws is scratch: after a step with a search it holds the last point searched, not x.
  std::vector<Approach> afterStep(const Model& model, DynamicsWorkspace& ws, const Formulation::Step& step, const State& x,
                                  Scalar predicted = std::numeric_limits<Scalar>::quiet_NaN());
  /// |R_rr| / |R_11| at the end of the last step (or at the start).
  Scalar lastRatio() const { return last_ratio_; }
  /// |R_(r+1)(r+1)| / |R_11| there: at or above kSingularRatio the rank exceeds the generic rank
  /// r -- the constraints admit fewer motions than along the motion so far (a lock-up).
  Scalar lastExcessRatio() const { return last_excess_; }
  /// The equation that became independent there (the QR's pivot after the first r); -1 if none.
  int lastExcessEquation() const { return last_excess_row_; }
  /// sigma_r / sigma_1 of C_s at the positions of x (from the eigenvalues of C_s C_s^T): smooth
  /// where |R_rr| / |R_11| jumps with the pivot order, for predicting where it vanishes. Dense,
  /// except where the watch reads it itself (ratioAt: by Lanczos, O(nnz) a step; `simulate` of the
  /// 128-loop ladder 9.1 s -> 3.3 s, 256 loops 71 s -> 18 s, when only the plan read it so), to
  /// about 1e-6 relative where the smallest eigenvalues cluster. Inside a step that afterStep
  /// samples, sigma_1 is interpolated linearly in time between the step's ends (see largest_).
  Scalar singularValueRatioAt(const Model& model, DynamicsWorkspace& ws, const State& x) const;
  Scalar scale() const { return scale_; }

 private:
  int r_;
  Scalar scale_ = 1;
  Scalar last_ratio_ = 1;
  Scalar last_excess_ = 0;
  int last_excess_row_ = -1;
  /// Reads the excess ratio from the pivots of the last ratio, taken at a step end.
  void readExcess();
  /// |R_jj| / |R_11| from the pivots.
  Scalar diagonalRatio(int j) const;
  /// The rows of C that meet in C_s C_s^T, body by body (once per model).
  void findCouplings(const Model& model) const;
  /// pivots_ and pivot_row_ from gram_ (which it overwrites).
  void factorizeGram() const;
  struct Coupling {
    int i, j, body;  ///< rows i >= j both touch body
  };
  // (scratch of ratioAt: one watch per simulation)
  mutable std::vector<Coupling> couplings_;
  mutable int coupled_rows_ = -1;
  mutable MatX gram_;                  ///< C_s C_s^T at the last positions, then its Schur complements
  mutable VecX pivots_, column_;       ///< the pivots d_k = R_kk^2 in pivot order; a column of the elimination
  mutable std::vector<int> pivot_row_; ///< the row of C taken at pivot step k
  mutable std::vector<int> nonzero_;   ///< the remaining rows that meet the pivot's
  mutable MatX At_;                    ///< C_s^T (singularValueRatioAt)
  mutable int nv_ = 0;                 ///< velocity coordinates of the model last evaluated
  /// The sparse route (watchedBySingularValues): sigma_r / sigma_1 from G = C_s C_s^T's extreme
  /// eigenvalues; 0 where G is singular to rounding. lambda_max = sigma_1^2 is a Lanczos run of
  /// about 80 products on a ladder (its largest eigenvalues cluster), lambda_min a few solves with
  /// G's sparse factor: inside a step afterStep samples, sigma_1 -- continuous and slowly varying,
  /// unlike sigma_r, which a singular configuration takes to zero -- is interpolated linearly
  /// between the step's ends (each read in full): an interior sample 4.0x / 2.2x cheaper on the
  /// 256- / 1 024-loop ladder.
  Scalar sparseRatioAt(const Model& model, const KinematicsWorkspace& kin, Scalar t) const;
  /// lambda_max read at a time; the last two readings (a step's start and end).
  struct LargestAt {
    Scalar t = std::numeric_limits<Scalar>::quiet_NaN();
    Scalar value = 0;
  };
  mutable std::array<LargestAt, 2> largest_{};
  mutable int largest_next_ = 0;
  /// Within afterStep's sampling: the step's ends' lambda_max, interpolated (t0 < t1).
  struct StepLargest {
    bool active = false;
    LargestAt start, end;
  };
  mutable StepLargest step_largest_;
  /// Interpolates lambda_max over the step from t0 to t1 (step_largest_) from the readings at its
  /// ends: the start's where it was read, else the end's throughout.
  void interpolateLargestOver(Scalar t0, Scalar t1) const;
  mutable GramEigenvalues gram_eigenvalues_;
  bool unwatched_ = false;   ///< started on a mechanism that has no singular configuration (start)
  bool dip_at_end_ = false;  ///< the last step's smallest ratio was at its end
  /// The last step's last interior sample (the slope into the next step's start), if it sampled.
  Scalar before_end_t_ = 0, before_end_ratio_ = 1;
  bool before_end_valid_ = false;
  /// The motion has been away from singular configurations (ratio >= kSingularRatio) since the
  /// last passage or a singular start: one passage per visit (inside it, rounding makes the ratio
  /// of nearly equal configurations wander at 1e-16 and would count spurious minima).
  bool armed_ = true;
};

}  // namespace loopdyn
