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

/// One pair a failed assembly names, in the file's units.
struct NamedMisfit {
  std::string type, name;     ///< the pair's type ("revolute", "driver", ...) and name
  bool nonholonomic = false;  ///< gap is a velocity residual (m/s): the pair slips
  Scalar gap = 0;             ///< m (m/s when nonholonomic)
  Scalar angle = 0;           ///< rad
  // a driver's
  bool driver = false, angular = false;  ///< angular: asked and reached in degrees, else metres
  Scalar asked = 0, reached = 0;         ///< what it asks for at t, what the linkage comes to with every joint closed
};

/// Why an assembly failed, as a code with the numbers and names of its account (issue 47.2);
/// assemblyFailureText is its sentence.
struct AssemblyFailure {
  enum class Kind {
    None,                    ///< converged
    Stalled,                 ///< no step closes the joints further: the closest configuration leaves misfits
    OutOfIterations,         ///< still open after `iterations` Newton steps
    DriversUnreachable,      ///< stalled where the joints close without the drivers: misfits are the drivers'
    TooLarge,                ///< the sparse route stalled and the dense one does not fit: detail
    VelocitiesInconsistent,  ///< C v + b = 0 cannot be met: residual (relative)
  };
  Kind kind = Kind::None;
  Scalar t = 0;
  int iterations = 0;
  Scalar residual = 0, tolerance = 0;  ///< scaled, in units of length
  Scalar length = 0;                   ///< the model's characteristic length (m)
  std::vector<NamedMisfit> misfits;    ///< the largest, down to a hundredth of the largest, four at most
  std::vector<std::string> loop;       ///< the loop of the first open cut joint among them (loopOf)
  std::vector<std::string> held;       ///< bodies held where the file puts them (hold: true)
  std::string detail;                  ///< TooLarge: the size's account
};

/// "stalled", ...: the kind as a key.
const char* assemblyFailureName(AssemblyFailure::Kind kind);

/// A failed position assembly at x (ws evaluated there, and again on return): `stalled` (no step
/// lowered the residual: the closest configuration from the file's positions) or out of
/// iterations. Where the joints close without the drivers, what each driver asks for against
/// what the linkage comes to; else the open pairs in the file's units and the loop of the worst
/// cut joint.
AssemblyFailure assemblyFailure(const Model& model, KinematicsWorkspace& ws, const State& x, int iterations,
                                bool stalled, Scalar residual, Scalar tolerance);

/// The failure's sentence, in the model's terms (every door shows it: the command line, Python,
/// a C++ program through AssemblyResult::message).
std::string assemblyFailureText(const AssemblyFailure& failure);

}  // namespace loopdyn
