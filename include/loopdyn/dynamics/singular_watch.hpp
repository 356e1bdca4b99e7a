#pragma once
/// Watching a motion for singular configurations, step by step (paper 004, sect. 2.5).
///
/// The distance to a singular configuration is read from the pivoted QR of C_s^T
/// (tangent_space.hpp): |R_rr| / |R_11| at the generic rank r falls to zero where the rank drops.
/// After each accepted step the ratio at its end is compared with the one at its start; where the
/// smaller of the two is below kNearSingular, the step's dense output is sampled (kDipSamples
/// interior points) and the closest approach inside is found by golden-section search. A step
/// cannot jump over a passage unseen: a singular configuration crossed inside the step shows as
/// a dip in the samples, or at an end.

#include "loopdyn/dynamics/formulation.hpp"

namespace loopdyn {

/// Closest approach to a singular configuration counts as a passage below this |R_rr| / |R_11|;
/// the rank there is counted with the same threshold.
inline constexpr Scalar kSingularRatio = 1e-3;
/// The smallest ratio at the ends of a step below this triggers the search inside it.
inline constexpr Scalar kNearSingular = 0.1;

class SingularWatch {
 public:
  explicit SingularWatch(int rank) : r_(rank) {}

  /// |R_rr| / |R_11| at the positions of x (evaluates ws.kin and ws.tangent there).
  Scalar ratioAt(const Model& model, DynamicsWorkspace& ws, const State& x) const;
  /// Starts watching at x; returns the ratio there.
  Scalar start(const Model& model, DynamicsWorkspace& ws, const State& x);

  struct Approach {
    bool passage = false;  ///< a closest approach inside the step (or at its start), below kSingularRatio
    Scalar t = 0;
    Scalar ratio = 1;
  };
  /// After an accepted step ending at x. Leaves ws.kin and ws.tangent factorised at x.
  Approach afterStep(const Model& model, DynamicsWorkspace& ws, const Formulation::Step& step, const State& x);

 private:
  int r_;
  Scalar last_ratio_ = 1;
  bool dip_at_end_ = false;  ///< the last step's smallest ratio was at its end
  /// The motion has been away from singular configurations (ratio >= kSingularRatio) since the
  /// last passage or a singular start: one passage per visit (inside it, rounding makes the ratio
  /// of nearly equal configurations wander at 1e-16 and would count spurious minima).
  bool armed_ = true;
};

}  // namespace loopdyn
