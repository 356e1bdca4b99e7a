#include "loopdyn/dynamics/singular_watch.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

namespace loopdyn {

namespace {

/// Interior samples of |R_rr| / |R_11| in a step near a singular configuration.
constexpr int kDipSamples = 4;
/// The closest approach is searched for only where a sample came below this: a passage inside a
/// step of six samples leaves one within a tenth of the ratio's change over the step.
constexpr Scalar kSearchRatio = 0.05;

}  // namespace

Scalar SingularWatch::ratioAt(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  ws.x_shifted.t = x.t;
  ws.x_shifted.q = x.q;
  ws.x_shifted.v.setZero(model.nv());  // C does not depend on v
  evaluateConstraints(model, ws.kin, ws.x_shifted);
  ws.tangent.factorize(ws.kin, ws.scaling);
  return r_ > 0 ? ws.tangent.diagonalRatio(r_ - 1) : 1;
}

Scalar SingularWatch::singularValueRatioAt(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  ratioAt(model, ws, x);  // evaluates ws.tangent.At = C_s^T at x
  const MatX& At = ws.tangent.At;
  if (r_ == 0 || At.cols() == 0) return 1;
  // the smaller of C_s C_s^T (nc x nc) and C_s^T C_s (n x n): the same nonzero eigenvalues
  const MatX gram = At.cols() <= At.rows() ? MatX(At.transpose() * At) : MatX(At * At.transpose());
  const Eigen::SelfAdjointEigenSolver<MatX> eigen(gram, Eigen::EigenvaluesOnly);
  const VecX& l = eigen.eigenvalues();  // increasing
  const Eigen::Index largest = l.size() - 1;
  if (r_ > l.size() || !(l(largest) > 0)) return 0;
  return std::sqrt(std::max<Scalar>(0, l(largest - r_ + 1)) / l(largest));
}

void SingularWatch::readExcess(const DynamicsWorkspace& ws) {
  const TangentFactorization& tf = ws.tangent;
  const auto size = std::min(tf.At.rows(), tf.At.cols());
  last_excess_ = r_ < size ? tf.diagonalRatio(r_) : 0;
  last_excess_row_ = r_ < size ? tf.qr.colsPermutation().indices()(r_) : -1;
}

Scalar SingularWatch::start(const Model& model, DynamicsWorkspace& ws, const State& x) {
  dip_at_end_ = false;
  last_ratio_ = ratioAt(model, ws, x);
  readExcess(ws);
  armed_ = last_ratio_ >= kSingularRatio;  // a singular start is not a passage
  return last_ratio_;
}

SingularWatch::Approach SingularWatch::afterStep(const Model& model, DynamicsWorkspace& ws,
                                                 const Formulation::Step& step, const State& x) {
  Approach approach;
  const Scalar ratio_end = ratioAt(model, ws, x);
  readExcess(ws);
  if (std::min(last_ratio_, ratio_end) >= kNearSingular) {
    dip_at_end_ = false;
    armed_ = true;
    last_ratio_ = ratio_end;
    return approach;
  }
  // sample the step, then search around the smallest sample
  std::array<Scalar, kDipSamples + 2> t{}, ratio{};
  State xi;
  for (int k = 0; k <= kDipSamples + 1; ++k) {
    t[k] = step.t0 + (x.t - step.t0) * k / (kDipSamples + 1);
    if (k == 0) ratio[k] = last_ratio_;
    else if (k == kDipSamples + 1) ratio[k] = ratio_end;
    else {
      step.positions(t[k], xi);
      ratio[k] = ratioAt(model, ws, xi);
    }
  }
  const int best = static_cast<int>(std::min_element(ratio.begin(), ratio.end()) - ratio.begin());
  approach.t = t[best];
  approach.ratio = ratio[best];
  // Where the ratio vanishes inside the bracket around the smallest sample, it falls to zero
  // there linearly (a transversal passage) or quadratically (a touching one), and the line through
  // the smallest sample and a neighbour reaches zero within two spacings of it; a minimum that
  // stays away from zero (a mere approach) is flat there and fails this test.
  const auto vanishesNear = [&](int neighbour) {
    return neighbour >= 0 && neighbour <= kDipSamples + 1 && ratio[best] < 2 * (ratio[neighbour] - ratio[best]);
  };
  if (approach.ratio < kSearchRatio && (vanishesNear(best - 1) || vanishesNear(best + 1))) {
    // golden-section search for the closest approach between the samples next to the smallest
    // (also when that is an end: the minimum may lie just inside the step)
    constexpr Scalar g = 0.6180339887498949;
    Scalar lo = t[std::max(best - 1, 0)], hi = t[std::min(best + 1, kDipSamples + 1)];
    auto f = [&](Scalar s) {
      step.positions(s, xi);
      return ratioAt(model, ws, xi);
    };
    Scalar c = hi - g * (hi - lo), d = lo + g * (hi - lo), fc = f(c), fd = f(d);
    for (int it = 0; it < 60 && hi - lo > 1e-13 * std::max<Scalar>(1, std::abs(hi)); ++it) {
      if (fc < fd) {
        hi = d, d = c, fd = fc, c = hi - g * (hi - lo), fc = f(c);
      } else {
        lo = c, c = d, fc = fd, d = lo + g * (hi - lo), fd = f(d);
      }
    }
    if (std::min(fc, fd) < approach.ratio) {
      approach.t = fc < fd ? c : d;
      approach.ratio = std::min(fc, fd);
    }
  }
  const Scalar length = x.t - step.t0, edge = 1e-9 * std::max<Scalar>(1, std::abs(x.t));
  const bool at_start = approach.t - step.t0 <= edge, at_end = x.t - approach.t <= edge;
  // a minimum at the start counts when the previous step ended going down into it
  approach.passage = armed_ && approach.ratio < kSingularRatio && length > 0 && ((!at_start && !at_end) || (at_start && dip_at_end_));
  if (approach.passage) armed_ = false;
  dip_at_end_ = at_end;
  // the search evaluated other states: factorise at x again for what follows
  last_ratio_ = ratioAt(model, ws, x);
  readExcess(ws);
  // left the neighbourhood after the closest approach: the next visit may count
  for (int k = best + 1; k <= kDipSamples + 1; ++k) armed_ = armed_ || ratio[k] >= kSingularRatio;
  return approach;
}

MatX tangentBasisAt(const Model& model, DynamicsWorkspace& ws, const State& x, int rank) {
  ws.x_shifted.t = x.t;
  ws.x_shifted.q = x.q;
  ws.x_shifted.v.setZero(model.nv());
  evaluateConstraints(model, ws.kin, ws.x_shifted);
  ws.tangent.compute(ws.kin, ws.scaling, rank);
  return ws.tangent.fullQ().rightCols(model.nv() - rank);
}

SingularPassage describePassage(const Model& model, DynamicsWorkspace& ws, const State& x_s, int rank,
                                const MatX& T_before, const MatX& T_after) {
  const int n = model.nv(), f = n - rank;
  SingularPassage p;
  p.t = x_s.t;
  p.rank_regular = rank;
  const MatX Q = tangentBasisAt(model, ws, x_s, 0).leftCols(n);  // the full Q (rank 0 keeps all columns)
  const TangentFactorization& tf = ws.tangent;
  p.ratio = rank > 0 ? tf.diagonalRatio(rank - 1) : 1;
  p.rank = std::min(tf.rankAt(kSingularRatio), rank);
  // null C_s there: the last n - rank* columns of Q; the motion's tangent spaces moved into it
  const MatX Q1 = Q.leftCols(p.rank), N = Q.rightCols(n - p.rank);
  MatX before = T_before, after = T_after;
  const bool moved = reorthogonalize(Q1, before) && reorthogonalize(Q1, after);
  p.branch_change = moved ? 0 : 1;
  if (f > 0 && moved) {
    // sin of the largest principal angle: the largest singular value of (I - B B^T) A
    const Eigen::JacobiSVD<MatX> svd(after - before * (before.transpose() * after));
    p.branch_change = svd.singularValues()(0);
  }
  // the continuing motions: the tangent before, moved; the new ones: the rest of null C_s
  const MatX G = N.transpose() * before;
  Eigen::ColPivHouseholderQR<MatX> qr(G);
  const MatX Qg = qr.householderQ();
  const VecX& S = ws.scaling.col;
  p.continuing = S.asDiagonal() * before;
  p.new_motions = S.asDiagonal() * (N * Qg.rightCols(n - p.rank - f));
  return p;
}

}  // namespace loopdyn
