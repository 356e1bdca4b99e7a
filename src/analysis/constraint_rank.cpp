#include "loopdyn/analysis/constraint_rank.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "loopdyn/analysis/independent_rows.hpp"
#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

namespace {

int rankOf(const MatX& A, Scalar threshold) {
  if (A.rows() == 0 || A.cols() == 0) return 0;
  Eigen::ColPivHouseholderQR<MatX> qr(A.transpose());
  qr.setThreshold(threshold);
  return static_cast<int>(qr.rank());
}

}  // namespace

std::string fractionProblem(Scalar x) {
  if (std::isfinite(x) && x > 0 && x < 1) return {};
  std::ostringstream os;
  os << "must be a number between 0 and 1 (a share of the largest pivot), got " << x;
  return os.str();
}

std::optional<OptionProblem> rankOptionsProblem(const RankOptions& options) {
  if (options.generic_samples < 0 || options.generic_samples > kMaxGenericSamples)
    return OptionProblem{"samples", "must be from 0 to " + std::to_string(kMaxGenericSamples) + ", got " +
                                        std::to_string(options.generic_samples)};
  if (std::string problem = fractionProblem(options.rank_threshold); !problem.empty())
    return OptionProblem{"threshold", std::move(problem)};
  return std::nullopt;
}

namespace {

/// The counts every route reports.
RankReport sizesOf(const Model& model, const RankOptions& options) {
  RankReport r;
  r.bodies = model.nb();
  r.n = model.nv();
  r.m = model.m();
  r.h = model.h();
  r.drivers = static_cast<int>(model.drivers().size());
  r.rank_threshold = options.rank_threshold;
  return r;
}

/// The counts that follow from the rank.
void completeCounts(RankReport& r) {
  r.redundancy = r.m + r.h - r.rank;
  r.mobility = r.n - r.rank;
  r.grubler = r.n - r.m - r.h;
}

/// The sparse route (independent_rows.hpp): every row of C independent, certified by
/// sigma_min / sigma_max of C_s; false (r untouched) where it cannot be certified.
bool certifyIndependentRows(const Model& model, const KinematicsWorkspace& ws, const RankOptions& options,
                            RankReport& r) {
  if (!options.sparse_route || !sparseRouteSize(model)) return false;
  const Scalar ratio = singularValueRatio(model, ws);
  if (!certifiesIndependence(ratio, options.rank_threshold)) return false;
  r.rows_certified_independent = true;
  r.singular_value_ratio = ratio;
  r.rank = model.nc();
  r.rank_holonomic = r.m;
  r.rank_nonholonomic = r.h;
  r.independent_equations.resize(static_cast<std::size_t>(model.nc()));
  std::iota(r.independent_equations.begin(), r.independent_equations.end(), 0);
  return true;
}

}  // namespace

RankReport analyzeConstraintsAt(const Model& model, KinematicsWorkspace& ws, const State& x,
                                const RankOptions& options) {
  evaluateConstraints(model, ws, x);
  RankReport r = sizesOf(model, options);
  if (certifyIndependentRows(model, ws, options, r)) {
    completeCounts(r);
    return r;
  }
  requireDenseSize(model, ws, "the rank analysis");
  const ConstraintScaling& s = model.scaling();
  MatX Cs;
  scaledMatrix(s, ws.C.dense(), Cs);

  // QR with column pivoting of C_s^T: the pivot order ranks the equations (paper 004, eq. (23))
  if (Cs.rows() > 0) {
    Eigen::ColPivHouseholderQR<MatX> qr(Cs.transpose());
    qr.setThreshold(options.rank_threshold);
    r.rank = static_cast<int>(qr.rank());
    const auto& perm = qr.colsPermutation().indices();
    for (Eigen::Index k = 0; k < perm.size(); ++k)
      (k < r.rank ? r.independent_equations : r.dependent_equations).push_back(perm(k));
    const MatX& R = qr.matrixR();
    const Eigen::Index diag = std::min(R.rows(), R.cols());
    const Scalar r11 = diag > 0 ? std::abs(R(0, 0)) : 0;
    for (Eigen::Index k = 0; k < diag; ++k) r.scaled_diagonal.push_back(r11 > 0 ? std::abs(R(k, k)) / r11 : 0);
  }
  // (without nonholonomic rows Phi_q is C: its rank is the one just found)
  r.rank_holonomic = r.h == 0 ? r.rank : rankOf(Cs.topRows(r.m), options.rank_threshold);
  r.rank_nonholonomic = rankOf(Cs.bottomRows(r.h), options.rank_threshold);
  completeCounts(r);
  return r;
}

bool fullRankEverywhere(const Model& model) {
  const Topology& topology = model.topology();
  for (const Pair& pair : model.pairs()) {
    if (pair.joint < 0 || pair.nonholonomic) return false;  // a driver, a knife edge
    const JointType type = model.joints()[static_cast<std::size_t>(pair.joint)].type;
    if (topology.roles[static_cast<std::size_t>(pair.joint)] != JointRole::Tree || type == JointType::Distance ||
        type == JointType::KnifeEdge)
      return false;
  }
  return true;
}

std::vector<std::string> equationNames(const Model& model, const std::vector<int>& rows) {
  std::vector<std::string> names;
  for (int row : rows) names.push_back(model.equations()[static_cast<std::size_t>(row)].name);
  return names;
}

}  // namespace loopdyn
