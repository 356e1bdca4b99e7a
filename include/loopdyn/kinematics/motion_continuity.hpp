#pragma once
/// Whether two configurations lie on one smooth motion: the test that a run solving each time on
/// its own (inverse dynamics: assembly continued from the time before) has not jumped to another
/// assembly branch between them.
///
/// Every point p of a body moves smoothly, so between times t0 and t1 = t0 + h its positions,
/// velocities and accelerations at the two ends satisfy the Hermite (corrected trapezoidal) rule
///   p1 - p0 = h/2 (p'0 + p'1) + h^2/12 (p''0 - p''1) + O(h^5 p^(5)),
/// whose remainder is h^5/720 p^(5): a relative 1.4e-3 of the step for a harmonic motion sampled six
/// times a period. A jump to another branch breaks it by the distance between the branches. The
/// points taken are each body's origin and the points one characteristic length along its axes.

#include "loopdyn/kinematics/state.hpp"

namespace loopdyn {

/// How far the two ends miss the rule: max over the points of |p1 - p0 - h/2 (p'0 + p'1) -
/// h^2/12 (p''0 - p''1)|, and the largest |p1 - p0| of the points, the step it is measured against.
struct ContinuityMiss {
  Scalar miss = 0;
  Scalar step = 0;
};

/// x0, x1 (t1 > t0) with their accelerations a0, a1 (size nv, absolute coordinates).
ContinuityMiss continuityMiss(const Model& model, const State& x0, const VecX& a0, const State& x1, const VecX& a1);

}  // namespace loopdyn
