#pragma once
/// Starting a minimal-coordinate motion AT a singular configuration (paper 004, sect. 2.5).
///
/// There the admissible motions null C_s outnumber the f degrees of freedom the mechanism has on
/// its branches: several branches meet, and the tangent basis T (n x f) must be the one of the
/// branch the motion takes. Paper 004 continues T from before the singular configuration; a
/// motion that starts there has no "before", so the branch is read from where the motion goes:
///
///   d = the initial velocity (scaled, its tangential part), or, at rest, the initial
///       acceleration: the component in null C_s of the unique accelerations of the rigid model,
///       a~ = a_p + N w with C_s a_p = row.Gamma (least norm) and (N^T M~ N) w = N^T (F~ - M~ a_p),
///       M~ = S M S, F~ = S F (the lagrange accelerations, paper 001, eq. (10), in these
///       coordinates);
///   probe: the configuration at distance eps L along d, assembled (least-norm Newton), lies on
///       the branch; its tangent basis P (rank r there) is moved into null C_s at the start
///       (the closest orthonormal basis, App. A, tangent_space.hpp);
///   T = [d, the f - 1 principal directions of P orthogonal to d]: the motion's own direction
///       exactly, the rest of the branch's tangent to O(eps); T = P when d lies between branches
///       (misfit above kBranchMisfit): the motion then takes the nearest branch, the probe's.
///
/// misfit = |d - P P^T d|: how far d lies from the branch the probe found. The symmetric bundled
/// mechanisms fall from rest along a branch (misfit ~ eps); a large misfit means that the rigid
/// model does not say which branch the motion takes (its accelerations point between branches).

#include <string>

#include "loopdyn/dynamics/formulation.hpp"

namespace loopdyn {

/// Distance of the probe from the start, relative to L: small enough for the O(eps) error of the
/// limit tangent, large enough for the rank decision there (|R_rr| / |R_11| ~ eps >> 1e-9).
inline constexpr Scalar kSingularProbe = 1e-6;
/// A misfit above this is reported: the motion's direction is not tangent to a branch.
inline constexpr Scalar kBranchMisfit = 1e-3;

struct SingularStart {
  MatX T;                  ///< n x f, orthonormal, inside null C_s at the start (scaled coordinates)
  Scalar misfit = 0;       ///< |d - P P^T d| (0: d is tangent to the branch found)
  bool at_rest = false;    ///< d is the initial acceleration (else the initial velocity)
  int rank = 0;            ///< rank of C_s at the start
  Problem problem;         ///< non-empty: no basis (what went wrong)
};

/// The tangent basis for a motion that starts at the singular configuration x, for a mechanism of
/// generic rank `rank` (f = n - rank degrees of freedom). Evaluates ws.kin and ws.tangent.
SingularStart singularStartBasis(const Model& model, DynamicsWorkspace& ws, const State& x, int rank);

/// The start's event (run_event.hpp) for `branch`, found at x.t where |R_rr| / |R_11| = ratio of a
/// mechanism of generic rank `rank_regular`; `joint_coordinates`: ratio and ranks are those of C_r.
RunEvent singularStartEvent(const SingularStart& branch, const State& x, Scalar ratio, int rank_regular,
                            bool joint_coordinates);

}  // namespace loopdyn
