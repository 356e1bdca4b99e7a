#include "loopdyn/dynamics/singular_watch.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/analysis/independent_rows.hpp"
#include "loopdyn/common/golden_section.hpp"
#include "loopdyn/linalg/sparse_minimum_norm.hpp"
#include "loopdyn/linalg/sparse_null_space.hpp"

namespace loopdyn {

namespace {

/// Interior samples of |R_rr| / |R_11| in a step near a singular configuration.
constexpr int kDipSamples = 4;
/// The closest approach is searched for only where a sample came below this, or below 1.5 times
/// the largest change between neighbouring samples: a passage inside a step leaves the nearest
/// sample within about one gap's change of zero (a long step falls steeply: measured, dop853 at
/// rtol 1e-6 on the double four-bar passed one 22 ms before the end of a 0.23 s step whose
/// nearest samples were 0.059 and 0.060, the gaps' changes 0.1).
constexpr Scalar kSearchRatio = 0.05;
/// The golden-section search stops where its bracket is this short (s, relative beyond 1 s): a
/// passage's time to 0.1 us (the tests compare passage times across formulations to 1 us), its
/// ratio there about 1e-7 at the double four-bar's speed, far below kSingularRatio. 1e-13 took 54
/// evaluations a bracket, 1e-7 takes about 25.
constexpr Scalar kSearchResolution = 1e-7;
/// The search by sigma_r / sigma_1 for a predicted passage the samples missed stops at this
/// fraction of the step (a 26th of the samples' spacing: about nine evaluations of sigma).
constexpr Scalar kSigmaSearchShrink = 1.0 / 128;

/// The ratio's search stops at kSearchResolution (relative beyond 1 s).
bool resolved(Scalar lo, Scalar hi) { return hi - lo <= kSearchResolution * std::max<Scalar>(1, std::abs(hi)); }

}  // namespace

void SingularWatch::findCouplings(const Model& model) const {
  // two rows of C meet in C_s C_s^T only on a body both touch (a row touches its pair's bodies)
  std::vector<std::vector<int>> body_rows(static_cast<std::size_t>(model.nb()));
  for (int row = 0; row < model.nc(); ++row) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(model.equations()[static_cast<std::size_t>(row)].pair)];
    for (const BodyIndex body : {pair.body1, pair.body2})
      if (body != kGround && (body_rows[static_cast<std::size_t>(body)].empty() || body_rows[static_cast<std::size_t>(body)].back() != row))
        body_rows[static_cast<std::size_t>(body)].push_back(row);
  }
  couplings_.clear();
  for (std::size_t b = 0; b < body_rows.size(); ++b)
    for (std::size_t x = 0; x < body_rows[b].size(); ++x)
      for (std::size_t y = 0; y <= x; ++y) couplings_.push_back({body_rows[b][x], body_rows[b][y], static_cast<int>(b)});
  coupled_rows_ = model.nc();
}

Scalar SingularWatch::ratioAt(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  if (unwatched_) return 1;
  ws.x_shifted.t = x.t;
  ws.x_shifted.q = x.q;
  ws.x_shifted.v.setZero(model.nv());  // C does not depend on v
  evaluateConstraints(model, ws.kin, ws.x_shifted);
  nv_ = model.nv();
  if (watchedBySingularValues(model, r_)) {
    pivots_.resize(0);  // (no pivots: no rank above r to read)
    return sparseRatioAt(model, ws.kin, x.t);
  }
  // C_s C_s^T, C_s = diag(row) C diag(col), summed body by body over the rows that meet there
  if (coupled_rows_ != model.nc()) findCouplings(model);
  const int D = model.vPerBody();
  const ConstraintJacobian& C = ws.kin.C;
  const VecX &row = ws.scaling.row, &col = ws.scaling.col;
  gram_.setZero(model.nc(), model.nc());
  for (std::size_t m = 0; m < couplings_.size(); ++m) {
    const Coupling& c = couplings_[m];
    Scalar g = 0;
    const auto ci = C.onBody(c.i, c.body), cj = C.onBody(c.j, c.body);
    for (int k = 0; k < D; ++k) g += ci(k) * cj(k) * col(c.body * D + k) * col(c.body * D + k);
    g *= row(c.i) * row(c.j);
    gram_(c.i, c.j) += g;
    if (c.i != c.j) gram_(c.j, c.i) += g;
  }
  factorizeGram();
  return r_ > 0 ? diagonalRatio(r_ - 1) / scale_ : 1;
}

Scalar SingularWatch::sparseRatioAt(const Model& model, const KinematicsWorkspace& kin, Scalar t) const {
  const SparseMatrix G = scaledGram(model, kin);
  Scalar largest = 0;
  if (const StepLargest& s = step_largest_; s.active) {
    const Scalar w = std::clamp((t - s.start.t) / (s.end.t - s.start.t), Scalar(0), Scalar(1));
    largest = (1 - w) * s.start.value + w * s.end.value;
  } else {
    largest = gram_eigenvalues_.largest(G);
    largest_[static_cast<std::size_t>(largest_next_)] = {t, largest};
    largest_next_ = 1 - largest_next_;
  }
  if (!(largest > 0)) return 0;
  const Scalar smallest = gram_eigenvalues_.smallest(G);
  return std::sqrt(smallest / largest) / scale_;
}

void SingularWatch::interpolateLargestOver(Scalar t0, Scalar t1) const {
  const auto readAt = [&](Scalar t) {
    for (const LargestAt& l : largest_)
      if (l.t == t) return l;
    return LargestAt{};
  };
  const LargestAt start = readAt(t0), end = readAt(t1);
  if (end.t != t1 || !(t1 > t0)) return;  // (the end not read: every sample reads in full)
  step_largest_ = {true, start.t == t0 ? start : LargestAt{t0, end.value}, end};
}

void SingularWatch::factorizeGram() const {
  // Symmetric elimination with diagonal pivoting (the pivoted Cholesky factorisation of Golub &
  // Van Loan, sect. 4.2.8, without square roots, keeping only the pivots): at step k the largest
  // remaining diagonal of the Schur complement is the pivot d_k = R_kk^2; rows are addressed
  // through pivot_row_ instead of being interchanged.
  const Eigen::Index n = gram_.rows();
  pivots_.setZero(n);
  pivot_row_.resize(static_cast<std::size_t>(n));
  std::iota(pivot_row_.begin(), pivot_row_.end(), 0);
  column_.resize(n);
  nonzero_.reserve(static_cast<std::size_t>(n));
  for (Eigen::Index k = 0; k < n; ++k) {
    Eigen::Index p = k;
    for (Eigen::Index i = k + 1; i < n; ++i)
      if (gram_(pivot_row_[static_cast<std::size_t>(i)], pivot_row_[static_cast<std::size_t>(i)]) >
          gram_(pivot_row_[static_cast<std::size_t>(p)], pivot_row_[static_cast<std::size_t>(p)]))
        p = i;
    std::swap(pivot_row_[static_cast<std::size_t>(k)], pivot_row_[static_cast<std::size_t>(p)]);
    const int a = pivot_row_[static_cast<std::size_t>(k)];
    const Scalar d = gram_(a, a);
    if (!(d > 0)) break;  // the rest is rounding: zero pivots
    pivots_(k) = d;
    // the Schur complement: S_ij -= g_i g_j / d over the rows that meet the pivot's (g != 0)
    nonzero_.clear();
    for (Eigen::Index i = k + 1; i < n; ++i) {
      const int b = pivot_row_[static_cast<std::size_t>(i)];
      if (const Scalar g = gram_(b, a); g != 0) {
        column_(static_cast<Eigen::Index>(nonzero_.size())) = g;
        nonzero_.push_back(b);
      }
    }
    for (std::size_t y = 0; y < nonzero_.size(); ++y) {
      const Scalar gy = column_(static_cast<Eigen::Index>(y)) / d;
      Scalar* s_y = &gram_(0, nonzero_[y]);
      for (std::size_t x = 0; x < nonzero_.size(); ++x) s_y[nonzero_[x]] -= column_(static_cast<Eigen::Index>(x)) * gy;
    }
  }
}

Scalar SingularWatch::diagonalRatio(int j) const {
  if (pivots_.size() == 0) return 1;
  return pivots_(0) > 0 && j < pivots_.size() ? std::sqrt(pivots_(j) / pivots_(0)) : 0;
}

Scalar SingularWatch::singularValueRatioAt(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  // (where the watch reads sigma_r / sigma_1 itself, its ratio is this one)
  if (watchedBySingularValues(model, r_)) return ratioAt(model, ws, x);
  ratioAt(model, ws, x);  // evaluates C at x
  scaledTransposed(ws.scaling, ws.kin.C.dense(), At_);
  if (r_ == 0 || At_.cols() == 0) return 1;
  // the smaller of C_s C_s^T (nc x nc) and C_s^T C_s (n x n): the same nonzero eigenvalues
  const MatX gram = At_.cols() <= At_.rows() ? MatX(At_.transpose() * At_) : MatX(At_ * At_.transpose());
  const Eigen::SelfAdjointEigenSolver<MatX> eigen(gram, Eigen::EigenvaluesOnly);
  const VecX& l = eigen.eigenvalues();  // increasing
  const Eigen::Index largest = l.size() - 1;
  if (r_ > l.size() || !(l(largest) > 0)) return 0;
  return std::sqrt(std::max<Scalar>(0, l(largest - r_ + 1)) / l(largest)) / scale_;
}

void SingularWatch::readExcess() {
  const auto size = std::min(static_cast<Eigen::Index>(nv_), pivots_.size());
  last_excess_ = r_ < size ? diagonalRatio(r_) : 0;
  last_excess_row_ = r_ < size ? pivot_row_[static_cast<std::size_t>(r_)] : -1;
}

Scalar SingularWatch::start(const Model& model, DynamicsWorkspace& ws, const State& x) {
  dip_at_end_ = false;
  unwatched_ = r_ == model.nc() && fullRankEverywhere(model);  // (watching for its own rank: every row)
  if (unwatched_) {
    last_ratio_ = 1;
    last_excess_ = 0;
    last_excess_row_ = -1;
    armed_ = true;
    return last_ratio_;
  }
  last_ratio_ = ratioAt(model, ws, x);
  readExcess();
  armed_ = last_ratio_ >= kSingularRatio;  // a singular start is not a passage
  return last_ratio_;
}

namespace {

/// The step's ends and kDipSamples interior samples of the ratio, evenly spaced in time.
struct StepSamples {
  static constexpr int n = kDipSamples + 2;
  std::array<Scalar, n> t{}, ratio{};
  Scalar slope(int i, int j) const { return (ratio[j] - ratio[i]) / (t[j] - t[i]); }
  int smallest() const { return static_cast<int>(std::min_element(ratio.begin(), ratio.end()) - ratio.begin()); }
};

struct Bracket {
  Scalar lo, hi;
};

/// Brackets where the ratio can vanish. (a) Around a local minimum of the samples: it falls to
/// zero there linearly (a transversal passage) or quadratically (a touching one), and the line
/// through the minimum and a neighbour reaches zero within two spacings of it; a minimum that
/// stays away from zero (a mere approach) is flat there and fails this test. (b) Between two
/// samples where a transversal passage is a V whose sides, extended from the neighbouring
/// samples, reach zero inside the gap, while the samples themselves may all stay far from it
/// (measured: the modified 2x2 four-bar passes one 6.5 ms into a step of 82 ms whose samples are
/// all above 1.3e-2; the 2-loop ladder one 5 ms before the end of a step whose last two samples
/// are 1.5e-2 and 1.3e-2). A bracket costs a search; only the search's minimum decides.
/// `falling_into_start`: the slope into the step's start from the previous step's last interior
/// sample (0 if unknown). Overlapping brackets are merged (they hold the same dip; two minima two
/// samples apart share only an end).
std::vector<Bracket> dipBrackets(const StepSamples& s, Scalar falling_into_start) {
  constexpr int n = StepSamples::n;
  const auto& t = s.t;
  const auto& ratio = s.ratio;
  std::vector<Bracket> brackets;
  Scalar search_below = kSearchRatio;
  for (int k = 0; k + 1 < n; ++k) search_below = std::max(search_below, 1.5 * std::abs(ratio[k + 1] - ratio[k]));
  for (int j = 0; j < n; ++j) {
    const bool left = j == 0 || ratio[j] <= ratio[j - 1], right = j == n - 1 || ratio[j] <= ratio[j + 1];
    const auto vanishesNear = [&](int neighbour) {
      return neighbour >= 0 && neighbour < n && ratio[j] < 2 * (ratio[neighbour] - ratio[j]);
    };
    if (left && right && ratio[j] < search_below && (vanishesNear(j - 1) || vanishesNear(j + 1)))
      brackets.push_back({t[std::max(j - 1, 0)], t[std::min(j + 1, n - 1)]});
  }
  for (int i = 0; i + 1 < n; ++i) {
    if (std::min(ratio[i], ratio[i + 1]) >= search_below) continue;
    // the falling side: from the sample before (the previous step's last interior one for i = 0);
    // the rising side: from the sample after
    const Scalar falling = i > 0 ? s.slope(i - 1, i) : falling_into_start;
    const Scalar rising = i + 2 < n ? s.slope(i + 1, i + 2) : 0;
    const Scalar gap = t[i + 1] - t[i];
    // either side's line reaches zero inside the gap (the motion kept on would have reached the
    // singular configuration there: at the step's last gap only the falling side is known) ...
    bool bracket = (falling < 0 && ratio[i] + falling * gap < 0) || (rising > 0 && ratio[i + 1] - rising * gap < 0);
    if (falling < 0 && rising > 0) {
      // ... or the two lines meet below zero inside it, tau after t[i]
      const Scalar tau = (ratio[i + 1] - ratio[i] - rising * gap) / (falling - rising);
      bracket = bracket || (tau > 0 && tau < gap && ratio[i] + falling * tau < kSingularRatio);
    }
    if (bracket) brackets.push_back({t[i], t[i + 1]});
  }
  std::sort(brackets.begin(), brackets.end(), [](const Bracket& a, const Bracket& b) { return a.lo < b.lo; });
  std::vector<Bracket> merged;
  for (const Bracket& b : brackets) {
    if (!merged.empty() && b.lo < merged.back().hi) merged.back().hi = std::max(merged.back().hi, b.hi);
    else merged.push_back(b);
  }
  return merged;
}

/// The closest approach in each bracket: golden-section search (also when it touches an end of
/// the step: the minimum may lie just inside). A minimum at an end of the bracket inside the step
/// is no closest approach: the ratio goes on falling beyond it, into the neighbouring bracket that
/// holds the dip (measured: a gap bracket ending at the sample next to a touching passage reported
/// that sample, 16 ms early, at 9.7e-4 where the passage reaches 4e-9).
template <class RatioOnStep>
std::vector<SingularWatch::Approach> closestApproaches(const std::vector<Bracket>& brackets, const StepSamples& s,
                                                       const RatioOnStep& ratioOnStep, Scalar t0, Scalar t1,
                                                       Scalar edge) {
  std::vector<SingularWatch::Approach> minima;
  for (const Bracket& b : brackets) {
    SingularWatch::Approach a;
    for (int k = 0; k < StepSamples::n; ++k)
      if (s.t[k] >= b.lo && s.t[k] <= b.hi && s.ratio[k] < a.ratio) a = SingularWatch::Approach{false, s.t[k], s.ratio[k]};
    Scalar lo = b.lo, hi = b.hi;
    const LineMinimum minimum = goldenSectionMinimum(ratioOnStep, lo, hi, resolved);
    const SingularWatch::Approach found{false, minimum.t, minimum.value};
    if (found.ratio < a.ratio) a = found;
    const bool at_inner_end = (a.t - b.lo <= edge && b.lo - t0 > edge) || (b.hi - a.t <= edge && t1 - b.hi > edge);
    if (!at_inner_end) minima.push_back(a);
  }
  return minima;
}

/// (c) A singular configuration predicted inside the step (a planned crossing step) that the
/// samples did not show: where the model is large, |R_rr| / |R_11| leaves its regular level --
/// itself low, the pivots of many loops alike -- only close to the configuration, and wanders
/// with the pivot order elsewhere (measured: a ladder of 128 loops, all singular at once, at
/// 1e-2..3e-2 but within 6 ms of the passage; the six samples of its 113 ms crossing step missed
/// it, and the search found minima of that wandering at 6e-3). sigma_r / sigma_1 is smooth and
/// vanishes there: its minimum over the gaps around the prediction (golden-section search down
/// to kSigmaSearchShrink of the step) brackets the ratio's own search.
/// An ordinary step whose samples dip low without showing a passage is read the same way, about
/// its sample of smallest sigma_r / sigma_1 (measured: the HDCA with dop853 at rtol 1e-8 on the
/// 40-loop ladder crossed six times inside ordinary steps whose |R_rr| / |R_11| dipped to 0.03).
template <class RatioOnStep, class SigmaOnStep>
void searchUnseenPassage(std::vector<SingularWatch::Approach>& minima, const StepSamples& s,
                         const RatioOnStep& ratioOnStep, const SigmaOnStep& sigmaOnStep, Scalar predicted, Scalar t0,
                         Scalar t1, Scalar edge) {
  constexpr int n = StepSamples::n;
  const auto& t = s.t;
  const auto& ratio = s.ratio;
  const bool seen = std::any_of(minima.begin(), minima.end(),
                                [](const SingularWatch::Approach& a) { return a.ratio < kSingularRatio; });
  const bool inside = std::isfinite(predicted) && predicted > t0 && predicted < t1;
  bool dip = false;  // an interior local minimum of the samples below kSearchRatio
  for (int k = 1; k + 1 < n; ++k) dip = dip || (ratio[k] < kSearchRatio && ratio[k] <= ratio[k - 1] && ratio[k] <= ratio[k + 1]);
  if (!seen && !inside && dip) {
    int smallest = 0;
    Scalar sigma_smallest = std::numeric_limits<Scalar>::infinity();
    for (int k = 0; k < n; ++k)
      if (const Scalar sigma = sigmaOnStep(t[k]); sigma < sigma_smallest) sigma_smallest = sigma, smallest = k;
    predicted = t[smallest];
  }
  if (seen || !std::isfinite(predicted) || predicted < t0 || predicted > t1) return;
  int gap = 0;
  while (gap + 2 < n && t[gap + 1] <= predicted) ++gap;
  Scalar lo = t[std::max(gap - 1, 0)], hi = t[std::min(gap + 2, n - 1)];
  const Scalar shrink = kSigmaSearchShrink * (t1 - t0);
  goldenSectionMinimum(sigmaOnStep, lo, hi, [&](Scalar a, Scalar b) { return b - a <= shrink; });
  const Scalar around_lo = lo, around_hi = hi;
  const LineMinimum minimum = goldenSectionMinimum(ratioOnStep, lo, hi, resolved);
  const SingularWatch::Approach a{false, minimum.t, minimum.value};
  if (a.t - around_lo > edge && around_hi - a.t > edge) minima.push_back(a);
  std::sort(minima.begin(), minima.end(),
            [](const SingularWatch::Approach& p, const SingularWatch::Approach& q) { return p.t < q.t; });
}

/// Passages, in time order: one per visit (`armed` again once a sample after it leaves the
/// neighbourhood); a minimum at the start counts when the previous step ended going down into it
/// (`dip_at_end`, updated for the next step), one at the end is the next step's.
std::vector<SingularWatch::Approach> passagesAmong(std::vector<SingularWatch::Approach>& minima, const StepSamples& s,
                                                   Scalar t0, Scalar t1, Scalar edge, bool& armed, bool& dip_at_end) {
  constexpr int n = StepSamples::n;
  std::vector<SingularWatch::Approach> passages;
  const Scalar length = t1 - t0;
  const int best = s.smallest();
  Scalar after = t0 - 1;  // samples after this time may re-arm
  for (SingularWatch::Approach& a : minima) {
    for (int k = 0; k < n; ++k) armed = armed || (s.t[k] > after && s.t[k] < a.t && s.ratio[k] >= kSingularRatio);
    const bool at_start = a.t - t0 <= edge, at_end = t1 - a.t <= edge;
    a.passage = armed && a.ratio < kSingularRatio && length > 0 && ((!at_start && !at_end) || (at_start && dip_at_end));
    if (a.passage) {
      armed = false;
      passages.push_back(a);
    }
    after = a.t;
  }
  if (minima.empty()) after = s.t[best];
  for (int k = 0; k < n; ++k) armed = armed || (s.t[k] > after && s.ratio[k] >= kSingularRatio);
  SingularWatch::Approach lowest{false, s.t[best], s.ratio[best]};
  for (const SingularWatch::Approach& a : minima)
    if (a.ratio < lowest.ratio) lowest = a;
  dip_at_end = t1 - lowest.t <= edge;
  return passages;
}

}  // namespace

std::vector<SingularWatch::Approach> SingularWatch::afterStep(const Model& model, DynamicsWorkspace& ws,
                                                              const Formulation::Step& step, const State& x,
                                                              Scalar predicted) {
  if (unwatched_) return {};
  const Scalar ratio_end = ratioAt(model, ws, x);
  readExcess();
  if (std::min(last_ratio_, ratio_end) >= kNearSingular && !step.long_step) {
    dip_at_end_ = false;
    armed_ = true;
    last_ratio_ = ratio_end;
    before_end_valid_ = false;
    return {};
  }
  // sample the step (a large model's sigma_1 interpolated between its ends, read in full)
  struct EndOfSampling {
    StepLargest& s;
    ~EndOfSampling() { s = {}; }
  } end_of_sampling{step_largest_};
  if (watchedBySingularValues(model, r_)) interpolateLargestOver(step.t0, x.t);
  constexpr int n = StepSamples::n;
  StepSamples samples;
  State xi;
  for (int k = 0; k < n; ++k) {
    samples.t[k] = step.t0 + (x.t - step.t0) * k / (n - 1);
    if (k == 0) samples.ratio[k] = last_ratio_;
    else if (k == n - 1) samples.ratio[k] = ratio_end;
    else {
      step.positions(samples.t[k], xi);
      samples.ratio[k] = ratioAt(model, ws, xi);
    }
  }
  const Scalar falling_into_start = before_end_valid_ && step.t0 > before_end_t_
                                        ? (samples.ratio[0] - before_end_ratio_) / (step.t0 - before_end_t_)
                                        : 0;
  const std::vector<Bracket> brackets = dipBrackets(samples, falling_into_start);
  before_end_t_ = samples.t[n - 2];
  before_end_ratio_ = samples.ratio[n - 2];
  before_end_valid_ = true;
  const auto ratioOnStep = [&](Scalar s) {
    step.positions(s, xi);
    return ratioAt(model, ws, xi);
  };
  const auto sigmaOnStep = [&](Scalar s) {
    step.positions(s, xi);
    return singularValueRatioAt(model, ws, xi);
  };
  const Scalar edge = 1e-9 * std::max<Scalar>(1, std::abs(x.t));
  std::vector<Approach> minima = closestApproaches(brackets, samples, ratioOnStep, step.t0, x.t, edge);
  searchUnseenPassage(minima, samples, ratioOnStep, sigmaOnStep, predicted, step.t0, x.t, edge);
  std::vector<Approach> passages = passagesAmong(minima, samples, step.t0, x.t, edge, armed_, dip_at_end_);
  // (the search evaluated other states: ws no longer holds x's factorisation, which nothing reads
  // after a step; the excess was read at x above)
  last_ratio_ = ratio_end;
  return passages;
}

namespace {

/// An orthonormal basis of the null space of C_s (n x (n - rows)) where its rows are independent,
/// without a dense factorisation: f = n - rows normal vectors with their components along the
/// rows taken out (linalg/sparse_minimum_norm.hpp), then orthonormalised; empty where the sparse
/// factor does not exist.
MatX sparseTangentBasis(const Model& model, const KinematicsWorkspace& kin, const ConstraintScaling& scaling) {
  std::vector<int> rows(static_cast<std::size_t>(model.nc()));
  std::iota(rows.begin(), rows.end(), 0);
  const SparseMinimumNorm rowSpace(scaledSparseRows(scaling, kin.C, rows));
  if (!rowSpace.ok()) return {};
  const Eigen::Index n = model.nv(), f = n - model.nc();
  std::mt19937 rng(20261128);
  std::normal_distribution<Scalar> normal(0, 1);
  MatX X(n, f);
  for (Eigen::Index c = 0; c < f; ++c) {
    VecX g(n);
    for (Eigen::Index i = 0; i < n; ++i) g(i) = normal(rng);
    X.col(c) = rowSpace.nullSpacePart(g);
  }
  const Eigen::HouseholderQR<MatX> qr(X);
  return qr.householderQ() * MatX::Identity(n, f);
}

/// C at the positions of x (ws.kin).
void evaluatePositionsAt(const Model& model, DynamicsWorkspace& ws, const State& x) {
  ws.x_shifted.t = x.t;
  ws.x_shifted.q = x.q;
  ws.x_shifted.v.setZero(model.nv());
  evaluateConstraints(model, ws.kin, ws.x_shifted);
}

/// The same and its pivoted QR (ws.tangent, r = 0).
void factorizePositionsAt(const Model& model, DynamicsWorkspace& ws, const State& x) {
  evaluatePositionsAt(model, ws, x);
  ws.tangent.compute(ws.kin, ws.scaling, 0);
}

}  // namespace

MatX tangentBasisAt(const Model& model, DynamicsWorkspace& ws, const State& x, int rank) {
  evaluatePositionsAt(model, ws, x);
  if (rank > 0 && watchedBySingularValues(model, rank))
    if (MatX basis = sparseTangentBasis(model, ws.kin, ws.scaling); basis.size() > 0) return basis;
  ws.tangent.compute(ws.kin, ws.scaling, rank);
  return ws.tangent.lastColumnsOfQ(model.nv() - rank);
}

namespace {

/// Null C_s at a singular configuration: its rank there (at most the regular rank) and an
/// orthonormal basis of its null space, with the ratio that shows the rank drop.
struct SingularNullSpace {
  Scalar ratio = 1;
  bool sigma = false;
  int rank = 0;
  MatX N;
};

/// The dense route: the pivoted QR of C_s^T (ws.tangent), |R_rr| / |R_11| and the last n - rank*
/// columns of Q, formed by the reflectors (never the full Q: O(n m (n - rank*)), not O(n^3)).
SingularNullSpace denseNullSpace(const Model& model, DynamicsWorkspace& ws, const State& x_s, int rank,
                                 Scalar threshold) {
  factorizePositionsAt(model, ws, x_s);
  TangentFactorization& tf = ws.tangent;
  SingularNullSpace out;
  out.ratio = rank > 0 ? tf.diagonalRatio(rank - 1) : 1;
  out.rank = std::min(tf.rankAt(threshold), rank);
  tf.r = out.rank;
  out.N = tf.lastColumnsOfQ(model.nv() - out.rank);
  return out;
}

/// The sparse route, where the watch reads sigma_r / sigma_1 (a large model whose equations are
/// independent at regular configurations): SuiteSparseQR of C_s^T (linalg/sparse_null_space.hpp);
/// empty where it did not run.
SingularNullSpace sparseNullSpaceAt(const Model& model, DynamicsWorkspace& ws, const State& x_s, int rank,
                                    Scalar threshold) {
  evaluatePositionsAt(model, ws, x_s);
  std::vector<int> rows(static_cast<std::size_t>(model.nc()));
  std::iota(rows.begin(), rows.end(), 0);
  SparseNullSpace null = sparseNullSpace(scaledSparseRows(ws.scaling, ws.kin.C, rows), threshold);
  SingularNullSpace out;
  if (!null.ok || null.rank > rank) return out;
  out.ratio = singularValueRatio(model, ws.kin);
  out.sigma = true;
  out.rank = null.rank;
  out.N = std::move(null.basis);
  return out;
}

}  // namespace

SingularPassage describePassage(const Model& model, DynamicsWorkspace& ws, const State& x_s, int rank,
                                const MatX& T_before, const MatX& T_after, Scalar ratio_scale, bool sparse_route) {
  const int n = model.nv(), f = n - rank;
  const Scalar threshold = kSingularRatio * ratio_scale;
  SingularNullSpace null;
  if (sparse_route && rank > 0 && watchedBySingularValues(model, rank)) null = sparseNullSpaceAt(model, ws, x_s, rank, threshold);
  if (null.N.size() == 0) null = denseNullSpace(model, ws, x_s, rank, threshold);
  SingularPassage p;
  p.t = x_s.t;
  p.rank_regular = rank;
  p.ratio = null.ratio;
  p.ratio_is_sigma = null.sigma;
  p.rank = null.rank;
  const MatX& N = null.N;
  // the motion's tangent spaces moved into null C_s: T -> N N^T T (dense: T - Q1 Q1^T T by the
  // reflectors), orthonormalised
  MatX before = T_before, after = T_after;
  const auto move = [&](MatX& T) {
    return null.sigma ? reorthogonalizeInto(N, T) : reorthogonalize(ws.tangent, T);
  };
  const bool moved = move(before) && move(after);
  p.branch_change = moved ? 0 : 1;
  if (f > 0 && moved) {
    // sin of the largest principal angle: the largest singular value of (I - B B^T) A
    const Eigen::JacobiSVD<MatX> svd(after - before * (before.transpose() * after));
    p.branch_change = svd.singularValues()(0);
  }
  // the continuing motions: the tangent before, moved; the new ones: the rest of null C_s
  // (a mechanism without freedom, f = 0, continues no motion: every motion of null C_s is new;
  // Eigen's QR of a matrix without columns reads out of bounds)
  // N Q_G, Q_G of the QR of G = N^T T_before (k x f, k = n - rank*), by G's f reflectors applied
  // from the right: O(n k f), where forming the k x k Q_G and multiplying was O(n k^2) -- O(n^3) at
  // a ladder's passage, whose rank drops by one per loop
  const MatX G = N.transpose() * before;
  const MatX NQ = G.cols() == 0 ? N : MatX(N * Eigen::ColPivHouseholderQR<MatX>(G).householderQ());
  const VecX& S = ws.scaling.col;
  p.continuing = S.asDiagonal() * before;
  p.new_motions = S.asDiagonal() * NQ.rightCols(n - p.rank - f);
  return p;
}

}  // namespace loopdyn
