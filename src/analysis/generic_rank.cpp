#include <Eigen/QR>

#include <algorithm>
#include <optional>
#include <random>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

namespace {

/// Orthonormal basis (columns) of the null space of the scaled holonomic Jacobian at ws's state.
MatX holonomicTangentBasis(const Model& model, const KinematicsWorkspace& ws, const ConstraintScaling& s,
                           Scalar threshold) {
  const int n = model.nv();
  if (model.m() == 0) return MatX::Identity(n, n);
  const MatX Js = s.row.head(model.m()).asDiagonal() * ws.C.topRows(model.m()) * s.col.asDiagonal();
  // the last n - rank columns of Q in Js^T P = Q R span the null space of Js
  Eigen::ColPivHouseholderQR<MatX> qr(Js.transpose());
  qr.setThreshold(threshold);
  const MatX Q = qr.householderQ();
  return Q.rightCols(n - qr.rank());
}

/// A configuration on the solution set at signed distance `arc` along the scaled unit tangent
/// `delta` from x: Newton on [Phi_s(q) = 0; delta^T D = arc], D the accumulated scaled displacement.
std::optional<State> sampleAlong(const Model& model, KinematicsWorkspace& ws, const State& x,
                                 const ConstraintScaling& s, const VecX& delta, Scalar arc, Scalar threshold) {
  const int m = model.m(), n = model.nv();
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
    r.head(m) = s.row.head(m).cwiseProduct(ws.Phi);
    r(m) = delta.dot(D) - arc;
    if (r.norm() <= kTolerance * L) return y;
    J.topRows(m) = s.row.head(m).asDiagonal() * ws.C.topRows(m) * s.col.asDiagonal();
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

RankReport analyzeConstraints(const Model& model, KinematicsWorkspace& ws, const State& x,
                              const RankOptions& options) {
  RankReport report = analyzeConstraintsAt(model, ws, x, options);
  if (options.generic_samples <= 0) return report;

  const ConstraintScaling s = constraintScaling(model);
  evaluateConstraints(model, ws, x);
  const MatX tangent = holonomicTangentBasis(model, ws, s, options.rank_threshold);
  std::mt19937 rng(options.seed);
  std::normal_distribution<Scalar> normal(0, 1);
  const Scalar arc = options.sample_step * model.characteristicLength();

  std::optional<int> smallest;
  int used = 0;
  for (int k = 0; k < options.generic_samples && tangent.cols() > 0; ++k) {
    VecX coefficients(tangent.cols());
    for (Eigen::Index i = 0; i < coefficients.size(); ++i) coefficients(i) = normal(rng);
    const VecX delta = tangent * coefficients.normalized();
    const auto sample = sampleAlong(model, ws, x, s, delta, arc, options.rank_threshold);
    if (!sample) continue;
    ++used;
    const int rank = analyzeConstraintsAt(model, ws, *sample, options).rank;
    smallest = std::min(smallest.value_or(rank), rank);
  }
  report.generic_rank = smallest.value_or(report.rank);
  report.generic_samples_used = used;
  report.singular = report.rank < report.generic_rank;
  evaluateConstraints(model, ws, x);  // leave the workspace at x
  return report;
}

}  // namespace loopdyn
