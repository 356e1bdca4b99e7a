#include "loopdyn/dynamics/singular_watch.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace loopdyn {

namespace {

/// Interior samples of |R_rr| / |R_11| in a step near a singular configuration.
constexpr int kDipSamples = 4;

}  // namespace

Scalar SingularWatch::ratioAt(const Model& model, DynamicsWorkspace& ws, const State& x) const {
  ws.x_shifted.t = x.t;
  ws.x_shifted.q = x.q;
  ws.x_shifted.v.setZero(model.nv());  // C does not depend on v
  evaluateConstraints(model, ws.kin, ws.x_shifted);
  ws.tangent.compute(ws.kin, ws.scaling, r_);
  return r_ > 0 ? ws.tangent.diagonalRatio(r_ - 1) : 1;
}

Scalar SingularWatch::start(const Model& model, DynamicsWorkspace& ws, const State& x) {
  dip_at_end_ = false;
  last_ratio_ = ratioAt(model, ws, x);
  armed_ = last_ratio_ >= kSingularRatio;  // a singular start is not a passage
  return last_ratio_;
}

SingularWatch::Approach SingularWatch::afterStep(const Model& model, DynamicsWorkspace& ws,
                                                 const Formulation::Step& step, const State& x) {
  Approach approach;
  const Scalar ratio_end = ratioAt(model, ws, x);
  if (std::min(last_ratio_, ratio_end) >= kNearSingular) {
    dip_at_end_ = false;
    armed_ = true;
    last_ratio_ = ratio_end;
    return approach;
  }
  // sample the step, then search around the smallest sample
  std::array<Scalar, kDipSamples + 2> t{}, ratio{};
  State xi;
  VecX ui;
  for (int k = 0; k <= kDipSamples + 1; ++k) {
    t[k] = step.t0 + (x.t - step.t0) * k / (kDipSamples + 1);
    if (k == 0) ratio[k] = last_ratio_;
    else if (k == kDipSamples + 1) ratio[k] = ratio_end;
    else {
      step.at(t[k], xi, ui);
      ratio[k] = ratioAt(model, ws, xi);
    }
  }
  const int best = static_cast<int>(std::min_element(ratio.begin(), ratio.end()) - ratio.begin());
  approach.t = t[best];
  approach.ratio = ratio[best];
  if (best > 0 && best <= kDipSamples) {
    // golden-section search for the closest approach in [t[best - 1], t[best + 1]]
    constexpr Scalar g = 0.6180339887498949;
    Scalar lo = t[best - 1], hi = t[best + 1];
    auto f = [&](Scalar s) {
      step.at(s, xi, ui);
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
    approach.t = fc < fd ? c : d;
    approach.ratio = std::min(fc, fd);
  }
  // a minimum at the start counts when the previous step ended going down into it
  approach.passage =
      armed_ && ((best > 0 && best <= kDipSamples) || (best == 0 && dip_at_end_)) && approach.ratio < kSingularRatio;
  if (approach.passage) armed_ = false;
  dip_at_end_ = best == kDipSamples + 1;
  // the search evaluated other states: factorise at x again for what follows
  last_ratio_ = ratioAt(model, ws, x);
  // left the neighbourhood after the closest approach: the next visit may count
  for (int k = best + 1; k <= kDipSamples + 1; ++k) armed_ = armed_ || ratio[k] >= kSingularRatio;
  return approach;
}

}  // namespace loopdyn
