#include "loopdyn/dynamics/tangent_space.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

namespace loopdyn {

void TangentFactorization::factorize(const KinematicsWorkspace& kin, const ConstraintScaling& scaling) {
  At.noalias() = scaling.col.asDiagonal() * kin.C.transpose() * scaling.row.asDiagonal();
  r_only.compute(At);
  r_only_ = true;
}

void TangentFactorization::compute(const KinematicsWorkspace& kin, const ConstraintScaling& scaling, int rank) {
  At.noalias() = scaling.col.asDiagonal() * kin.C.transpose() * scaling.row.asDiagonal();
  computeFromAt(rank);
}

void TangentFactorization::computeFromAt(int rank) {
  if (At.cols() > 0) qr.compute(At);
  r_only_ = false;
  const auto n = At.rows();
  r = rank;
  if (At.cols() == 0) {
    // no constraint rows (free bodies, bodies on springs): every motion is admissible
    Q1.resize(n, 0);
    R11.resize(0, 0);
    K.clear();
    r = 0;
    return;
  }
  Q1.setIdentity(n, r);
  if (r > 0) Q1.applyOnTheLeft(qr.householderQ());  // (Eigen's blocks of an empty Q1 offset a null pointer)
  R11 = qr.matrixR().topLeftCorner(r, r).triangularView<Eigen::Upper>();
  K.assign(qr.colsPermutation().indices().data(), qr.colsPermutation().indices().data() + qr.colsPermutation().size());
}

Scalar TangentFactorization::diagonalRatio(int j) const {
  if (At.cols() == 0) return 1;
  const Scalar first = r_only_ ? r_only.diagonal()(0) : std::abs(qr.matrixR()(0, 0));
  const Scalar jth = r_only_ ? r_only.diagonal()(j) : std::abs(qr.matrixR()(j, j));
  return first > 0 ? jth / first : 0;
}

int TangentFactorization::pivot(int j) const {
  return r_only_ ? r_only.pivots()[static_cast<std::size_t>(j)] : qr.colsPermutation().indices()(j);
}

int TangentFactorization::rankAt(Scalar threshold) const {
  if (At.cols() == 0) return 0;
  const int size = static_cast<int>(std::min(At.rows(), At.cols()));
  int rank = 0;
  while (rank < size && diagonalRatio(rank) >= threshold) ++rank;
  return rank;
}

void TangentFactorization::solveTransposedInPlace(Eigen::Ref<MatX> p) const {
  constexpr Scalar kExactlySingular = 1e-12;
  const auto n = R11.rows();
  const Scalar zero = n > 0 ? kExactlySingular * std::abs(R11(0, 0)) : 0;
  for (Eigen::Index k = 0; k < n; ++k) {
    // forward substitution with R11^T (lower triangular)
    p.row(k) -= R11.col(k).head(k).transpose() * p.topRows(k);
    if (std::abs(R11(k, k)) > zero)
      p.row(k) /= R11(k, k);
    else
      p.row(k).setZero();
  }
}

MatX TangentFactorization::fullQ() const {
  if (At.cols() == 0) return MatX::Identity(At.rows(), At.rows());
  return qr.householderQ();
}

bool reorthogonalize(const MatX& Q1, Eigen::Ref<MatX> T) {
  // a mechanism without freedom (fully driven) has an empty tangent basis: nothing to turn (and
  // Eigen's eigensolver crashes on an empty matrix in a Release build)
  if (T.cols() == 0) return true;
  MatX X = T - Q1 * (Q1.transpose() * T);  // P T0
  const MatX G = X.transpose() * X;        // T0^T P T0 (P is a projector)
  Eigen::SelfAdjointEigenSolver<MatX> eigen(G);
  if (eigen.info() != Eigen::Success || (G.rows() > 0 && eigen.eigenvalues().minCoeff() <= 1e-12)) return false;
  T.noalias() = X * eigen.operatorInverseSqrt();
  return true;
}

AdmissibleMotions admissibleMotions(const Model& model, const KinematicsWorkspace& kin, Scalar threshold) {
  TangentFactorization f;
  const ConstraintScaling scaling = constraintScaling(model);
  f.compute(kin, scaling, 0);
  AdmissibleMotions out;
  out.rank = f.rankAt(threshold);
  out.motions = scaling.col.asDiagonal() * f.fullQ().rightCols(model.nv() - out.rank);
  return out;
}

}  // namespace loopdyn
