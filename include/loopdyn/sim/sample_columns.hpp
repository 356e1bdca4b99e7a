#pragma once
/// The columns of a simulation's output table and their values at one sample.
///
///   t
///   BODY.x .y .phi  .vx .vy .w                         (planar body)
///   BODY.x .y .z .qw .qx .qy .qz  .vx .vy .vz .wx .wy .wz   (spatial body; w in world axes)
///   energy.kinetic  energy.potential  energy.work  energy.balance
///   violation.position  violation.velocity
///   POINT.x .y (.z)  .vx .vy (.vz)   a point fixed on a body (ColumnOptions::points), world frame
///   JOINT.q1 ... JOINT.v1 ...  every joint's coordinates and velocities (ColumnOptions::
///                              all_joints; JointModel's: revolute angle, prismatic displacement,
///                              ...), from the bodies' poses and twists, angles continuous
///   u.1 ... u.k                the formulation's generalized velocities, if it has any:
///                              partitioning the independent velocities v_I of the current set
///                              (paper 003), projection the coordinates of v in the tangent
///                              basis T (paper 004, eq. (11))
///   JOINT.q1 ... JOINT.v1 ...  relative coordinates: the joint coordinates and velocities the
///                              integrator carries (kinematics/coordinates.hpp; a floating body's
///                              free joint is BODY.free)
///   PAIR@BODY.Fx ...     the wrench pair exerts on body (either of its two, or the ground),
///                            reduced to the joint point, world axes (kinematics/pair_wrench.hpp)
///   PAIR@BODY.joint.Fx   the same in the joint frame (the pair's first marker)
///   DRIVER.effort          the actuator force or torque, -lambda (paper 001, eq. (10))
///   FORCE.tension          a spring-damper's tension (positive pulling its ends together)
///   FORCE.effort           a joint effort's torque or force
///   FORCE.Fx ... .Mz       a body load's force and torque, world frame
///
/// energy.balance = T + V - W, constant in the exact solution (sim/simulation.hpp).
/// A reaction column whose value the model does not determine (analysis/reaction_uniqueness.hpp)
/// is listed in nonUniqueNames() (and, with ColumnOptions::mark_non_unique, carries a trailing
/// `*` in its name, as before issue 19 made the names stable): its values are the formulation's choice (least-norm multipliers for
/// lagrange and projection, zero eliminated multipliers for elimination and partitioning), not
/// physics. `loopdyn simulate` marks what is non-unique at t = 0 or near it on the motion
/// (analyzeReactionUniquenessNear): a component that is unique only at the initial configuration
/// would not be unique in the rows that follow.

#include <string>
#include <vector>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/kinematics/joint_models.hpp"
#include "loopdyn/sim/simulation.hpp"

namespace loopdyn {

/// A body-fixed point whose world position and velocity are columns (`simulate --point`).
struct TrackedPoint {
  std::string name;
  BodyIndex body = 0;
  Vec3 position = Vec3::Zero();  ///< in the body frame
};

/// Resolves "NAME=BODY.MARKER" (a marker of a moving body) to a tracked point; returns what is
/// wrong (with the nearest known name), empty on success.
std::string resolvePoint(const Model& model, const std::string& text, TrackedPoint& out);
/// Every point of `texts` resolved (SimulationRequest::points, `simulate --point`); throws
/// InvalidArgument "points: 'TEXT': what is wrong" for the first that cannot be.
std::vector<TrackedPoint> resolvePoints(const Model& model, const std::vector<std::string>& texts);

struct ColumnOptions {
  bool bodies = true;     ///< BODY.x ... (the state)
  bool energy = true;     ///< energy.*
  bool violation = true;  ///< violation.*
  bool efforts = true;    ///< DRIVER.effort, and the force elements' FORCE.tension / .effort / .Fx ...
  bool all_joints = false;  ///< JOINT.q1 ..., JOINT.v1 ... of every joint with coordinates
  bool world_reactions = true;  ///< PAIR@BODY.Fx ...
  bool joint_reactions = true;  ///< PAIR@BODY.joint.Fx ...
  int generalized_velocities = 0;  ///< u.1 ... u.k (Formulation::generalizedVelocityCount)
  bool joint_coordinates = false;  ///< JOINT.q1 ..., JOINT.v1 ... (relative-coordinate runs)
  std::vector<TrackedPoint> points;  ///< POINT.x ... POINT.vx ...
  bool mark_non_unique = false;      ///< append `*` to the non-unique columns' names
};

/// The column groups a run can be asked for (`simulate --columns`, SimulationRequest::columns):
/// bodies, energy, violation, coordinates (u.* and a relative run's joint coordinates), joints
/// (every joint's coordinates), points, reactions, efforts; "default" stands for all but joints,
/// "all" for every one.
const std::vector<std::string>& columnGroupNames();

/// The options for `groups` (names of columnGroupNames, or "default"/"all") with the reaction
/// axes `reactions` (all, world, joint, none), for a run whose formulation has
/// `generalized_velocities` (Formulation::generalizedVelocityCount) and is `relative` or not;
/// points as given. Throws InvalidArgument naming an unknown group or reaction choice.
ColumnOptions columnOptionsFor(const std::vector<std::string>& groups, const std::string& reactions,
                               int generalized_velocities, bool relative, std::vector<TrackedPoint> points = {});

/// Whether columns of these options carry uniqueness marks (reactions, or drivers' efforts): only
/// then does SampleColumns read its uniqueness report, which may otherwise be empty.
bool columnsReadUniqueness(const Model& model, const ColumnOptions& options);

/// The uniqueness report that decides the marks (QR decides; paper 001, eq. (27)): at x0 and near
/// it on the motion (analyzeReactionUniquenessNear: what is unique only at the initial
/// configuration is marked), or empty where no column reads it and `always` is false (on the
/// 64-loop ladder the report was 41 % of a short run's instructions: dense QRs of the 386-row C).
UniquenessReport uniquenessMarks(const Model& model, const State& x0, const ColumnOptions& options, bool always = false);

class SampleColumns {
 public:
  /// flags: the uniqueness analysis that decides the `*` marks (normally at the initial state);
  /// may be empty when !columnsReadUniqueness(model, options).
  SampleColumns(const Model& model, const UniquenessReport& flags, const ColumnOptions& options = {});

  const std::vector<std::string>& names() const { return names_; }
  /// Reaction columns marked non-unique.
  int nonUniqueColumns() const { return non_unique_; }
  /// Their names (without a `*`), in column order.
  const std::vector<std::string>& nonUniqueNames() const { return non_unique_names_; }
  /// Whether any column is a multiplier (a reaction or a driver force): samples need them.
  bool needsMultipliers() const { return !sides_.empty() || !driver_rows_.empty(); }

  /// The values of one row, in the order of names(): the reactions from the sample's own
  /// (Sample::reactions). Allocates nothing once row has the right size.
  void fill(const Model& model, const Sample& sample, std::vector<double>& row) const;

 private:
  /// Every joint's coordinates and velocities from row[k] on; returns the index after them.
  std::size_t fillJoints(const Model& model, const Sample& sample, std::vector<double>& row, std::size_t k) const;
  /// The reactions, the drivers' efforts and the force elements' from row[k] on.
  void fillReactionsAndEfforts(const Model& model, const Sample& sample, std::vector<double>& row, std::size_t k) const;
  void addMarkedColumns(const Model& model, const UniquenessReport& flags);

  /// One body's side of one pair: its world and/or joint-frame components.
  struct ReactionSide {
    int pair = 0;
    BodyIndex body = kGround;
  };
  std::vector<std::string> names_, non_unique_names_;
  std::vector<ReactionSide> sides_;
  std::vector<int> driver_rows_;
  ColumnOptions options_;
  /// all_joints: the joints with coordinates, their models, and the last coordinates written
  /// (the reference that keeps angles continuous from row to row)
  std::vector<int> joints_;
  std::vector<JointModel> joint_models_;
  mutable std::vector<VecX> joint_q_last_;
  bool force_columns_ = false;
  mutable std::vector<BodyMotion> motion_;  ///< the bodies' motions at the sample (force columns)
  int all_joint_q_ = 0, all_joint_v_ = 0;
  int joint_q_ = 0, joint_v_ = 0;  ///< joint coordinate columns
  int non_unique_ = 0;
};

}  // namespace loopdyn
