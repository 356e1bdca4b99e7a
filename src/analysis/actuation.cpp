#include "loopdyn/analysis/actuation.hpp"

#include <algorithm>

#include <Eigen/SVD>

#include "loopdyn/kinematics/constraint_evaluation.hpp"

namespace loopdyn {

namespace {

/// The drivers' rows of a basis of the null space of C^T at x (nDrivers x its dimension): past
/// C's rank there (rank_threshold), or past `rank` when that is given (>= 0: the singular vectors
/// of the nc - rank smallest singular values, a pose within rounding of a singular one).
MatX selfStressEfforts(const Model& model, const State& x, Scalar rank_threshold, int rank_given = -1) {
  const std::vector<Eigen::Index> rows = driverRows(model);
  if (rows.empty() || model.nc() > kSparseRows) return MatX(static_cast<Eigen::Index>(rows.size()), 0);
  KinematicsWorkspace kin(model);
  evaluateConstraints(model, kin, x);
  // the null space of C^T: the right singular vectors of C^T (nv x nc) past its rank
  const Eigen::JacobiSVD<MatX> svd(kin.C.dense().transpose(), Eigen::ComputeFullV);
  const VecX& sigma = svd.singularValues();
  Eigen::Index rank = 0;
  while (rank < sigma.size() && sigma(rank) > rank_threshold * sigma(0)) ++rank;
  if (rank_given >= 0) rank = std::min<Eigen::Index>(rank, rank_given);
  MatX E(static_cast<Eigen::Index>(rows.size()), model.nc() - rank);
  if (E.cols() == 0) return E;  // (no self-stress; and no rows of an empty matrix to assign)
  for (std::size_t i = 0; i < rows.size(); ++i) E.row(static_cast<Eigen::Index>(i)) = svd.matrixV().row(rows[i]).tail(E.cols());
  return E;
}

/// An orthonormal basis of E's columns (of its `most` largest directions), each with its largest
/// entry positive (one sign).
std::vector<VecX> orthonormalColumns(const MatX& E, Eigen::Index most) {
  std::vector<VecX> basis;
  if (E.cols() == 0) return basis;
  const Eigen::JacobiSVD<MatX> span(E, Eigen::ComputeThinU);
  for (Eigen::Index k = 0; k < std::min(span.singularValues().size(), most); ++k)
    if (span.singularValues()(k) > 1e-8) {  // (E's columns are parts of unit vectors: 1e-8 is a zero)
      VecX p = span.matrixU().col(k);
      Eigen::Index largest = 0;
      p.cwiseAbs().maxCoeff(&largest);
      basis.push_back(p(largest) < 0 ? VecX(-p) : p);
    }
  return basis;
}

}  // namespace

std::vector<std::string> driverNames(const Model& model) {
  std::vector<std::string> names;
  for (const Pair& pair : model.pairs())
    if (pair.type == "driver") names.push_back(pair.name);
  return names;
}

std::vector<Eigen::Index> driverRows(const Model& model) {
  std::vector<Eigen::Index> rows;
  for (const Pair& pair : model.pairs())
    if (pair.type == "driver") rows.push_back(pair.row);
  return rows;
}

std::vector<VecX> effortPreloads(const Model& model, const State& x, Scalar rank_threshold) {
  const MatX E = selfStressEfforts(model, x, rank_threshold);
  return orthonormalColumns(E, E.rows());
}

std::vector<VecX> unboundedEfforts(const Model& model, const State& x, const std::vector<VecX>* preloads,
                                   int generic_rank, int lost, Scalar rank_threshold) {
  MatX E = selfStressEfforts(model, x, rank_threshold, std::max(generic_rank - lost, 0));
  if (!preloads) return orthonormalColumns(E, E.rows());
  for (const VecX& p : *preloads) E -= p * (p.transpose() * E);  // (the preloads' part removed)
  return orthonormalColumns(E, lost);  // (the preloads nearby differ from x's by the distance: the largest)
}

Scalar pivotRatio(const RankReport& report, int generic_rank) {
  const std::size_t r = static_cast<std::size_t>(generic_rank);
  if (report.rows_certified_independent) return report.singular_value_ratio;
  if (r == 0) return 1;
  return r <= report.scaled_diagonal.size() ? report.scaled_diagonal[r - 1] : 0;
}

}  // namespace loopdyn
