#include "loopdyn/dynamics/kinetic_gram.hpp"

#include <algorithm>
#include <cmath>

namespace loopdyn {

void KineticGram::compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
                          const InverseMass& inverse_mass, int rows) {
  Cr_.noalias() = scaling.row.head(rows).asDiagonal() * kin.C.topRows(rows);
  MinvCt_ = Cr_.transpose();
  inverse_mass.apply(model, MinvCt_);
  // G = sum over bodies of C_r[:, b] M_b^-1 C_r[:, b]^T: M is block-diagonal by bodies and a row
  // of C touches at most two bodies, so only the rows touching body b meet there (a block that is
  // zero at this configuration adds exactly zero, so the numerical pattern suffices)
  G_.setZero(rows, rows);
  if (static_cast<int>(touching_.capacity()) < rows) touching_.reserve(static_cast<std::size_t>(rows));
  for (int b = 0; b < model.nb(); ++b) {
    if (model.dimension() == 2) addBodyBlocks<3>(b, rows);
    else addBodyBlocks<6>(b, rows);
  }
  G_.triangularView<Eigen::StrictlyUpper>() = G_.transpose();
  if (rows == 0) {
    zero_pivot_ = 0;
    return;
  }
  ldlt_.compute(G_);
  zero_pivot_ = kGramPivotThreshold * ldlt_.vectorD().cwiseAbs().maxCoeff();
}

template <int D>
void KineticGram::addBodyBlocks(int body, int rows) {
  touching_.clear();
  for (int i = 0; i < rows; ++i)
    if (!Cr_.row(i).segment<D>(body * D).isZero(0)) touching_.push_back(i);
  for (std::size_t x = 0; x < touching_.size(); ++x) {
    const Eigen::Matrix<Scalar, 1, D> row = Cr_.row(touching_[x]).segment<D>(body * D);
    for (std::size_t y = 0; y <= x; ++y)
      G_(touching_[x], touching_[y]) += row.dot(MinvCt_.col(touching_[y]).segment<D>(body * D));
  }
}

void KineticGram::solveInPlace(Eigen::Ref<VecX> r) const {
  if (G_.rows() == 0) return;
  // G = P^T L D L^T P: r <- P^T L^-T D^+ L^-1 P r, D^+ zero on the zero pivots
  r = ldlt_.transpositionsP() * r;
  ldlt_.matrixL().solveInPlace(r);
  const auto D = ldlt_.vectorD();
  for (Eigen::Index k = 0; k < r.size(); ++k) r(k) = std::abs(D(k)) > zero_pivot_ ? r(k) / D(k) : 0;
  ldlt_.matrixU().solveInPlace(r);
  r = ldlt_.transpositionsP().transpose() * r;
}

Scalar KineticGram::pivotRatio(int k) const {
  if (k >= G_.rows() || k < 0) return 1;
  const auto D = ldlt_.vectorD();
  const Scalar largest = D.cwiseAbs().maxCoeff();
  if (!(largest > 0)) return 0;
  // the (k+1)-th largest pivot, without allocating: count how many exceed each candidate
  Scalar kth = 0;
  for (Eigen::Index i = 0; i < D.size(); ++i) {
    const Scalar d = std::abs(D(i));
    Eigen::Index larger = 0;
    for (Eigen::Index j = 0; j < D.size(); ++j) larger += std::abs(D(j)) > d || (std::abs(D(j)) == d && j < i);
    if (larger == k) kth = d;
  }
  return std::sqrt(kth / largest);
}

}  // namespace loopdyn
