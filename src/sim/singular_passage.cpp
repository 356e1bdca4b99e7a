#include "singular_passage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/singular_start.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"
#include "loopdyn/ode/gauss_legendre.hpp"

namespace loopdyn::detail {

std::optional<RunFailure> offBranchStart(const Model& model, DynamicsWorkspace& ws, const State& x0, int rank) {
  const SingularStart branch = singularStartBasis(model, ws, x0, rank);
  // (next to a singular configuration -- of full rank at the analysis' threshold, as the 3-RPR
  // 7e-7 from its singular pose -- the motion is the regular one: only a singular x0 is judged)
  const bool singular = ws.tangent.rankAt(kRankThreshold) < rank;
  if (!branch.problem.empty() || !singular || branch.misfit <= kBranchMisfit) return std::nullopt;
  RunFailure failure;
  failure.reason = RunFailure::Reason::OffBranchStart;
  failure.t = x0.t;
  failure.rank = branch.rank;
  failure.rank_regular = rank;
  failure.at_rest = branch.at_rest;
  failure.value = branch.misfit;
  return failure;
}

Scalar accurateCrossingStep(Scalar time_scale, Scalar rtol) {
  return time_scale * std::pow(0.1 * rtol / 5.6e-10, 1.0 / 9.0);
}

void updateCrossingPlan(CrossingPlan& plan, Scalar t_previous, Scalar ratio_previous, Scalar t, Scalar ratio,
                        Scalar step, Scalar time_scale, Scalar rtol) {
  // (ratios at rounding level: the motion is at a singular start, not approaching one)
  if (!(ratio < kPredictRatio && ratio < ratio_previous && ratio_previous > kRoundingRatio && t > t_previous)) {
    plan.active = false;
    return;
  }
  const Scalar slope = (ratio_previous - ratio) / (t - t_previous);
  const Scalar reach = kLookahead * std::max(step, t - t_previous);
  plan.t_star = t + ratio / slope;
  if (!plan.active)
    plan.h = std::min({kCrossingRatio / (ode::GaussLegendreStep::middleGapHalfWidth() * slope),
                       std::max(reach, kMinCrossingCap * time_scale), accurateCrossingStep(time_scale, rtol)});
  plan.active = plan.t_star - t <= reach + plan.h;
}

Scalar crossingStepFrom(Scalar t0, const CrossingPlan& plan, Scalar h_max) {
  const Scalar delta = plan.t_star - t0;
  if (delta <= 0) return plan.h;  // leaving a singular start
  if (delta >= 0.35 * plan.h) return 2 * delta;  // centred
  const auto& c = ode::GaussLegendreStep::nodes();
  Scalar best_h = h_max, best_distance = -1;
  std::array<Scalar, 4> centres{0.5 * c[0], 0.5 * (c[0] + c[1]), 0.5 * (c[1] + c[2]), 0.5 * (c[2] + c[3])};
  for (const Scalar theta : centres) {
    const Scalar h = std::min(h_max, delta / theta);
    Scalar distance = std::abs(delta);
    for (const Scalar ci : c) distance = std::min(distance, std::abs(ci * h - delta));
    if (h * 0.95 > delta && distance > best_distance) {
      best_distance = distance;
      best_h = h;
    }
  }
  return best_h;
}

Scalar motionTimeScale(const Model& model, const State& x) {
  const Scalar L = model.characteristicLength();
  Scalar scale = std::numeric_limits<Scalar>::infinity();
  const Scalar g = model.gravity().norm();
  if (g > 0) scale = std::sqrt(L / g);
  Scalar speed = 0;
  for (int b = 0; b < model.nb(); ++b) speed = std::max(speed, bodyMotion(model, x.q, x.v, b).v.norm());
  if (speed > 0) scale = std::min(scale, L / speed);
  return std::isfinite(scale) ? scale : 1;
}

CrossingPlan departurePlan(const Model& model, const State& x) {
  CrossingPlan plan;
  plan.active = true;
  plan.t_star = x.t;
  plan.h = kDepartureFraction * motionTimeScale(model, x);
  return plan;
}

}  // namespace loopdyn::detail
