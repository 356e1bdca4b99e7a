#pragma once
/// Structure of the constraint set at one configuration: ranks, redundancy, mobility, and the
/// equations a QR factorisation with column pivoting keeps or marks dependent (paper 001,
/// sect. 2.1, eqs. (6)-(7); paper 004, sect. 2.5, eqs. (23)-(28)).
///
/// Rank decisions are made on the scaled matrix C_s (see kinematics/scaling.hpp): a diagonal
/// entry |R_kk| of the pivoted QR counts as zero when |R_kk| <= rank_threshold * |R_11|.
/// Because C_s is dimensionless, the decision does not change with the units of length.

#include <string>
#include <optional>
#include <vector>

#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Relative threshold for rank decisions: columns of C_s^T whose pivot falls below this fraction
/// of the largest pivot are dependent. Exact singularities give pivots near 1e-15; the bundled
/// mechanisms' smallest genuine pivots are above 1e-3 away from singular configurations.
inline constexpr Scalar kRankThreshold = 1e-9;

struct RankOptions {
  Scalar rank_threshold = kRankThreshold;
  /// Configurations sampled near the given one to find the generic rank (0: skip the test).
  int generic_samples = 8;
  /// Distance of the samples from x along the random tangent direction, relative to L.
  Scalar sample_step = 0.05;
  unsigned seed = 20261122;
  /// Large models whose equations are independent are decided without a dense factorisation
  /// (independent_rows.hpp); false: always by the dense factorisations (the reference the sparse
  /// route is tested against).
  bool sparse_route = true;
};

/// "" when x lies strictly between 0 and 1 (a relative threshold), else what is wrong.
std::string fractionProblem(Scalar x);

/// Nearby configurations sampled at most (each one an assembly and a QR of C).
inline constexpr int kMaxGenericSamples = 1000;

/// The first option out of its range (common/errors.hpp): samples (generic_samples, 0 to
/// kMaxGenericSamples), threshold (rank_threshold, between 0 and 1), or nothing.
std::optional<OptionProblem> rankOptionsProblem(const RankOptions& options);

struct RankReport {
  int bodies = 0;
  int n = 0;        ///< velocity coordinates
  int m = 0;        ///< holonomic equations (joints and drivers)
  int h = 0;        ///< nonholonomic equations
  int drivers = 0;
  int rank = 0;               ///< rank C
  int rank_holonomic = 0;     ///< rank Phi_q
  int rank_nonholonomic = 0;  ///< rank Psi
  int redundancy = 0;         ///< p = m + h - rank (paper 001, eq. (7))
  int mobility = 0;           ///< n - rank
  int grubler = 0;            ///< n - m - h: the Grubler/Kutzbach count, equation by equation
  /// Every row of C was certified independent by the sparse route (independent_rows.hpp), with
  /// sigma_min / sigma_max of C_s = singular_value_ratio: no QR was formed, the equations are in
  /// row order and scaled_diagonal is empty.
  bool rows_certified_independent = false;
  Scalar singular_value_ratio = 0;
  /// Rows of C (equation indices) in QR pivot order: the first `rank` are kept.
  std::vector<int> independent_equations;
  std::vector<int> dependent_equations;
  /// |R_kk| / |R_11| of the pivoted QR of C_s^T, k < min(m + h, n).
  std::vector<Scalar> scaled_diagonal;
  Scalar rank_threshold = kRankThreshold;

  /// Generic rank of the mechanism on its motion through x (see analyzeConstraints); -1 when
  /// not computed.
  int generic_rank = -1;
  int generic_samples_used = 0;
  /// The mechanism's regular level of |R_rr| / |R_11| at the generic rank r: the median over the
  /// samples where x's own ratio is within 10x of it; 1 (no level to read) where it is not -- x
  /// near a singular configuration, the samples' ratios then grow with their distance from it --,
  /// without samples, and for r = 0. Its singular configurations are where the ratio falls far
  /// below this level (the simulation's watch, dynamics/singular_watch.hpp).
  Scalar generic_ratio = 1;
  /// The samples are configurations with the drivers released (the driven mechanism could not
  /// move from x: see analyzeConstraints).
  bool generic_from_free_drivers = false;
  /// This configuration is singular: its rank is below the generic rank.
  bool singular = false;
  /// The generic rank is every row by the mechanism's structure (fullRankEverywhere: a chain, a
  /// tree), not sampled: generic_ratio is then x's own ratio.
  bool full_rank_by_structure = false;
};

/// Ranks and QR pivoting at state x (assumed assembled). Does not compute the generic rank.
RankReport analyzeConstraintsAt(const Model& model, KinematicsWorkspace& ws, const State& x,
                                const RankOptions& options = {});

/// Full analysis: analyzeConstraintsAt plus the generic rank and the singular flag.
///
/// The generic rank is the rank of C on the mechanism's motion through x. It is sampled: a random
/// direction delta in the tangent space of the holonomic constraints at x (null space of Phi_q),
/// then Newton on the augmented system [Phi(q) = 0; delta^T (q - x) = s] with s = sample_step * L.
/// The extra equation keeps the corrector from sliding back to x (near a singular point the
/// residual is quadratic in the distance, so plain Newton stops short of the solution set) and
/// lands on a branch of solutions through x at distance ~s. Several branches can meet at a
/// singular point (e.g. locked assembly modes of the modified four-bars); the mechanism's motion
/// is the branch of largest dimension, which has the smallest rank, so the generic rank is the
/// smallest rank among the samples that converged. Samples that do not converge are skipped. A
/// driven mechanism that cannot move with its drivers held (fully driven, or at a singular
/// configuration of the driven set) is sampled with the drivers released: C's rows do not depend
/// on the prescribed values, so the rank there is that of the driven motion at other driver
/// values. If no sample converges, the generic rank is taken as the rank at x. Deterministic for a
/// given seed. A mechanism of full rank everywhere by its structure (fullRankEverywhere), full
/// rank at x, is not sampled (full_rank_by_structure).
RankReport analyzeConstraints(const Model& model, KinematicsWorkspace& ws, const State& x,
                              const RankOptions& options = {});

/// Assembled configurations on the mechanism's motion through x, at distance sample_step * L in
/// options.generic_samples random tangent directions (the method of analyzeConstraints; samples
/// whose corrector does not converge are left out). free_drivers: the drivers' equations are left
/// out, so the driven coordinates move too: configurations the driven mechanism reaches at other
/// times. Leaves ws evaluated at x.
std::vector<State> configurationsNear(const Model& model, KinematicsWorkspace& ws, const State& x,
                                      const RankOptions& options, bool free_drivers = false);

/// True when C has full row rank at every configuration near the constraints, by the model's
/// structure: every pair is a joint of the spanning tree (no cut joints, drivers, knife edges or
/// distance joints). Then C is block-triangular in tree order, each joint's block -- its equations
/// in its child's coordinates -- of full rank (a joint's equations are independent where they
/// hold), so the mechanism has no singular configuration and cannot lock up: an open chain, a tree.
bool fullRankEverywhere(const Model& model);

/// Names of the given equation rows.
std::vector<std::string> equationNames(const Model& model, const std::vector<int>& rows);

}  // namespace loopdyn
