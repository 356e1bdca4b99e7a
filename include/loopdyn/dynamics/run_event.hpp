#pragma once
/// What happened along a run, as data: when, what kind, and the numbers that say how (ranks,
/// ratios, coordinates, equations). The library records; the front ends put it into words
/// (reports/event_text.hpp: the CLI's report, its JSON, the HTML report, the Python module).
///
/// One flat record for every kind keeps the events one list in time order, easy to write as
/// JSON or a Python dict; each kind fills the fields its comment names and leaves the rest at
/// their defaults.

#include <iosfwd>
#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

enum class EventKind {
  /// The initial configuration is singular (rank below the generic rank): the formulation takes
  /// the branch of the initial velocity, or of the initial acceleration when at rest
  /// (dynamics/singular_start.hpp). Fields: ratio, rank, rank_regular, at_rest, misfit,
  /// between_branches, joint_coordinates.
  SingularStart,
  /// A singular configuration passed (dynamics/singular_watch.hpp; SimulationResult::passages
  /// holds the whole description). Fields: ratio, rank, rank_regular, new_motions,
  /// branch_change, at_rest, stepped_across, left_branch.
  SingularPassage,
  /// Coordinate partitioning switched its independent coordinates (projective criterion, paper
  /// 003 sect. 5). Fields: from, to (coordinate names), quality_from, quality_to, switch_ratio.
  CoordinateSwitch,
  /// Coordinate partitioning kept its coordinates but re-chose its independent constraint rows
  /// (C_KD ill-conditioned). Fields: condition.
  RowsRechosen,
  /// Elimination (automatic choice) re-chose the equations it removes: the rows it kept had become
  /// ill-conditioned along the motion (formulations/elimination.hpp). Fields: from, to (equation
  /// names removed before / after), quality_from, quality_to (smallest |R_kk| / |R_11| of the kept
  /// rows' pivoted QR, in the kinetic metric), switch_ratio.
  EliminationSwitch,
  /// The rank of C rose above the generic rank between t_from and t: the constraints lock the
  /// mechanism, which a rigid model stops with an impulse the equations do not contain; the run
  /// stops. Fields: t_from, rank_regular (the rank before), rank (after), equation (the row that
  /// became independent, index into Model::equations()), ratio, new_motions (admissible motions
  /// left: nv - rank).
  LockUp,
};

/// "singular-passage", "lock-up", ...: the kind as a JSON / Python key.
const char* eventKindName(EventKind kind);
std::ostream& operator<<(std::ostream& os, EventKind kind);

struct RunEvent {
  EventKind kind = EventKind::SingularPassage;
  Scalar t = 0;              ///< s
  Scalar ratio = 0;          ///< |R_rr| / |R_11| of C_s^T's pivoted QR there (sigma_r / sigma_1 where sigma_ratio)
  bool sigma_ratio = false;  ///< SingularPassage: a large model's, read on the sparse route
  int rank = 0;              ///< the rank of C there
  int rank_regular = 0;      ///< the generic rank (the rank along the motion)
  int new_motions = 0;       ///< admissible motions beyond the regular ones (LockUp: those left)
  Scalar branch_change = 0;  ///< sin of the tangent spaces' largest principal angle across a passage
  bool at_rest = false;      ///< the motion is (nearly) at rest there
  bool stepped_across = false;    ///< a collocation step crossed the passage
  bool left_branch = false;       ///< the motion left its branch (a failed check unless at_rest)
  Scalar misfit = 0;              ///< singular start: |d - P P^T d| of the initial direction d
  bool between_branches = false;  ///< singular start: d lies between branches (the nearest taken)
  bool joint_coordinates = false;  ///< singular start: measured in joint coordinates
  /// coordinate switch: independent coordinates before / after; elimination switch: the
  /// equations removed before / after
  std::vector<std::string> from, to;
  Scalar quality_from = 0, quality_to = 0, switch_ratio = 0;  ///< either switch: each set's quality
  Scalar condition = 0;  ///< rows re-chosen: C_KD's reciprocal condition
  Scalar t_from = 0;     ///< lock-up: the step's start
  int equation = -1;     ///< lock-up: the equation that became independent
};

/// Something a user should know of a run whose answer holds (SimulationResult::warnings): a code
/// with its fields; the words are the front ends' (reports/event_text.hpp), as for events.
struct RunWarning {
  enum class Kind {
    /// The projection trigger `value` is below the drift a step leaves, max(rtol, atol / L) =
    /// `bound`: a projection after most steps (`adams`: each restarting it).
    ProjectionBelowDrift,
    /// hdca: body `name` is far easier to turn about one axis than another (principal inertias
    /// `value` and `bound`): its spin follows from a momentum through 1 / `value`, and the run
    /// needs several times dca's steps (dca/hdca.hpp).
    ThinBody,
    /// At `t` the motion came to rest at a singular configuration and left it on another branch,
    /// which the rigid model does not decide.
    RestLeftBranch,
    /// adams restarted after `count` of its `steps` steps (`projections` after projections).
    AdamsRestarts,
    /// Formulation `name`'s velocities held C v + b = 0 to `value`, above the projection trigger
    /// `bound`, which projections could not improve: the velocities' trigger rose to `raised`.
    VelocityFloor,
    /// The energy check resolves drifts above `value` J (`tolerance` of the work of gravity over
    /// the characteristic length, `bound` J), but the motion's own energy is `raised` J; an
    /// energy tolerance of `suggested` resolves a tenth of it.
    EnergyBlindSpot,
  };
  Kind kind = Kind::ProjectionBelowDrift;
  Scalar t = 0;
  std::string name;
  Scalar value = 0, bound = 0, raised = 0, tolerance = 0, suggested = 0;
  long count = 0, steps = 0, projections = 0;
  bool adams = false;
};

}  // namespace loopdyn
