#include "loopdyn/dynamics/kinetic_gram.hpp"

#include <limits>

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
  gatherRows(model, kin, scaling, [](int k) { return k; });
  factorize(model, inverse_mass);
}

void KineticGram::compute(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
                          const InverseMass& inverse_mass, const std::vector<int>& rows) {
  if (selection_ != Selection::Listed || selected_ != rows) {
    selected_ = rows;
    findBodyRows(model);
    selection_ = Selection::Listed;
  }
  gatherRows(model, kin, scaling, [&](int k) { return rows[static_cast<std::size_t>(k)]; });
  factorize(model, inverse_mass);
}

template <class RowOf>
void KineticGram::gatherRows(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling,
                             RowOf row_of) {
  const int D = model.vPerBody();
  for (int b = 0; b < model.nb(); ++b) {
    const std::vector<int>& touching = body_rows_[static_cast<std::size_t>(b)];
    for (std::size_t x = 0; x < touching.size(); ++x) {
      const int row = row_of(touching[x]);
      // (the row touches b: its block there is the first or the second)
      const Scalar* c = kin.C.block(row, kin.C.body(row, 0) == b ? 0 : 1).data();
      Scalar* out = &Ct_(0, block_offset_[static_cast<std::size_t>(b)] + static_cast<Eigen::Index>(x));
      const Scalar s = scaling.row(row);
      for (int k = 0; k < D; ++k) out[k] = s * c[k];
    }
  }
}

void KineticGram::factorize(const Model& model, const InverseMass& inverse_mass) {
  const int rows = this->rows();
  if (model.dimension() == 2) {  // (M_b^-1 diagonal: each entry times its own)
    const Scalar* d = inverse_mass.planarDiagonal().data();
    for (int b = 0; b < model.nb(); ++b)
      for (int c = block_offset_[static_cast<std::size_t>(b)]; c < block_offset_[static_cast<std::size_t>(b) + 1]; ++c)
        for (int k = 0; k < 3; ++k) MinvCt_(k, c) = d[3 * b + k] * Ct_(k, c);
  } else {
    MinvCt_ = Ct_;
    for (int b = 0; b < model.nb(); ++b) {
      const auto offset = block_offset_[static_cast<std::size_t>(b)];
      inverse_mass.applyToBody(model, b, MinvCt_.middleCols(offset, block_offset_[static_cast<std::size_t>(b) + 1] - offset));
    }
  }
  sparse_ = rows >= kSparseGramRows &&
            (model.dimension() == 2 ? computeSparse<3>(model, rows) : computeSparse<6>(model, rows));
  if (sparse_) return;
  if (rows > kLargestDenseSize) {  // (beyond the dense path: the sparse factor as it is, see the header)
    sparse_ = true;
    return;
  }
  if (dense_pattern_rows_ != rows) densePattern(rows);
  // G = sum over bodies of C_r[:, b] M_b^-1 C_r[:, b]^T: M is block-diagonal by bodies and a row
  // of C touches at most two bodies, so only the rows touching body b meet there
  // The elimination without pivoting reads G's lower triangle alone, the pivoted one the whole:
  // while the rows were independent the last time the lower triangle is filled (and where this
  // attempt fails, G again, whole); where they were not (redundant rows, or near a singular
  // configuration), the whole, which the failed attempt restores.
  const bool whole = !last_regular_;
  ldlt_.matrix().setZero(rows, rows);
  addBodyBlocks(model, whole);
  last_regular_ = ldlt_.factorizeRegular(kRegularPivotRatio, whole);
  if (last_regular_) return;
  if (!whole) {
    ldlt_.matrix().setZero(rows, rows);
    addBodyBlocks(model, true);
  }
  ldlt_.factorize(kGramPivotThreshold);
}

void KineticGram::addBodyBlocks(const Model& model, bool whole) {
  if (model.dimension() == 2) whole ? addBodyBlocks<3, true>() : addBodyBlocks<3, false>();
  else whole ? addBodyBlocks<6, true>() : addBodyBlocks<6, false>();
}

template <int D, bool Upper>
void KineticGram::addBodyBlocks() {
  using Column = Eigen::Map<const Eigen::Matrix<Scalar, D, 1>>;
  Scalar* g = ldlt_.matrix().data();
  const Scalar* ct = Ct_.data();
  const Scalar* minv_ct = MinvCt_.data();
  for (const GramTerm& term : gram_terms_) {
    const Scalar* a = ct + D * term.x;
    const Scalar* b = minv_ct + D * term.y;
    // (in 2D the sum in the order Eigen's dot of two 3-vectors takes: the same bits)
    Scalar value;
    if constexpr (D == 3) {
      value = (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2];
    } else {
      const Eigen::Matrix<Scalar, D, 1> column = Column(a);
      value = column.dot(Column(b));
    }
    g[term.lower] += value;
    if (Upper && term.upper >= 0) g[term.upper] += value;
  }
}

namespace {

/// out(k) += C_r's row k times v, body by body (D entries a body; see KineticGram's Ct_).
template <int D>
void addRowsTimes(const std::vector<std::vector<int>>& body_rows, const std::vector<int>& offset, const MatX& Ct,
                  const VecX& v, VecX& out) {
  for (std::size_t b = 0; b < body_rows.size(); ++b) {
    const std::vector<int>& touching = body_rows[b];
    const Eigen::Matrix<Scalar, D, 1> vb = v.segment<D>(static_cast<Eigen::Index>(b) * D);
    for (std::size_t x = 0; x < touching.size(); ++x)
      out(touching[x]) += Ct.col(offset[b] + static_cast<Eigen::Index>(x)).template head<D>().dot(vb);
  }
}

/// a_b -= sum over b's rows k of w(k) (M_b^-1 C_r[k, b]^T).
template <int D>
void subtractColumnsTimes(const std::vector<std::vector<int>>& body_rows, const std::vector<int>& offset,
                          const MatX& MinvCt, const VecX& w, VecX& a) {
  for (std::size_t b = 0; b < body_rows.size(); ++b) {
    const std::vector<int>& touching = body_rows[b];
    Eigen::Matrix<Scalar, D, 1> sum = Eigen::Matrix<Scalar, D, 1>::Zero();
    for (std::size_t x = 0; x < touching.size(); ++x)
      sum += w(touching[x]) * MinvCt.col(offset[b] + static_cast<Eigen::Index>(x)).template head<D>();
    a.segment<D>(static_cast<Eigen::Index>(b) * D) -= sum;
  }
}

}  // namespace

void KineticGram::rowsTimes(const VecX& v, VecX& out) const {
  out.setZero(rows());
  if (Ct_.rows() == 3) addRowsTimes<3>(body_rows_, block_offset_, Ct_, v, out);
  else addRowsTimes<6>(body_rows_, block_offset_, Ct_, v, out);
}

void KineticGram::subtractInverseMassRowsTransposedTimes(const VecX& w, VecX& a) const {
  if (MinvCt_.rows() == 3) subtractColumnsTimes<3>(body_rows_, block_offset_, MinvCt_, w, a);
  else subtractColumnsTimes<6>(body_rows_, block_offset_, MinvCt_, w, a);
}

void KineticGram::densePattern(int rows) {
  gram_terms_.clear();
  const auto n = static_cast<Eigen::Index>(rows);
  for (std::size_t b = 0; b < body_rows_.size(); ++b) {
    const std::vector<int>& touching = body_rows_[b];
    for (std::size_t x = 0; x < touching.size(); ++x)
      for (std::size_t y = 0; y <= x; ++y) {
        const Eigen::Index tx = touching[x], ty = touching[y];
        gram_terms_.push_back({block_offset_[b] + static_cast<int>(x), block_offset_[b] + static_cast<int>(y),
                               tx + ty * n, x == y ? -1 : ty + tx * n});
      }
  }
  std::vector<Eigen::Index> entries;
  for (const GramTerm& term : gram_terms_) entries.push_back(term.lower);
  ldlt_.setPattern(rows, entries);
  dense_pattern_rows_ = rows;
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
  block_offset_.assign(1, 0);
  for (const std::vector<int>& r : body_rows_) block_offset_.push_back(block_offset_.back() + static_cast<int>(r.size()));
  Ct_.resize(model.vPerBody(), block_offset_.back());
  // G's terms body by body (the order addBodyBlocks adds them in): rows x >= y touching body b meet
  // in G(row x, row y) and its mirror
  dense_pattern_rows_ = -1;  // (the dense path's terms and pattern: at its first use)
  MinvCt_.resize(Ct_.rows(), Ct_.cols());
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
    const Eigen::Index offset = block_offset_[static_cast<std::size_t>(b)];
    for (std::size_t x = 0; x < r.size(); ++x) {
      const Eigen::Matrix<Scalar, D, 1> column = Ct_.col(offset + static_cast<Eigen::Index>(x)).template head<D>();
      for (std::size_t y = 0; y <= x; ++y)
        values[value_index_[k++]] += column.dot(MinvCt_.col(offset + static_cast<Eigen::Index>(y)).template head<D>());
    }
  }
  sparse_ldlt_.factorize(Gs_);
  sparse_pivot_ratio_ = 0;
  if (sparse_ldlt_.info() != Eigen::Success) return false;
  const VecX& d = sparse_ldlt_.vectorD();
  const Scalar largest = d.maxCoeff(), smallest = d.minCoeff();
  sparse_pivot_ratio_ = largest > 0 ? smallest / largest : 0;
  return largest > 0 && smallest >= kRegularPivotRatio * largest;
}

void KineticGram::solveInPlace(Eigen::Ref<VecX> r) const {
  if (!sparse_) {
    ldlt_.solveInPlace(r);
    return;
  }
  if (!(sparse_pivot_ratio_ > 0)) {  // (no factor: dependent rows beyond the dense path)
    r.setConstant(std::numeric_limits<Scalar>::quiet_NaN());
    return;
  }
  sparse_work_ = sparse_ldlt_.solve(r);
  r = sparse_work_;
}

}  // namespace loopdyn
