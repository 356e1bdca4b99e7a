#pragma once
/// The actuation of a driven mechanism at a configuration, from the self-stresses of the mechanism
/// with its actuators locked: the multipliers lambda with C^T lambda = 0 (the null space of C^T,
/// paper 001 sect. 2), which balance each other and move nothing. Their drivers' rows are the
/// efforts such a self-stress asks of the actuators.
///
/// - At a regular pose of a redundantly actuated mechanism they are its preloads: efforts added in
///   that ratio change no motion (effortPreloads).
/// - At a singular pose of the actuation (a parallel robot's type-II singularity) a new one
///   appears: near the pose C^T lambda = f has lambda ~ u (v . f) / sigma along the smallest
///   singular value's vectors, so the efforts grow without bound along u's drivers' rows, and v is
///   the motion the actuators do not control (unboundedEfforts).
///
/// Dense SVDs: for models of at most kSparseRows equations (larger ones get empty lists).

#include <string>
#include <vector>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/kinematics/state.hpp"

namespace loopdyn {

/// The names of the model's drivers, in its order: the actuators of an inverse run.
std::vector<std::string> driverNames(const Model& model);

/// The drivers' constraint rows (C's, lambda's), in driverNames' order: an effort is -lambda there.
std::vector<Eigen::Index> driverRows(const Model& model);

/// The combinations of the drivers' efforts the model leaves free at x (redundant actuation: an
/// internal preload that changes no motion): the drivers' rows of the null space of C^T,
/// orthonormalised, one vector per independent preload, in driverNames' order, the largest entry
/// positive; empty when every effort is unique.
std::vector<VecX> effortPreloads(const Model& model, const State& x, Scalar rank_threshold = kRankThreshold);

/// At a singular pose x of the actuation: the directions in which the drivers' efforts grow
/// without bound near it -- the drivers' rows of the self-stresses at x that are not the
/// mechanism's preloads `preloads` (effortPreloads at a regular pose nearby; empty without
/// redundant actuation), orthonormalised, in driverNames' order, the largest entry positive: the
/// `lost` largest of them (the rank C lost at x, from its generic rank; what is left of nearby
/// preloads is smaller). Null preloads (no regular pose known): every self-stress's directions,
/// preloads included. A pose within rounding of the singular one (C's rank there still the
/// generic rank) takes the left singular vectors of C's smallest singular values past
/// generic_rank - lost for its self-stresses.
std::vector<VecX> unboundedEfforts(const Model& model, const State& x, const std::vector<VecX>* preloads,
                                   int generic_rank, int lost, Scalar rank_threshold = kRankThreshold);

/// The distance from a singular pose as the simulation's watch reads it (dynamics/singular_watch.hpp):
/// |R_rr| / |R_11| of the pivoted QR of C_s^T at the generic rank r (sigma_min / sigma_max where the
/// sparse route certified the rows independent; 1 for r = 0; 0 when the rank fell below r).
Scalar pivotRatio(const RankReport& report, int generic_rank);

}  // namespace loopdyn
