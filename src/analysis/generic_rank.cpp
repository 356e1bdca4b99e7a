#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/analysis/independent_rows.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/linalg/sparse_minimum_norm.hpp"

namespace loopdyn {

namespace {

/// The holonomic equations the samples satisfy: all of them, or all but the drivers'.
std::vector<int> sampledRows(const Model& model, bool free_drivers) {
  std::vector<int> rows;
  for (const Pair& pair : model.pairs()) {
    if (pair.nonholonomic || (free_drivers && pair.type == "driver")) continue;
    for (int k = 0; k < pair.rows; ++k) rows.push_back(pair.row + k);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// Orthonormal basis (columns) of the null space of the scaled Jacobian of the given holonomic
/// rows at ws's state.
MatX holonomicTangentBasis(const Model& model, const KinematicsWorkspace& ws, const ConstraintScaling& s,
                           const std::vector<int>& rows, Scalar threshold) {
  const int n = model.nv();
  if (rows.empty()) return MatX::Identity(n, n);
  const MatX Js = s.row(rows).asDiagonal() * ws.C.dense()(rows, Eigen::all) * s.col.asDiagonal();
  // the last n - rank columns of Q in Js^T P = Q R span the null space of Js
  Eigen::ColPivHouseholderQR<MatX> qr(Js.transpose());
  qr.setThreshold(threshold);
  // (the reflectors applied to those columns of the identity alone: Q itself is n x n)
  MatX basis = MatX::Identity(n, n).rightCols(n - qr.rank());
  if (basis.cols() > 0) basis.applyOnTheLeft(qr.householderQ());  // (Eigen's blocks of an empty basis are UB)
  return basis;
}

/// The minimum-norm Newton step of the sampling corrector: -J^+ r for J = [C_s(rows); delta^T].
using MinimumNormStep = std::function<VecX(const KinematicsWorkspace& ws, const VecX& delta, const VecX& r)>;

/// Dense: a complete orthogonal decomposition of J (rank-deficient J included).
MinimumNormStep denseStep(const Model& model, const ConstraintScaling& s, const std::vector<int>& rows, Scalar threshold) {
  return [&model, &s, &rows, threshold](const KinematicsWorkspace& ws, const VecX& delta, const VecX& r) {
    const auto m = static_cast<Eigen::Index>(rows.size());
    MatX J(m + 1, model.nv());
    J.topRows(m) = s.row(rows).asDiagonal() * ws.C.dense()(rows, Eigen::all) * s.col.asDiagonal();
    J.row(m) = delta.transpose();
    Eigen::CompleteOrthogonalDecomposition<MatX> cod;
    cod.setThreshold(threshold);
    cod.compute(J);
    return VecX(-cod.solve(r));
  };
}

/// Sparse (rows certified independent, delta in their null space: J has full row rank):
/// linalg/sparse_minimum_norm.hpp.
MinimumNormStep sparseStep(const ConstraintScaling& s, const std::vector<int>& rows) {
  return [&s, &rows](const KinematicsWorkspace& ws, const VecX& delta, const VecX& r) {
    const SparseMatrix Cs = scaledSparseRows(s, ws.C, rows);
    std::vector<Eigen::Triplet<Scalar>> entries;
    entries.reserve(static_cast<std::size_t>(Cs.nonZeros() + delta.size()));
    for (Eigen::Index c = 0; c < Cs.outerSize(); ++c)
      for (SparseMatrix::InnerIterator it(Cs, c); it; ++it) entries.emplace_back(it.row(), it.col(), it.value());
    for (Eigen::Index c = 0; c < delta.size(); ++c)
      if (delta(c) != 0) entries.emplace_back(Cs.rows(), c, delta(c));
    SparseMatrix J(Cs.rows() + 1, Cs.cols());
    J.setFromTriplets(entries.begin(), entries.end());
    const SparseMinimumNorm solver(std::move(J));
    if (!solver.ok()) return VecX(VecX::Constant(delta.size(), std::numeric_limits<Scalar>::quiet_NaN()));
    return VecX(-solver.solve(r));
  };
}

/// A configuration on the solution set of `rows` at signed distance `arc` along the scaled unit
/// tangent `delta` from x: Newton on [Phi_s(q) = 0; delta^T D = arc], D the accumulated scaled
/// displacement, with minimum-norm steps.
std::optional<State> sampleAlong(const Model& model, KinematicsWorkspace& ws, const State& x,
                                 const ConstraintScaling& s, const std::vector<int>& rows, const VecX& delta,
                                 Scalar arc, const MinimumNormStep& minimumNormStep) {
  const auto m = static_cast<Eigen::Index>(rows.size());
  const Scalar L = model.characteristicLength();
  constexpr Scalar kTolerance = 1e-12;  // relative residual, as for assembly
  constexpr int kMaxIterations = 30;
  State y = x;
  VecX D = arc * delta;
  displacePositions(model, x.q, s.col.cwiseProduct(D), y.q);
  VecX r(m + 1);
  for (int it = 0; it < kMaxIterations; ++it) {
    evaluateConstraints(model, ws, y);
    r.head(m) = s.row(rows).cwiseProduct(ws.Phi(rows));
    r(m) = delta.dot(D) - arc;
    // (or what rounding allows far from the origin: kinematics/scaling.hpp)
    if (r.norm() <= std::max(kTolerance, positionResidualFloor(model, y.q)) * L) return y;
    const VecX step = minimumNormStep(ws, delta, r);
    if (!step.allFinite()) return std::nullopt;
    D += step;
    const VecX q = y.q;
    displacePositions(model, q, s.col.cwiseProduct(step), y.q);
  }
  return std::nullopt;
}

/// Random unit tangent directions at x (scaled), normal in the null space of C_s(rows).
/// (One normal distribution over all draws: it hands out its numbers in pairs.)
using TangentDraw = std::function<VecX(std::mt19937& rng, std::normal_distribution<Scalar>& normal)>;

/// From an orthonormal basis of the null space, by a dense QR.
TangentDraw denseTangents(const Model& model, const KinematicsWorkspace& ws, const ConstraintScaling& s,
                          const std::vector<int>& rows, Scalar threshold) {
  MatX tangent = holonomicTangentBasis(model, ws, s, rows, threshold);
  return [tangent = std::move(tangent)](std::mt19937& rng, std::normal_distribution<Scalar>& normal) {
    if (tangent.cols() == 0) return VecX();
    VecX coefficients(tangent.cols());
    for (Eigen::Index i = 0; i < coefficients.size(); ++i) coefficients(i) = normal(rng);
    return VecX(tangent * coefficients.normalized());
  };
}

/// Sparse (rows independent): a normal vector g projected, g - C_s^T (C_s C_s^T)^-1 C_s g.
TangentDraw sparseTangents(const KinematicsWorkspace& ws, const ConstraintScaling& s, const std::vector<int>& rows) {
  auto solver = std::make_shared<SparseMinimumNorm>(scaledSparseRows(s, ws.C, rows));
  return [solver](std::mt19937& rng, std::normal_distribution<Scalar>& normal) {
    VecX g(solver->matrix().cols());
    for (Eigen::Index i = 0; i < g.size(); ++i) g(i) = normal(rng);
    return VecX(solver->nullSpacePart(g).normalized());
  };
}

}  // namespace

std::vector<State> configurationsNear(const Model& model, KinematicsWorkspace& ws, const State& x,
                                      const RankOptions& options, bool free_drivers) {
  std::vector<State> out;
  const ConstraintScaling& s = model.scaling();
  const std::vector<int> rows = sampledRows(model, free_drivers);
  evaluateConstraints(model, ws, x);
  // the sparse route where the sampled rows are many and certainly independent at x
  // (independent_rows.hpp); the dense one otherwise
  const bool sparse = options.sparse_route && static_cast<int>(rows.size()) >= kSparseRows &&
                      static_cast<int>(rows.size()) < model.nv() &&
                      certifiesIndependence(rowsSingularValueRatio(model, ws, rows), options.rank_threshold);
  if (!sparse) requireDenseSize(model, ws, "sampling the configurations near this one");
  const TangentDraw draw = sparse ? sparseTangents(ws, s, rows) : denseTangents(model, ws, s, rows, options.rank_threshold);
  const MinimumNormStep step = sparse ? sparseStep(s, rows) : denseStep(model, s, rows, options.rank_threshold);
  std::mt19937 rng(options.seed);
  std::normal_distribution<Scalar> normal(0, 1);
  const Scalar arc = options.sample_step * model.characteristicLength();
  for (int k = 0; k < options.generic_samples; ++k) {
    const VecX delta = draw(rng, normal);
    if (delta.size() == 0 || !delta.allFinite()) break;
    if (auto sample = sampleAlong(model, ws, x, s, rows, delta, arc, step)) out.push_back(std::move(*sample));
  }
  evaluateConstraints(model, ws, x);  // leave the workspace at x
  return out;
}

namespace {

/// The samples' and x's own |R_rr| / |R_11| differ by at most this factor where they show the
/// mechanism's regular level (RankReport::generic_ratio).
constexpr Scalar kLevelAgreement = 10;

/// RankReport::generic_ratio from the ratios at the generic rank of x (ratios[0]) and of the
/// samples (NaN where a configuration has none).
Scalar regularLevel(std::vector<Scalar> ratios) {
  if (ratios.empty() || std::isnan(ratios[0])) return 1;
  const Scalar own = ratios[0];
  std::erase_if(ratios, [](Scalar ratio) { return std::isnan(ratio); });
  ratios.erase(ratios.begin());  // (x's own, kept in `own`)
  if (ratios.empty()) return 1;
  std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
  const Scalar median = ratios[ratios.size() / 2];
  return own * kLevelAgreement >= median && own <= kLevelAgreement * median ? median : 1;
}

/// The quantity the watch reads at a configuration analysed as `at` (evaluated in ws), at the
/// generic rank r: sigma_r / sigma_1 where the watch reads singular values (independent_rows.hpp),
/// else |R_rr| / |R_11|; NaN where the analysis has no such diagonal entry.
Scalar ratioAtGenericRank(const Model& model, const KinematicsWorkspace& ws, const RankReport& at, int rank) {
  if (rank <= 0) return std::numeric_limits<Scalar>::quiet_NaN();
  if (watchedBySingularValues(model, rank))
    return at.rows_certified_independent ? at.singular_value_ratio : singularValueRatio(model, ws);
  const auto r = static_cast<std::size_t>(rank);
  return at.scaled_diagonal.size() >= r ? at.scaled_diagonal[r - 1] : std::numeric_limits<Scalar>::quiet_NaN();
}

}  // namespace

RankReport analyzeConstraints(const Model& model, KinematicsWorkspace& ws, const State& x,
                              const RankOptions& options) {
  if (const std::optional<OptionProblem> problem = rankOptionsProblem(options))
    throw InvalidArgument(problem->option + ": " + problem->message);
  RankReport report = analyzeConstraintsAt(model, ws, x, options);
  if (options.generic_samples <= 0) return report;
  if (report.rank == model.nc() && fullRankEverywhere(model)) {
    // (every row on the whole motion: nothing to sample; the level is x's own -- the 65 536-body
    // chain's eight samples took 2.3 s)
    report.full_rank_by_structure = true;
    report.generic_rank = report.rank;
    evaluateConstraints(model, ws, x);
    const Scalar own = ratioAtGenericRank(model, ws, report, report.rank);
    report.generic_ratio = std::isnan(own) ? 1 : own;
    return report;
  }
  std::optional<int> smallest;
  std::vector<State> samples = configurationsNear(model, ws, x, options);
  if (samples.empty() && model.drivers().size() > 0) {
    // a driven mechanism that cannot move with its drivers held (fully driven, or held at a
    // singular configuration of the driven set, e.g. a 3-RPR whose legs meet in one point): the
    // configurations it reaches with other driver values. C's rows do not depend on the values
    // the drivers prescribe, so its rank there is the rank the driven motion has.
    samples = configurationsNear(model, ws, x, options, true);
    report.generic_from_free_drivers = !samples.empty();
  }
  std::vector<RankReport> at;
  for (const State& sample : samples) {
    at.push_back(analyzeConstraintsAt(model, ws, sample, options));
    smallest = std::min(smallest.value_or(at.back().rank), at.back().rank);
  }
  report.generic_rank = smallest.value_or(report.rank);
  // the regular level, read on the quantity the watch reads (it depends on the generic rank)
  std::vector<Scalar> ratios;
  for (std::size_t k = 0; k <= samples.size(); ++k) {
    evaluateConstraints(model, ws, k == 0 ? x : samples[k - 1]);
    ratios.push_back(ratioAtGenericRank(model, ws, k == 0 ? report : at[k - 1], report.generic_rank));
  }
  report.generic_ratio = regularLevel(std::move(ratios));
  report.generic_samples_used = static_cast<int>(samples.size());
  report.singular = report.rank < report.generic_rank;
  evaluateConstraints(model, ws, x);  // leave the workspace at x
  return report;
}

}  // namespace loopdyn
