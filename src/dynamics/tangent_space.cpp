#include "loopdyn/dynamics/tangent_space.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>

#include "loopdyn/analysis/one_body_motions.hpp"

namespace loopdyn {

void TangentFactorization::compute(const KinematicsWorkspace& kin, const ConstraintScaling& scaling, int rank) {
  scaledTransposed(scaling, kin.C.dense(), At);
  computeFromAt(rank);
}

void TangentFactorization::computeFromAt(int rank) {
  qr.compute(At);
  // (no constraint rows -- free bodies, bodies on springs -- leave every motion admissible)
  r = At.cols() > 0 ? rank : 0;
  K = qr.pivots();
}

Scalar TangentFactorization::diagonalRatio(int j) const {
  if (At.cols() == 0) return 1;
  const Scalar first = qr.diagonal()(0);
  return first > 0 ? qr.diagonal()(j) / first : 0;
}

int TangentFactorization::pivot(int j) const { return qr.pivots()[static_cast<std::size_t>(j)]; }

int TangentFactorization::rankAt(Scalar threshold) const {
  if (At.cols() == 0) return 0;
  const int size = static_cast<int>(std::min(At.rows(), At.cols()));
  int rank = 0;
  while (rank < size && diagonalRatio(rank) >= threshold) ++rank;
  return rank;
}

void TangentFactorization::projectOutQ1(Eigen::Ref<MatX> X) const {
  // with H = H_{r-1} ... H_0: H X = [Q1^T X; Y], and H^T [0; Y] = X - Q1 Q1^T X
  qr.applyReflectorsTransposed(X, r);
  X.topRows(r).setZero();
  qr.applyReflectors(X, r);
}

void TangentFactorization::solveTransposedInPlace(Eigen::Ref<MatX> p) const {
  constexpr Scalar kExactlySingular = 1e-12;
  const Scalar zero = r > 0 ? kExactlySingular * qr.diagonal()(0) : 0;
  for (Eigen::Index c = 0; c < p.cols(); ++c) {
    Scalar* x = p.col(c).data();
    for (int k = 0; k < r; ++k) {
      // forward substitution with R11^T (lower triangular)
      Scalar sum = x[k];
      for (int i = 0; i < k; ++i) sum -= qr.r(i, k) * x[i];
      x[k] = std::abs(qr.r(k, k)) > zero ? sum / qr.r(k, k) : 0;
    }
  }
}

MatX TangentFactorization::fullQ() const { return lastColumnsOfQ(static_cast<int>(At.rows())); }

MatX TangentFactorization::lastColumnsOfQ(int k) const {
  const Eigen::Index n = At.rows();
  MatX Q = MatX::Identity(n, n).rightCols(k);
  qr.applyReflectors(Q, static_cast<int>(std::min(At.rows(), At.cols())));
  return Q;
}

namespace {

/// T = X (X^T X)^-1/2 for X = P T0; false (T unchanged) when X has no full column rank.
bool polarFactor(const MatX& X, Eigen::Ref<MatX> T) {
  const MatX G = X.transpose() * X;  // T0^T P T0 (P is a projector)
  Eigen::SelfAdjointEigenSolver<MatX> eigen(G);
  if (eigen.info() != Eigen::Success || (G.rows() > 0 && eigen.eigenvalues().minCoeff() <= 1e-12)) return false;
  T.noalias() = X * eigen.operatorInverseSqrt();
  return true;
}

}  // namespace

bool reorthogonalize(const MatX& Q1, Eigen::Ref<MatX> T) {
  // a mechanism without freedom (fully driven) has an empty tangent basis: nothing to turn (and
  // Eigen's eigensolver crashes on an empty matrix in a Release build)
  if (T.cols() == 0) return true;
  return polarFactor(T - Q1 * (Q1.transpose() * T), T);
}

bool reorthogonalize(const TangentFactorization& tf, Eigen::Ref<MatX> T) {
  if (T.cols() == 0) return true;
  MatX X = T;
  tf.projectOutQ1(X);
  return polarFactor(X, T);
}

bool reorthogonalizeInto(const MatX& N, Eigen::Ref<MatX> T) {
  if (T.cols() == 0) return true;
  return polarFactor(N * (N.transpose() * T), T);
}

namespace {

/// [X, N'] with N' an orthonormal basis of the part of span N orthogonal to X (X's columns
/// orthonormal and in span N, N orthonormal); N unchanged when X does not fit in it.
MatX motionsAfter(const MatX& X, const MatX& N) {
  const Eigen::Index k = X.cols(), f = N.cols();
  if (k == 0 || k > f) return N;
  const MatX rest = N - X * (X.transpose() * N);
  Eigen::JacobiSVD<MatX> svd(rest, Eigen::ComputeThinU);
  MatX out(N.rows(), f);
  out << X, svd.matrixU().leftCols(f - k);
  return out;
}

}  // namespace

AdmissibleMotions admissibleMotions(const Model& model, const KinematicsWorkspace& kin, Scalar threshold) {
  TangentFactorization f;
  const ConstraintScaling& scaling = model.scaling();
  f.compute(kin, scaling, 0);
  AdmissibleMotions out;
  out.rank = f.rankAt(threshold);
  const MatX N = f.lastColumnsOfQ(model.nv() - out.rank);
  const std::vector<OneBodyMotion> alone = oneBodyMotions(model, kin, threshold);
  MatX X(model.nv(), static_cast<Eigen::Index>(alone.size()));
  for (std::size_t j = 0; j < alone.size(); ++j) X.col(static_cast<Eigen::Index>(j)) = alone[j].scaled;
  out.motions = scaling.col.asDiagonal() * motionsAfter(X, N);
  out.words.assign(static_cast<std::size_t>(out.motions.cols()), "");
  if (X.cols() <= N.cols())
    for (std::size_t j = 0; j < alone.size(); ++j) out.words[j] = alone[j].words;
  return out;
}

}  // namespace loopdyn
