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
  const ConstraintScaling s = constraintScaling(model);
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
  for (const State& sample : samples) {
    const int rank = analyzeConstraintsAt(model, ws, sample, options).rank;
    smallest = std::min(smallest.value_or(rank), rank);
  }
  report.generic_rank = smallest.value_or(report.rank);
  report.generic_samples_used = static_cast<int>(samples.size());
  report.singular = report.rank < report.generic_rank;
  evaluateConstraints(model, ws, x);  // leave the workspace at x
  return report;
}

}  // namespace loopdyn
