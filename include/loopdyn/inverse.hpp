#pragma once
/// The front door of inverse dynamics (issue 50), shared by `loopdyn inverse` and the C++ package:
/// a model's actuators prescribed by a trajectory, the run's times, and the columns of its rows.
///
///   ModelSpec spec = io::readModelFile("slider_crank.yaml");
///   InverseRequest request;
///   request.actuators = {"motor"};              // a joint effort (or a joint) whose effort is sought
///   request.trajectory = "motion.csv";          // t, crank_joint.q1 (and crank_joint.v1)
///   InverseSetup setup = setUpInverse(spec, request);
///   inverseDynamics(setup.model, setup.start.state, setup.times, on_sample);

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/model/model.hpp"
#include "loopdyn/sim/inverse_dynamics.hpp"
#include "loopdyn/sim/sample_columns.hpp"

namespace loopdyn {

/// What `loopdyn inverse` is asked (its options of the same names; docs/inverse_dynamics.md).
struct InverseRequest {
  /// The actuators whose efforts are sought, each prescribed by the trajectory: the name of a joint
  /// effort (a force of type joint_effort: it is replaced by a driver of that name on its joint) or
  /// of a revolute or prismatic joint (a driver JOINT.actuator is added). The model's own drivers
  /// are actuators too, following their profiles.
  std::vector<std::string> actuators;
  /// A CSV table (io/csv_table.hpp): a column t and, for each actuator on joint J, J.q1 -- its
  /// angle or displacement, as `simulate --columns joints` writes it -- and optionally J.v1, its
  /// rate, and with it J.a1, its acceleration; other columns are not read. The run's times are the table's. Empty: no table, the
  /// model's drivers from their initial time to t_end every `sample`.
  std::string trajectory;
  Scalar t_end = 0;
  Scalar sample = 0.01;
  /// Column groups (sim/sample_columns.hpp); energy's work and balance mean nothing here (no work
  /// is integrated), so the default leaves it out.
  std::vector<std::string> columns = {"bodies", "violation", "reactions", "efforts"};
  std::string reactions = "world";                 ///< world, joint, all, none
  /// The choice among a redundant actuation's efforts (sim/effort_resolution.hpp): least-norm,
  /// weighted (by motor_constants), bounded (within effort_limits, weighted by motor_constants
  /// where given).
  std::string resolution = "least-norm";
  /// Actuator (driver) name -> motor constant k > 0: the weighted choice minimises sum (tau / k)^2.
  std::map<std::string, Scalar> motor_constants;
  /// Actuator (driver) name -> (lower, upper) bounds of its effort (bounded).
  std::map<std::string, std::pair<Scalar, Scalar>> effort_limits;
};

/// A request set up: the prescribed model, its assembled start, the times, the rows' columns.
struct InverseSetup {
  Model model;                         ///< the model with its actuators as drivers
  AssemblyResult start;                ///< at the first time
  std::vector<Scalar> times;
  std::vector<std::string> drivers;    ///< the actuators' drivers, in the request's order
  UniquenessReport uniqueness;         ///< what decides the columns' marks (uniquenessMarks)
  std::unique_ptr<SampleColumns> columns;  ///< null when the start did not assemble
  /// Redundant actuation's preloads at the start: an orthonormal basis of the efforts' free
  /// combinations (effortPreloads), one vector per preload, entries in driverNames' order.
  std::vector<VecX> preloads;
  InverseOptions options;  ///< the run's options: the request's resolution over driverNames
};

/// Sets up `request` on `spec`. Throws ModelError ("file:line:col: error: ...") for what is wrong
/// in the trajectory's table or the prescribed model, and InvalidArgument whose message starts with
/// the request's field ("actuators: ...", "t_end: ...") for the request's own problems. A start
/// that does not assemble is returned (start.converged false), not thrown.
InverseSetup setUpInverse(const ModelSpec& spec, const InverseRequest& request);

/// inverseDynamics on a set-up request (its start, times and options), each time's row of
/// setup.columns to on_row. Precondition: setup.start converged.
InverseResult runInverse(const InverseSetup& setup, const std::function<void(const std::vector<double>&)>& on_row);

/// An inverse-dynamics run's rows and outcome.
struct InverseTable {
  std::vector<std::string> columns;     ///< the CSV's column names (sim/sample_columns.hpp)
  std::vector<std::string> non_unique;  ///< the columns whose values the model does not determine
  std::vector<std::string> drivers;     ///< every driver of the prescribed model: the actuators
  std::vector<VecX> preloads;           ///< InverseSetup::preloads
  MatX values;                          ///< one row per time, one column per name
  AssemblyResult start;                 ///< the assembly at the first time
  InverseResult result;                 ///< completed, or why and when not
};

/// setUpInverse, then inverseDynamics with every row kept. Throws as setUpInverse; a start that
/// does not assemble returns result.status AssemblyFailed with start's failure.
InverseTable inverseModel(const ModelSpec& spec, const InverseRequest& request);

}  // namespace loopdyn
