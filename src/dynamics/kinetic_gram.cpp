#include "loopdyn/dynamics/kinetic_gram.hpp"

#include <algorithm>
#include <numeric>


namespace loopdyn {

void KineticGram::compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
                          const InverseMass& inverse_mass, int rows) {
  if (selection_ != Selection::First || static_cast<int>(selected_.size()) != rows) {
    selected_.resize(static_cast<std::size_t>(rows));
    std::iota(selected_.begin(), selected_.end(), 0);
    findBodyRows(model);
    selection_ = Selection::First;
  }
  Cr_.noalias() = scaling.row.head(rows).asDiagonal() * kin.C.topRows(rows);
  factorize(model, inverse_mass);
}

void KineticGram::compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
                          const InverseMass& inverse_mass, const std::vector<int>& rows) {
  if (selection_ != Selection::Listed || selected_ != rows) {
    selected_ = rows;
    findBodyRows(model);
    selection_ = Selection::Listed;
  }
  Cr_.resize(static_cast<Eigen::Index>(rows.size()), model.nv());
  for (std::size_t k = 0; k < rows.size(); ++k)
    Cr_.row(static_cast<Eigen::Index>(k)) = scaling.row(rows[k]) * kin.C.row(rows[k]);
  factorize(model, inverse_mass);
}

void KineticGram::factorize(const Model& model, const InverseMass& inverse_mass) {
  const int rows = this->rows();
  inverse_mass.timesTransposed(model, Cr_, MinvCt_);
  sparse_ = rows >= kSparseGramRows &&
            (model.dimension() == 2 ? computeSparse<3>(model, rows) : computeSparse<6>(model, rows));
  if (sparse_) return;
  // G = sum over bodies of C_r[:, b] M_b^-1 C_r[:, b]^T: M is block-diagonal by bodies and a row
  // of C touches at most two bodies, so only the rows touching body b meet there
  ldlt_.matrix().setZero(rows, rows);
  for (int b = 0; b < model.nb(); ++b) {
    if (model.dimension() == 2) addBodyBlocks<3>(b);
    else addBodyBlocks<6>(b);
  }
  ldlt_.factorize(kGramPivotThreshold, kRegularPivotRatio);
}

template <int D>
void KineticGram::addBodyBlocks(int body) {
  const std::vector<int>& touching = body_rows_[static_cast<std::size_t>(body)];
  for (std::size_t x = 0; x < touching.size(); ++x) {
    const Eigen::Matrix<Scalar, 1, D> row = Cr_.row(touching[x]).segment<D>(body * D);
    for (std::size_t y = 0; y <= x; ++y) {
      const Scalar g = row.dot(MinvCt_.col(touching[y]).segment<D>(body * D));
      ldlt_.matrix()(touching[x], touching[y]) += g;
      if (y != x) ldlt_.matrix()(touching[y], touching[x]) += g;
    }
  }
}

void KineticGram::findBodyRows(const Model& model) {
  // a row of a pair touches the pair's bodies (ground: none)
  body_rows_.assign(static_cast<std::size_t>(model.nb()), {});
  for (std::size_t k = 0; k < selected_.size(); ++k) {
    const Equation& equation = model.equations()[static_cast<std::size_t>(selected_[k])];
    const Pair& pair = model.pairs()[static_cast<std::size_t>(equation.pair)];
    for (const BodyIndex body : {pair.body1, pair.body2}) {
      if (body == kGround) continue;
      std::vector<int>& r = body_rows_[static_cast<std::size_t>(body)];
      if (r.empty() || r.back() != static_cast<int>(k)) r.push_back(static_cast<int>(k));
    }
  }
  sparse_rows_ = -1;  // (the sparse pattern follows the rows)
}

void KineticGram::sparsePattern(int rows) {
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
  if (sparse_rows_ != rows) sparsePattern(rows);
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
  if (!(largest > 0) || !(smallest >= kRegularPivotRatio * largest)) return false;
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
