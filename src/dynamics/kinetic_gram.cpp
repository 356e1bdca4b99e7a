#include "loopdyn/dynamics/kinetic_gram.hpp"

#include <algorithm>
#include <cmath>

namespace loopdyn {

void KineticGram::compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
                          const InverseMass& inverse_mass, int rows) {
  Cr_.noalias() = scaling.row.head(rows).asDiagonal() * kin.C.topRows(rows);
  MinvCt_ = Cr_.transpose();
  inverse_mass.apply(model, MinvCt_);
  G_.noalias() = Cr_ * MinvCt_;
  if (rows == 0) {
    zero_pivot_ = 0;
    return;
  }
  ldlt_.compute(G_);
  zero_pivot_ = kGramPivotThreshold * ldlt_.vectorD().cwiseAbs().maxCoeff();
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
