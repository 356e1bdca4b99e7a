#include "loopdyn/analysis/constraint_rank.hpp"

#include <Eigen/QR>

#include <cmath>
#include <sstream>

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

RankReport analyzeConstraintsAt(const Model& model, KinematicsWorkspace& ws, const State& x,
                                const RankOptions& options) {
  evaluateConstraints(model, ws, x);
  const ConstraintScaling& s = model.scaling();
  MatX Cs;
  scaledMatrix(s, ws.C.dense(), Cs);

  RankReport r;
  r.bodies = model.nb();
  r.n = model.nv();
  r.m = model.m();
  r.h = model.h();
  r.drivers = static_cast<int>(model.drivers().size());
  r.rank_threshold = options.rank_threshold;
  r.rank_holonomic = rankOf(Cs.topRows(r.m), options.rank_threshold);
  r.rank_nonholonomic = rankOf(Cs.bottomRows(r.h), options.rank_threshold);

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
  r.redundancy = r.m + r.h - r.rank;
  r.mobility = r.n - r.rank;
  r.grubler = r.n - r.m - r.h;
  return r;
}

std::vector<std::string> equationNames(const Model& model, const std::vector<int>& rows) {
  std::vector<std::string> names;
  for (int row : rows) names.push_back(model.equations()[static_cast<std::size_t>(row)].name);
  return names;
}

}  // namespace loopdyn
