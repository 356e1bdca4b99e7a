#include "loopdyn/dynamics/kinetic_gram.hpp"


namespace loopdyn {

void KineticGram::compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
                          const InverseMass& inverse_mass, int rows) {
  Cr_.noalias() = scaling.row.head(rows).asDiagonal() * kin.C.topRows(rows);
  MinvCt_ = Cr_.transpose();
  inverse_mass.apply(model, MinvCt_);
  // G = sum over bodies of C_r[:, b] M_b^-1 C_r[:, b]^T: M is block-diagonal by bodies and a row
  // of C touches at most two bodies, so only the rows touching body b meet there (a block that is
  // zero at this configuration adds exactly zero, so the numerical pattern suffices)
  ldlt_.matrix().setZero(rows, rows);
  if (static_cast<int>(touching_.capacity()) < rows) touching_.reserve(static_cast<std::size_t>(rows));
  for (int b = 0; b < model.nb(); ++b) {
    if (model.dimension() == 2) addBodyBlocks<3>(b, rows);
    else addBodyBlocks<6>(b, rows);
  }
  ldlt_.factorize(kGramPivotThreshold);
}

template <int D>
void KineticGram::addBodyBlocks(int body, int rows) {
  touching_.clear();
  for (int i = 0; i < rows; ++i)
    if (!Cr_.row(i).segment<D>(body * D).isZero(0)) touching_.push_back(i);
  for (std::size_t x = 0; x < touching_.size(); ++x) {
    const Eigen::Matrix<Scalar, 1, D> row = Cr_.row(touching_[x]).segment<D>(body * D);
    for (std::size_t y = 0; y <= x; ++y) {
      const Scalar g = row.dot(MinvCt_.col(touching_[y]).segment<D>(body * D));
      ldlt_.matrix()(touching_[x], touching_[y]) += g;
      if (y != x) ldlt_.matrix()(touching_[y], touching_[x]) += g;
    }
  }
}

void KineticGram::solveInPlace(Eigen::Ref<VecX> r) const { ldlt_.solveInPlace(r); }

}  // namespace loopdyn
