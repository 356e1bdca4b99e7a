#include <Eigen/QR>

#include <algorithm>
#include <optional>
#include <random>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/kinematics/scaling.hpp"

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

/// A configuration on the solution set of `rows` at signed distance `arc` along the scaled unit
/// tangent `delta` from x: Newton on [Phi_s(q) = 0; delta^T D = arc], D the accumulated scaled
/// displacement.
std::optional<State> sampleAlong(const Model& model, KinematicsWorkspace& ws, const State& x,
                                 const ConstraintScaling& s, const std::vector<int>& rows, const VecX& delta,
                                 Scalar arc, Scalar threshold) {
  const int m = static_cast<int>(rows.size()), n = model.nv();
  const Scalar L = model.characteristicLength();
  constexpr Scalar kTolerance = 1e-12;  // relative residual, as for assembly
  constexpr int kMaxIterations = 30;
  State y = x;
  VecX D = arc * delta;
  displacePositions(model, x.q, s.col.cwiseProduct(D), y.q);
  MatX J(m + 1, n);
  VecX r(m + 1);
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;
  cod.setThreshold(threshold);
  for (int it = 0; it < kMaxIterations; ++it) {
    evaluateConstraints(model, ws, y);
    r.head(m) = s.row(rows).cwiseProduct(ws.Phi(rows));
    r(m) = delta.dot(D) - arc;
    if (r.norm() <= kTolerance * L) return y;
    J.topRows(m) = s.row(rows).asDiagonal() * ws.C.dense()(rows, Eigen::all) * s.col.asDiagonal();
    J.row(m) = delta.transpose();
    cod.compute(J);
    const VecX step = -cod.solve(r);
    D += step;
    const VecX q = y.q;
    displacePositions(model, q, s.col.cwiseProduct(step), y.q);
  }
  return std::nullopt;
}

}  // namespace

std::vector<State> configurationsNear(const Model& model, KinematicsWorkspace& ws, const State& x,
                                      const RankOptions& options, bool free_drivers) {
  std::vector<State> out;
  const ConstraintScaling& s = model.scaling();
  const std::vector<int> rows = sampledRows(model, free_drivers);
  evaluateConstraints(model, ws, x);
  const MatX tangent = holonomicTangentBasis(model, ws, s, rows, options.rank_threshold);
  std::mt19937 rng(options.seed);
  std::normal_distribution<Scalar> normal(0, 1);
  const Scalar arc = options.sample_step * model.characteristicLength();
  for (int k = 0; k < options.generic_samples && tangent.cols() > 0; ++k) {
    VecX coefficients(tangent.cols());
    for (Eigen::Index i = 0; i < coefficients.size(); ++i) coefficients(i) = normal(rng);
    const VecX delta = tangent * coefficients.normalized();
    if (auto sample = sampleAlong(model, ws, x, s, rows, delta, arc, options.rank_threshold))
      out.push_back(std::move(*sample));
  }
  evaluateConstraints(model, ws, x);  // leave the workspace at x
  return out;
}

namespace {

/// The samples' and x's own |R_rr| / |R_11| differ by at most this factor where they show the
/// mechanism's regular level (RankReport::generic_ratio).
constexpr Scalar kLevelAgreement = 10;

/// RankReport::generic_ratio from the diagonals of x (diagonals[0]) and of the samples.
Scalar regularLevel(const std::vector<std::vector<Scalar>>& diagonals, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  if (rank <= 0 || diagonals[0].size() < r) return 1;
  std::vector<Scalar> ratios;
  for (std::size_t k = 1; k < diagonals.size(); ++k)
    if (diagonals[k].size() >= r) ratios.push_back(diagonals[k][r - 1]);
  if (ratios.empty()) return 1;
  std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
  const Scalar median = ratios[ratios.size() / 2], own = diagonals[0][r - 1];
  return own * kLevelAgreement >= median && own <= kLevelAgreement * median ? median : 1;
}

}  // namespace

RankReport analyzeConstraints(const Model& model, KinematicsWorkspace& ws, const State& x,
                              const RankOptions& options) {
  if (const std::optional<OptionProblem> problem = rankOptionsProblem(options))
    throw InvalidArgument(problem->option + ": " + problem->message);
  RankReport report = analyzeConstraintsAt(model, ws, x, options);
  if (options.generic_samples <= 0) return report;
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
  std::vector<std::vector<Scalar>> diagonals{report.scaled_diagonal};
  for (const State& sample : samples) {
    RankReport at = analyzeConstraintsAt(model, ws, sample, options);
    smallest = std::min(smallest.value_or(at.rank), at.rank);
    diagonals.push_back(std::move(at.scaled_diagonal));
  }
  report.generic_rank = smallest.value_or(report.rank);
  report.generic_ratio = regularLevel(diagonals, report.generic_rank);
  report.generic_samples_used = static_cast<int>(samples.size());
  report.singular = report.rank < report.generic_rank;
  evaluateConstraints(model, ws, x);  // leave the workspace at x
  return report;
}

}  // namespace loopdyn
