#include "loopdyn/dynamics/kinetic_gram.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

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
  factorize();
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
      G_(touching_[x], touching_[y]) += g;
      if (y != x) G_(touching_[y], touching_[x]) += g;
    }
  }
}

void KineticGram::factorize() {
  // P G P^T = L D L^T by symmetric Gaussian elimination with diagonal pivoting (Golub & Van Loan,
  // sect. 4.2.9 / the pivoted Cholesky of sect. 4.2.8, without square roots): at step k the largest
  // remaining diagonal of the Schur complement is moved to k. G is positive semidefinite, so the
  // pivots decrease and |L_ik| <= 1; once the largest remaining one is at or below
  // kGramPivotThreshold times the first, the rest of G is dependent rows at rounding level: those
  // pivots are zero and their columns of L are set to zero. (Eigen's LDLT does the same arithmetic
  // through dynamic-size blocks at 4x the instructions for the 14 x 14 G of the double four-bar.)
  const auto n = G_.rows();
  perm_.resize(static_cast<std::size_t>(n));
  std::iota(perm_.begin(), perm_.end(), 0);
  D_.setZero(n);
  work_.resize(n);
  Scalar* g = G_.data();  // column-major: G(i, j) = g[i + j n]
  const auto at = [&](Eigen::Index i, Eigen::Index j) -> Scalar& { return g[i + j * n]; };
  Scalar first = 0;
  for (Eigen::Index k = 0; k < n; ++k) {
    Eigen::Index p = k;
    for (Eigen::Index i = k + 1; i < n; ++i)
      if (at(i, i) > at(p, p)) p = i;
    if (k == 0) first = at(p, p);
    if (!(at(p, p) > kGramPivotThreshold * first)) {
      // dependent rows: zero pivots, no elimination (L's trailing block is the identity)
      for (Eigen::Index j = k; j < n; ++j)
        for (Eigen::Index i = k; i < n; ++i) at(i, j) = 0;
      break;
    }
    if (p != k) {
      for (Eigen::Index j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
      for (Eigen::Index i = 0; i < n; ++i) std::swap(at(i, k), at(i, p));
      std::swap(perm_[static_cast<std::size_t>(k)], perm_[static_cast<std::size_t>(p)]);
    }
    const Scalar d = at(k, k);
    D_(k) = d;
    for (Eigen::Index i = k + 1; i < n; ++i) at(i, k) /= d;
    // Schur complement, kept symmetric (both triangles: later pivots swap whole rows and columns)
    for (Eigen::Index j = k + 1; j < n; ++j) {
      const Scalar dl = d * at(j, k);
      for (Eigen::Index i = k + 1; i < n; ++i) at(i, j) -= dl * at(i, k);
      at(k, j) = 0;
    }
  }
}

void KineticGram::solveInPlace(Eigen::Ref<VecX> r) const {
  const auto n = G_.rows();
  if (n == 0) return;
  // G = P^T L D L^T P: r <- P^T L^-T D^+ L^-1 P r, D^+ zero on the zero pivots
  for (Eigen::Index k = 0; k < n; ++k) work_(k) = r(perm_[static_cast<std::size_t>(k)]);
  for (Eigen::Index k = 0; k < n; ++k) work_.tail(n - k - 1) -= work_(k) * G_.col(k).tail(n - k - 1);
  for (Eigen::Index k = 0; k < n; ++k) work_(k) = D_(k) != 0 ? work_(k) / D_(k) : 0;
  for (Eigen::Index k = n - 1; k >= 0; --k) work_(k) -= G_.col(k).tail(n - k - 1).dot(work_.tail(n - k - 1));
  for (Eigen::Index k = 0; k < n; ++k) r(perm_[static_cast<std::size_t>(k)]) = work_(k);
}

}  // namespace loopdyn
