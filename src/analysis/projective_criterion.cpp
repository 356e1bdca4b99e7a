#include "loopdyn/analysis/projective_criterion.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <array>
#include <string_view>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

ProjectiveCriterion projectiveCriterion(const Model& model, KinematicsWorkspace& ws, const MatX& M, const State& x,
                                        int rank) {
  evaluateConstraints(model, ws, x);
  return projectiveCriterion(M, ws.C.dense(), model.scaling(), rank);
}

ProjectiveCriterion projectiveCriterion(const MatX& M, const MatX& C, const ConstraintScaling& scaling, int rank) {
  const auto n = static_cast<int>(M.rows());
  // tangent basis T (n x k): null C = diag(col) null C_s, from the QR of C_s^T (rank decided on
  // the dimensionless matrix, as everywhere in loopdyn)
  MatX Cs_t;
  scaledTransposed(scaling, C, Cs_t);
  const bool constrained = Cs_t.cols() > 0;  // (no rows: every coordinate is independent)
  Eigen::ColPivHouseholderQR<MatX> qr;
  if (constrained) {
    qr.setThreshold(kRankThreshold);
    qr.compute(Cs_t);
  }
  ProjectiveCriterion out;
  out.rank = rank >= 0 ? rank : (constrained ? static_cast<int>(qr.rank()) : 0);
  const int k = n - out.rank;
  const MatX Q = constrained ? MatX(qr.householderQ()) : MatX::Identity(n, n);
  const MatX T = scaling.col.asDiagonal() * Q.rightCols(k);

  const Eigen::LLT<MatX> mass(M);
  const MatX L_inv = mass.matrixL().solve(MatX::Identity(n, n));  // columns g_i = L^-1 e_i
  const VecX minv_diag = L_inv.colwise().squaredNorm().transpose();  // M^-1(i,i) = |g_i|^2

  // eq. (23a): |k_i^(d)|^2 = e_i^T T (T^T M T)^-1 T^T e_i = |W0 e_i|^2, W0 = Lt^-1 T^T
  const MatX Mt = T.transpose() * M * T;
  const MatX W0 = Eigen::LLT<MatX>(Mt).matrixL().solve(T.transpose());
  // eq. (23b): |k_i^(c)|^2 = g_i^T Y (Y^T Y)^+ Y^T g_i = |U^T g_i|^2, Y = L^-1 C^T, U an orthonormal
  // basis of range Y
  MatX U(n, 0);
  if (constrained) {
    const MatX Y = mass.matrixL().solve(C.transpose());
    U = MatX(Eigen::ColPivHouseholderQR<MatX>(Y).householderQ()).leftCols(out.rank);
  }
  const MatX projected = U.transpose() * L_inv;
  for (int i = 0; i < n; ++i) {
    out.cos2_alpha.push_back(W0.col(i).squaredNorm() / minv_diag(i));
    out.cos2_beta.push_back(projected.col(i).squaredNorm() / minv_diag(i));
  }

  // the best set: QR with column pivoting of W = W0 diag(M^-1(i,i))^-1/2 (see the header)
  if (k > 0) {
    const MatX W = W0 * minv_diag.cwiseSqrt().cwiseInverse().asDiagonal();
    Eigen::ColPivHouseholderQR<MatX> choice(W);
    for (int j = 0; j < k; ++j) {
      out.best_set.push_back(choice.colsPermutation().indices()(j));
      out.set_pivots.push_back(std::abs(choice.matrixR()(j, j)));
    }
    // W_S = Q R(:, 0:k) and R's first k columns are triangular: same singular values
    const MatX R_S = choice.matrixR().topLeftCorner(k, k).triangularView<Eigen::Upper>();
    out.set_sigma_min = Eigen::JacobiSVD<MatX>(R_S).singularValues()(k - 1);
  }
  return out;
}

std::vector<std::string> velocityCoordinateNames(const Model& model) {
  constexpr std::array<std::string_view, 3> kPlanar{"x", "y", "phi"};
  constexpr std::array<std::string_view, 6> kSpatial{"x", "y", "z", "rx", "ry", "rz"};
  std::vector<std::string> names;
  for (const Body& body : model.bodies()) {
    if (model.dimension() == 2)
      for (const std::string_view c : kPlanar) names.push_back(body.name + "." + std::string(c));
    else
      for (const std::string_view c : kSpatial) names.push_back(body.name + "." + std::string(c));
  }
  return names;
}

}  // namespace loopdyn
