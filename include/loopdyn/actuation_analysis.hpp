#pragma once
/// The actuation of a mechanism at its assembled pose and along a sweep (issue 50; `loopdyn analyze
/// --actuators A,B [--sweep A.angle=FROM:TO:POINTS]`): which freedoms the actuators control, how
/// many efforts they have to spare (actuation redundancy: preloads), which efforts the model
/// determines, and where the actuation is singular -- a parallel robot's type-II singularity,
/// where the actuators stop controlling a freedom and their efforts grow without bound along a
/// self-stress of the locked mechanism (analysis/actuation.hpp).
///
/// Each actuator (a joint effort or a revolute or prismatic joint, as `loopdyn inverse` takes them;
/// the model's own drivers are actuators too) becomes a driver holding its joint where the pose
/// has it. The sweep drives the swept actuator from FROM to TO while the others hold, each point
/// assembled from the one before. Along one actuator a type-II singularity is generically a turning
/// point of the path (the swept coordinate stationary where C loses rank), so the sweep cannot
/// pass it: where a point does not assemble after one that did, bisection finds the edge of reach
/// and the actuation there is reported. Between two points where the pivot ratio is below
/// kNearSingular of its regular level a golden-section search over the swept value finds its
/// smallest value (a crossing, where the path passes one).

#include <string>
#include <vector>

#include "loopdyn/criterion_sweep.hpp"
#include "loopdyn/model/model_spec.hpp"

namespace loopdyn {

struct ActuationRequest {
  std::vector<std::string> actuators;
  /// The sweep (points 0: none): its joint must be an actuator's.
  SweepRequest sweep;
};

/// The actuation at one configuration.
struct ActuationPoint {
  Scalar value = 0;      ///< the swept coordinate (the pose: its value there, or 0 without a sweep)
  bool assembled = false;
  std::string problem;   ///< why not assembled
  int rank = 0;          ///< rank C with the actuators held
  Scalar ratio = 1;      ///< the pivot ratio at the generic rank over its regular level (pivotRatio)
  bool singular = false; ///< rank below the generic rank, or ratio below kSingularRatio
  /// At a singular point: the efforts' directions of growth (unboundedEfforts, over `drivers`).
  std::vector<VecX> unbounded;
  /// The sweep's path turns back here (the last configuration assembled before one that is not, to
  /// 1e-7 of the swept value's step): with the others held the swept actuator cannot go further.
  /// Where the path is the solution of C's equations with the swept coordinate given, a turning
  /// point is a rank drop of C: an actuation singularity, its ratio there near zero.
  bool edge = false;
};

struct ActuationReport {
  std::vector<std::string> drivers;  ///< the actuators' drivers, with the model's own
  int freedoms = 0;      ///< the mechanism's, without any driver (n - its generic rank)
  int controlled = 0;    ///< the freedoms the drivers control (their generic rank added)
  int uncontrolled = 0;  ///< freedoms - controlled: left free
  int redundancy = 0;    ///< drivers - controlled: the efforts' preloads
  std::vector<std::string> non_unique_efforts;  ///< the drivers whose efforts the model does not determine
  std::vector<VecX> preloads;                   ///< effortPreloads at the pose
  ActuationPoint pose;
  std::vector<ActuationPoint> sweep;     ///< one per sweep point
  std::vector<ActuationPoint> crossings; ///< singular points found between sweep points
};

/// The actuation of the model compiled from spec at its assembled pose (and along the sweep).
/// Throws InvalidArgument whose message starts with the request's field ("actuators: ...",
/// "sweep: ...") and ModelError (the driven model does not compile). A pose that does not assemble
/// gives pose.assembled false, with its problem, and nothing else.
ActuationReport analyzeActuation(const ModelSpec& spec, const ActuationRequest& request);

}  // namespace loopdyn
