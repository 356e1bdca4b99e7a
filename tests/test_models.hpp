#pragma once
// Helpers shared by the tests: loading bundled models and building random mechanisms.

#include <random>
#include <string>
#include <vector>

#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"
#include "loopdyn/model/model.hpp"
#include "loopdyn/sim/simulation.hpp"

namespace loopdyn::test {

/// Path of a bundled model: LOOPDYN_MODELS_DIR/<name>.yaml.
std::string modelPath(const std::string& name);

/// Reads and compiles a bundled model.
Model loadModel(const std::string& name);

/// A spec with one pair of every type available in `dimension`, markers at random places and
/// orientations, and one driver of each target, for derivative checks at random states.
ModelSpec everyPairTypeSpec(int dimension, std::mt19937& rng);

/// Options of randomMechanismSpec.
struct RandomMechanismOptions {
  int bodies = 4;
  /// Joints closing loops between random bodies (or ground), of random types.
  int loop_closures = 0;
  /// Tree joints copied with both markers moved along the joint axis: redundant bearings.
  int duplicate_joints = 0;
  /// Knife edges on random bodies (2D only).
  int knife_edges = 0;
  /// Tree joint types; empty: every holonomic type of the dimension.
  std::vector<JointType> tree_types;
  /// Build a serial chain ground-b0-b1-... instead of a random tree.
  bool serial = false;
};

/// A random mechanism whose initial configuration satisfies every holonomic constraint exactly:
/// bodies at random poses, each joint placed at a random point with a random frame and its two
/// markers computed from it. Without closures, duplicates and knife edges it is a tree.
ModelSpec randomMechanismSpec(int dimension, std::mt19937& rng, const RandomMechanismOptions& options);

/// Options of fourBarLadderSpec.
struct LadderOptions {
  int loops = 2;
  /// Rod inertia 1/12 kg m^2 exactly; else written as 0.08333333333 (the bundled file's digits).
  bool exact_inertia = true;
  /// Every body's velocity given (cranks -1 rad/s, couplers 1 m/s); else crank 1's only.
  bool body_velocities = false;
};

/// The IFToMM double four-bar generalised to N loops (paper 004, sect. 3.2; issue 14): ground
/// pivots at (i, 0), i = 0..N, vertical unit rods (cranks) up to (i, 1), horizontal unit couplers
/// between their tops; 1 m, 1 kg uniform rods, revolute joints, gravity -9.81 y; the top of crank
/// 1 moving at 1 m/s in +x.
ModelSpec fourBarLadderSpec(const LadderOptions& options);

/// The same with every crank at `angle` from the +x axis (pi / 2: the upright pose; 0: all bars
/// horizontal, the singular configuration where C loses one row per loop), the couplers level.
ModelSpec fourBarLadderSpecAt(const LadderOptions& options, Scalar angle);

/// Issue 16's spatial chain of n bodies (the DCA benchmarks' and the whole-run chain): joint i
/// about +z (even i) or +y (odd i) of its parent's link frame, at (1, 0, 0) of it (joint 0 at the
/// origin); each body 1 kg, centre of mass at (0.5, 0, 0) of its link frame, inertia about it
/// [[0.02, 0.001, 0.002], [0.001, 0.09, 0.003], [0.002, 0.003, 0.085]] kg m^2; gravity
/// (0, 0, -9.81); joint efforts 0.1 sin(2.3 i) N m.
ModelSpec spatialChainSpec(int n);

/// Its state of joint coordinates q_i = 0.3 sin(1.7 i + 0.4), rates 0.5 cos(0.9 i) (q_r, v_r, and
/// the bodies' absolute state from them).
State spatialChainState(const TreeKinematics& tree);

/// Every length times `factor` (metres to millimetres: 1000): positions, markers, distance
/// lengths, inertias, prescribed linear velocities and gravity. The same mechanism in other units.
ModelSpec scaled(ModelSpec spec, Scalar factor);

/// The state written in a spec (its initial poses; zero velocities).
State stateOf(const Model& model);

/// The model's initial state (poses and velocities of its file) assembled onto the constraints.
State assembledInitialState(const Model& model);

/// Simulation options for the model-level tests: dopri5 from t = 0 to t_end, samples every
/// sample_interval, rtol and atol = rtol / 100.
SimulationOptions accurateOptions(Scalar t_end, Scalar rtol, Scalar sample_interval);

/// A random (unassembled) state: positions, unit quaternions, velocities, time.
State randomState(const Model& model, std::mt19937& rng);

}  // namespace loopdyn::test
