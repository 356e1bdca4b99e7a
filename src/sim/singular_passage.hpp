#pragma once
/// The singular passage of a run (paper 004, sect. 2.5; private to src/sim/): where the next
/// singular configuration is predicted and how the step across it is sized, the step that leaves
/// one, a start that follows no branch, the passages waiting for their branch check, and the
/// positions inside a step the watch searches.

#include <array>
#include <optional>
#include <string>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/sim/simulation.hpp"

namespace loopdyn::detail {

/// Positions inside a step from its two ends: the cubic Hermite interpolant of q through
/// (t0, q0, qdot0) and (t1, q1, qdot1), error O(h^4) -- what a search inside the step needs,
/// without evaluating the dynamics (the integrators' own dense output does, once per call).
struct HermitePositions {
  Scalar t0 = 0, t1 = 0;
  VecX q0, q1, d0, d1;  ///< positions and their rates at the ends

  /// Sets the end `end` (0: start, 1: end) from a state with positions and velocities.
  void setEnd(const Model& model, int end, const State& x) {
    (end == 0 ? t0 : t1) = x.t;
    VecX& q = end == 0 ? q0 : q1;
    VecX& d = end == 0 ? d0 : d1;
    q = x.q;
    d.resize(x.q.size());
    absolutePositionRates(model, x, d.data());
  }
  void at(Scalar t, VecX& q) const {
    const Scalar h = t1 - t0, s = h > 0 ? (t - t0) / h : 0;
    const Scalar h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s), h01 = s * s * (3 - 2 * s),
                 h11 = s * s * (s - 1);
    q = h00 * q0 + (h10 * h) * d0 + h01 * q1 + (h11 * h) * d1;
  }
};

/// Steps longer than this share of the motion's time scale (motionTimeScale) are searched for
/// singular configurations whatever the ratio at their ends (a whole passage can lie inside:
/// measured, a 0.22 s dop853 step at rtol 1e-6 with ratios 0.26 and 0.30 at its ends, the double
/// four-bar's time scale being 0.23 s), on the integrator's dense output instead of the cubic
/// Hermite through their ends. (At 0.25 the watch sampled most of dop853's steps at rtol 3e-11 on
/// the double four-bar: 4.6 % more instructions for the whole run; at 0.5 none, and every passage
/// of the ladders' tests is still found.)
inline constexpr Scalar kHermiteStep = 0.5;

/// The step across a singular configuration is at most its design size (the collocation
/// step's error grows as h^9, and its iteration converges for h below the motion's time scale).
inline constexpr Scalar kMaxCrossingStretch = 1;
/// The sizes, relative to the design, tried for the step across until its collocation iteration
/// converges: longer first (a motion that comes to rest at the singular configuration keeps its
/// nodes close to it and slow, so a longer step moves them away), then shorter (an iteration that
/// diverges for a fast motion).
inline constexpr std::array<Scalar, 4> kCrossingStretches{1, 2, 4, 0.5};

/// The collocation iteration across a singular configuration ends where it stalls below this: at
/// the rounding level of the right-hand side at its nodes (1e-10 relative at the design ratio
/// kCrossingRatio, more when the step had to start closer), whose effect on the step is that
/// rounding times h. A sample inside the step may put nodes closer still: where its own step
/// does not stall below kSampleStall, the sample is read from the crossing step's collocation
/// polynomial instead (order 4).
inline constexpr Scalar kCrossingStall = 1e-7;
inline constexpr Scalar kSampleStall = 1e-6;

/// Nothing when the motion from the singular configuration x0 follows a branch; otherwise why it
/// cannot start (SingularStart, dynamics/singular_start.hpp: the initial velocity, or at rest the
/// acceleration, against the tangent of the branch a probe along it finds). Measured: the 3-RPR
/// held at its singular pose and turning at 0.01 rad/s (a rotation admissible to first order only)
/// completed with 98 % of its kinetic energy gone; the formulations started the heavy-crank triple
/// four-bar from rest at its singular pose with kinetic energies 0.19, 0.06 and 0 J after a step.
std::optional<RunFailure> offBranchStart(const Model& model, DynamicsWorkspace& ws, const State& x0, int rank);

/// Where to step across a predicted singular configuration.
struct CrossingPlan {
  bool active = false;
  Scalar t_star = 0;  ///< predicted time of the singular configuration
  Scalar h = 0;       ///< design size of the collocation step (t_star between its middle nodes)
  Scalar t_start() const { return t_star - 0.5 * h; }
  /// Where the integrator stops: short of t_start while the prediction is still being refined
  /// (extrapolated from far, t_star tends to come earlier), then at it.
  Scalar t_stop(Scalar t) const { return t < t_start() - 0.5 * h ? t_start() - 0.25 * h : t_start(); }
};

/// Ratios below this are rounding (sigma_r from the eigenvalues of C_s C_s^T resolves sqrt(eps)):
/// the motion sits at a singular configuration (a singular start), it does not approach one.
inline constexpr Scalar kRoundingRatio = 1e-6;

/// A singular configuration is planned for when it is extrapolated within this many steps. The step
/// across is at most that many of the integrator's steps (a slow approach, whose slope would ask
/// for a long one), or kMinCrossingCap of the motion's time scale T when the integrator's steps
/// are shorter (tight tolerances): its iteration converges for h well below T, and its error,
/// 5.6e-10 (h / T)^9 relative for s = 4, stays far below any tolerance.
inline constexpr Scalar kLookahead = 4;
inline constexpr Scalar kMinCrossingCap = 0.2;

/// The longest step across a singular configuration whose error, 5.6e-10 (h / T)^9 relative for
/// the 4-stage Gauss-Legendre step on a motion of time scale T, stays at a tenth of rtol: the
/// integrator's own step does not bound it (measured: dop853 at rtol 1e-8 on the 40-loop ladder
/// planned steps across of 0.54 s where T = 0.13 s, an error of 1e-4, and the runs left their
/// branch at the fourth crossing).
Scalar accurateCrossingStep(Scalar time_scale, Scalar rtol);

/// Updates the plan at a step end: extrapolates the ratio |R_rr| / |R_11| (which vanishes
/// linearly at a transversal passage) from the last two step ends to the time it reaches zero.
/// The step across is sized, when the plan becomes active, so that its nearest node is at
/// kCrossingRatio (within the caps of kLookahead); later step ends refine only the predicted time.
void updateCrossingPlan(CrossingPlan& plan, Scalar t_previous, Scalar ratio_previous, Scalar t, Scalar ratio,
                        Scalar step, Scalar time_scale, Scalar rtol);

/// The step size that keeps the nodes of a collocation step from t0 farthest from t_star (which
/// must lie inside the step), among the placements of t_star in the middle of a gap between
/// nodes, no longer than h_max; the design size h when t_star is half of it away.
Scalar crossingStepFrom(Scalar t0, const CrossingPlan& plan, Scalar h_max);

/// A run that takes this many steps in a row right at a singular configuration (|R_rr| / |R_11|
/// below kCrossingRatio, where a passing motion spends one step) is stuck there and stops.
inline constexpr long kMaxStepsNear = 2000;

/// The branch check compares tangent bases where |R_rr| / |R_11| is at least this (ten times
/// kSingularRatio): there the generic rank is clear and the basis determined to rounding / ratio.
/// Right next to a singular configuration it is not (measured: a collocation step that ended 0.4 us
/// after the modified double four-bar came to rest at its singular configuration, ratio 2e-8,
/// gave a basis turned by sin 0.6 from the motion's own branch).
inline constexpr Scalar kRegularRatio = 1e-2;

/// A passage found inside a step, waiting for the motion to reach a regular configuration again
/// (kRegularRatio) for its branch check.
struct PendingPassage {
  State x;       ///< the closest approach
  State before;  ///< the last step end before it at a regular configuration
  Scalar ratio = 0;
  bool crossing = false;  ///< found in a collocation step across it
  bool at_rest = false;
};

/// A passage with less kinetic energy than this fraction of the largest so far is at rest.
inline constexpr Scalar kRestFraction = 1e-4;

/// The step that leaves a singular start is this fraction of motionTimeScale.
inline constexpr Scalar kDepartureFraction = 0.25;

/// How long the mechanism takes to move by its characteristic length L: L / |v| from its speed,
/// sqrt(L / |g|) from gravity, the shorter; 1 s if neither moves it.
Scalar motionTimeScale(const Model& model, const State& x);

/// The step that leaves a singular configuration at x (a singular start, or a step across that
/// ended at one): a collocation step from x.t, its nodes away from it.
CrossingPlan departurePlan(const Model& model, const State& x);

}  // namespace loopdyn::detail
