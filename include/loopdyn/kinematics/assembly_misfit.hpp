#pragma once
/// Why an assembly failed, in the model's own terms (issue 49.6): which joints stay open and by how
/// much in the file's units (metres, degrees), the loop they close, and for a driver what it asks
/// for against what the linkage reaches -- instead of a scaled residual.

#include <optional>
#include <string>
#include <vector>

#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// A pair's residual in the file's units: the norm of its translational equations (m) and of its
/// angular ones (rad); a nonholonomic pair's velocity residual in `gap` (m/s).
struct PairMisfit {
  int pair = 0;  ///< index into Model::pairs()
  Scalar gap = 0, angle = 0;
};

/// Every pair whose equations do not hold at ws's evaluation (Phi at x), largest first (by gap +
/// L * angle).
std::vector<PairMisfit> pairMisfits(const Model& model, const KinematicsWorkspace& ws, const State& x);

/// "O2 - A - B - O4": the joints of the loop a cut joint closes (the cut joint, then the spanning
/// tree's joints between its two bodies); empty for a tree joint or a driver.
std::vector<std::string> loopOf(const Model& model, int joint);

/// The sentence of a failed position assembly at x (ws evaluated there, and again on return):
/// `stalled` (no step lowered the residual: the closest configuration from the file's positions)
/// or out of iterations. Where the joints close without the drivers, what each driver asks for
/// against what the linkage comes to; else the open pairs in the file's units and the loop of the
/// worst cut joint.
std::string assemblyFailure(const Model& model, KinematicsWorkspace& ws, const State& x, int iterations,
                            bool stalled, Scalar residual, Scalar tolerance);

}  // namespace loopdyn
