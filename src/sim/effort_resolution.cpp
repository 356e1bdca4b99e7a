#include "loopdyn/sim/effort_resolution.hpp"

#include <cmath>

#include <Eigen/SVD>

#include "loopdyn/analysis/actuation.hpp"
#include "loopdyn/linalg/convex_qp.hpp"

namespace loopdyn {

namespace {

/// The self-stresses that load the drivers: Lambda (nc x p, full multiplier vectors) and their
/// efforts' change P = -Lambda's drivers' rows (n_drivers x p, orthonormal columns).
struct EffortFreedom {
  MatX Lambda, P;
};

EffortFreedom effortFreedom(const Model& model, const KinematicsWorkspace& kin, const std::vector<Eigen::Index>& rows,
                            Scalar rank_threshold) {
  EffortFreedom out{MatX(model.nc(), 0), MatX(static_cast<Eigen::Index>(rows.size()), 0)};
  if (rows.empty() || model.nc() > kSparseRows) return out;
  const Eigen::JacobiSVD<MatX> svd(kin.C.dense().transpose(), Eigen::ComputeFullV);
  const VecX& sigma = svd.singularValues();
  Eigen::Index rank = 0;
  while (rank < sigma.size() && sigma(rank) > rank_threshold * sigma(0)) ++rank;
  if (rank == model.nc()) return out;  // (no self-stress)
  const MatX N = svd.matrixV().rightCols(model.nc() - rank);  // the null space of C^T
  MatX E(static_cast<Eigen::Index>(rows.size()), N.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) E.row(static_cast<Eigen::Index>(i)) = N.row(rows[i]);
  const Eigen::JacobiSVD<MatX> span(E, Eigen::ComputeThinU | Eigen::ComputeThinV);
  Eigen::Index p = 0;  // (E's columns are parts of unit vectors: 1e-8 is a zero)
  while (p < span.singularValues().size() && span.singularValues()(p) > 1e-8) ++p;
  out.Lambda = N * span.matrixV().leftCols(p) * span.singularValues().head(p).cwiseInverse().asDiagonal();
  out.P = -span.matrixU().leftCols(p);  // (D Lambda = U; the efforts are -lambda_d)
  return out;
}

bool withinBounds(const VecX& tau, const EffortResolution& r) {
  if (r.kind != EffortResolution::Kind::Bounded) return true;
  for (Eigen::Index i = 0; i < tau.size(); ++i) {
    const Scalar slack = 1e-12 * std::max<Scalar>(1, std::abs(tau(i)));
    if (tau(i) < r.lower(i) - slack || tau(i) > r.upper(i) + slack) return false;
  }
  return true;
}

/// y minimising |W (tau0 + P y)|^2 (within the bounds for Bounded); false when the bounds admit none.
bool chooseAlong(const EffortFreedom& f, const VecX& tau0, const EffortResolution& r, VecX& y) {
  const Eigen::Index nd = tau0.size();
  const VecX w2 = r.motor_constants.size() == nd ? VecX(r.motor_constants.cwiseAbs2().cwiseInverse()) : VecX::Ones(nd);
  const MatX G = f.P.transpose() * w2.asDiagonal() * f.P;  // (P orthonormal, W > 0: positive definite)
  const VecX g = f.P.transpose() * w2.asDiagonal() * tau0;
  MatX A(f.P.cols(), 0);  // the bounds as A^T y >= b
  VecX b(0);
  if (r.kind == EffortResolution::Kind::Bounded) {
    for (Eigen::Index i = 0; i < nd; ++i)
      for (const Scalar side : {1.0, -1.0}) {
        const Scalar bound = side > 0 ? r.lower(i) : r.upper(i);
        if (!std::isfinite(bound)) continue;
        A.conservativeResize(Eigen::NoChange, A.cols() + 1);
        b.conservativeResize(b.size() + 1);
        A.col(A.cols() - 1) = side * f.P.row(i).transpose();  // side (tau0_i + P_i y) >= side bound
        b(b.size() - 1) = side * (bound - tau0(i));
      }
  }
  const QpSolution s = solveConvexQp(G, g, A, b);
  y = s.x;
  return s.feasible;
}

}  // namespace

std::string effortResolutionName(EffortResolution::Kind kind) {
  switch (kind) {
    case EffortResolution::Kind::LeastNorm: return "least-norm";
    case EffortResolution::Kind::Weighted: return "weighted";
    case EffortResolution::Kind::Bounded: return "bounded";
  }
  return "?";
}

bool resolveEfforts(const Model& model, const KinematicsWorkspace& kin, const EffortResolution& resolution,
                    VecX& lambda, Scalar rank_threshold) {
  const std::vector<Eigen::Index> rows = driverRows(model);
  VecX tau0(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) tau0(static_cast<Eigen::Index>(i)) = -lambda(rows[i]);
  const EffortFreedom freedom = effortFreedom(model, kin, rows, rank_threshold);
  if (freedom.P.cols() == 0) return withinBounds(tau0, resolution);
  VecX y;
  if (!chooseAlong(freedom, tau0, resolution, y)) return false;
  lambda += freedom.Lambda * y;
  return true;
}

}  // namespace loopdyn
