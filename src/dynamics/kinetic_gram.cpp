#include "loopdyn/dynamics/kinetic_gram.hpp"

#include <algorithm>


namespace loopdyn {

void KineticGram::compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
                          const InverseMass& inverse_mass, int rows) {
  rows_ = rows;
  Cr_.noalias() = scaling.row.head(rows).asDiagonal() * kin.C.topRows(rows);
  MinvCt_ = Cr_.transpose();
  inverse_mass.apply(model, MinvCt_);
  sparse_ = rows >= kSparseGramRows &&
            (model.dimension() == 2 ? computeSparse<3>(model, rows) : computeSparse<6>(model, rows));
  if (sparse_) return;
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

void KineticGram::sparsePattern(const Model& model, int rows) {
  // a row of a pair touches the pair's bodies (ground: none)
  body_rows_.assign(static_cast<std::size_t>(model.nb()), {});
  for (int row = 0; row < rows; ++row) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(model.equations()[static_cast<std::size_t>(row)].pair)];
    for (const BodyIndex body : {pair.body1, pair.body2}) {
      if (body == kGround) continue;
      std::vector<int>& r = body_rows_[static_cast<std::size_t>(body)];
      if (r.empty() || r.back() != row) r.push_back(row);
    }
  }
  std::vector<Eigen::Triplet<Scalar>> pattern;
  for (const std::vector<int>& r : body_rows_)
    for (std::size_t x = 0; x < r.size(); ++x)
      for (std::size_t y = 0; y <= x; ++y) pattern.emplace_back(r[x], r[y], 0.0);
  Gs_.resize(rows, rows);
  Gs_.setFromTriplets(pattern.begin(), pattern.end());
  Gs_.makeCompressed();
  // where each (body, x, y) term lands among G's stored values, in the order computeSparse adds them
  value_index_.clear();
  for (const std::vector<int>& r : body_rows_)
    for (std::size_t x = 0; x < r.size(); ++x)
      for (std::size_t y = 0; y <= x; ++y)
        value_index_.push_back(static_cast<int>(&Gs_.coeffRef(r[x], r[y]) - Gs_.valuePtr()));
  sparse_ldlt_.analyzePattern(Gs_);
  sparse_rows_ = rows;
}

template <int D>
bool KineticGram::computeSparse(const Model& model, int rows) {
  if (sparse_rows_ != rows) sparsePattern(model, rows);
  // G = sum over bodies of C_r[:, b] M_b^-1 C_r[:, b]^T, on the pattern
  Scalar* values = Gs_.valuePtr();
  std::fill(values, values + Gs_.nonZeros(), 0.0);
  std::size_t k = 0;
  for (int b = 0; b < model.nb(); ++b) {
    const std::vector<int>& r = body_rows_[static_cast<std::size_t>(b)];
    for (std::size_t x = 0; x < r.size(); ++x) {
      const Eigen::Matrix<Scalar, 1, D> row = Cr_.row(r[x]).template segment<D>(b * D);
      for (std::size_t y = 0; y <= x; ++y)
        values[value_index_[k++]] += row.dot(MinvCt_.col(r[y]).template segment<D>(b * D));
    }
  }
  sparse_ldlt_.factorize(Gs_);
  if (sparse_ldlt_.info() != Eigen::Success) return false;
  const VecX& d = sparse_ldlt_.vectorD();
  const Scalar largest = d.maxCoeff(), smallest = d.minCoeff();
  if (!(largest > 0) || !(smallest >= kSparsePivotRatio * largest)) return false;
  sparse_pivot_ratio_ = smallest / largest;
  return true;
}

void KineticGram::solveInPlace(Eigen::Ref<VecX> r) const {
  if (!sparse_) {
    ldlt_.solveInPlace(r);
    return;
  }
  sparse_work_ = sparse_ldlt_.solve(r);
  r = sparse_work_;
}

}  // namespace loopdyn
