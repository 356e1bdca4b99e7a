#pragma once
/// The formulation interface: forward dynamics of a constrained mechanism,
///   [M C^T; C 0] [a; lambda] = [F; Gamma]                              (paper 001, eq. (11))
/// for a constraint matrix C that may be rank-deficient (redundant constraints), and what a
/// simulation asks of a formulation (sim/simulation.hpp). The formulations themselves --
/// lagrange, elimination, partitioning, projection (dynamics/formulations/, each in either
/// coordinates over coordinate_equations.hpp), the DCA and the HDCA (dynamics/dca/) -- implement
/// it; this header also holds the projections onto the constraints that they share.
///
/// Projection in the right-hand side (Evaluation::project). Near a singular configuration the
/// accelerations computed at a configuration q are those of the level set Phi = Phi(q) through q:
/// where two branches of Phi = 0 cross, the level sets are hyperbola-like and bend from one branch
/// onto the other within sqrt(|Phi|) of the crossing, so a residual bends the computed motion by
/// about |v|^2 |Phi| / d^3 at distance d (measured on the IFToMM double four-bar: at d = 1e-4 rad
/// the three cranks' accelerations differ by 5e-3 rad/s^2 with |Phi| = 1e-15). The integrator's
/// stages lie off the constraints by O(h^2) (1e-5 m at rtol 1e-8), so without care the motion is
/// bent or turned onto another branch there. With `project`, the absolute formulations first move
/// the state onto the constraints -- positions by Newton steps of least kinetic-metric length,
/// velocities by the least change (kinetic_gram.hpp) -- and evaluate there: the right-hand side
/// becomes f(P(y)), which has the smooth exact motion as its solution and ignores the drift. The
/// simulation asks for it near singular configurations (sim/simulation.hpp).
///
/// Baumgarte stabilisation (optional) replaces Gamma by Gamma - 2 alpha (C v + b) - beta^2 Phi.

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/SVD>

#include "loopdyn/dynamics/kept_rows.hpp"
#include "loopdyn/dynamics/kinetic_gram.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/problem.hpp"
#include "loopdyn/dynamics/run_event.hpp"
#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/coordinates.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

struct Baumgarte {
  Scalar alpha = 0;  ///< 1/s; 0 with beta = 0: off
  Scalar beta = 0;   ///< 1/s
};

/// What a simulation sets for its run (Formulation::start; sim/simulation.hpp).
struct RunSettings {
  Baumgarte baumgarte;  ///< Gamma - 2 alpha (C v + b) - beta^2 Phi in the accelerations (off: zero)
  /// The watch's ratio scale (ratioScale, singular_watch.hpp): a formulation's own |R_rr| / |R_11|
  /// thresholds apply to its ratios divided by this.
  Scalar ratio_scale = 1;
  /// The mechanism's rank of C away from singular configurations (RankReport::generic_rank), or
  /// -1 where unknown. Off the constraints a redundant mechanism's C gains rank (the Bricard
  /// mechanism's C, rank 29 of 30 on them, has a 30th singular value about as large as the
  /// drift): a rank decided by a threshold alone then flips with the drift (formulations that
  /// decide it on C's own conditioning, not its square, read this as a ceiling).
  int generic_rank = -1;
};

/// What a formulation changes during one run on one thread (issue 47.3; Pinocchio's Model and
/// Data, MuJoCo's mjModel and mjData): the run's settings, the formulation's choices along the
/// run (a partition, a tangent basis, the rows it keeps, what u holds), its counters and its
/// buffers. The formulation makes it (Formulation::makeData) and keeps none of it: a formulation
/// is a const description that threads and runs share. Each formulation derives its own.
struct FormulationData {
  virtual ~FormulationData() = default;
  RunSettings settings;  ///< the run's (Formulation::start)
};

/// One dynamics evaluation's results, and the scratch of what every formulation shares, sized
/// once for a model. One per thread. The formulation using it keeps its own run data here too
/// (formulation_data), so every member has one meaning whichever formulation runs.
struct DynamicsWorkspace {
  explicit DynamicsWorkspace(const Model& model);
  DynamicsWorkspace(const DynamicsWorkspace&) = delete;
  DynamicsWorkspace& operator=(const DynamicsWorkspace&) = delete;

  // ---- the evaluation (Formulation::solve / evaluate fill these) ----
  KinematicsWorkspace kin;  ///< the constraints at the evaluated state
  MatX M;                   ///< nv x nv
  VecX F, F_nc;             ///< applied generalized forces; their non-conservative part
  VecX a;                   ///< body accelerations, nv
  VecX a_r;                 ///< joint accelerations (formulations in joint coordinates)
  VecX lambda;              ///< multipliers of every row of C, m + h (zero for eliminated rows)
  VecX Gamma;               ///< the Gamma used (with Baumgarte terms if any)
  ConstraintScaling scaling;   ///< the rows' and coordinates' scales (kinematics/scaling.hpp)
  InverseMass inverse_mass;    ///< M^-1 by bodies, at kin's configuration

  // ---- Gauss's principle, the projections onto the constraints and the least-norm multipliers
  // of this header (formulation.cpp) ----
  KineticGram gram_all;        ///< G over all rows of C
  KineticGram gram_holonomic;  ///< G over the holonomic rows (position projection)
  VecX dq;                     ///< a position correction, nv
  VecX w;                      ///< G^-1 times a right-hand side (multipliers, scaled)
  VecX r;                      ///< the constraint force F - M a
  MatX Cs_t;                   ///< C_s^T = diag(col) C^T diag(row)
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;  ///< of C_s^T

  // ---- the singularity watch, the singular start and the choice of independent rows or
  // coordinates (singular_watch.hpp, singular_start.hpp, partitioning.hpp) ----
  TangentFactorization tangent;  ///< the pivoted QR of C_s^T at kin's configuration
  State x_shifted;               ///< a state beside the one given (positions moved, velocities zeroed)

  // ---- the run data of the formulation that last used this workspace (Formulation::data) ----
  std::shared_ptr<FormulationData> formulation_data;
  std::uint64_t formulation_id = 0;  ///< whose (Formulation's serial number; 0: none)
};

/// What an evaluation of the equations of motion should do besides the accelerations.
struct Evaluation {
  bool multipliers = false;  ///< also the multipliers ws.lambda (the least-norm choice where not unique)
  bool project = false;      ///< first move the state onto the constraints (see the header)
  /// ws.kin already holds the constraints at x's positions and velocities u (a sample's, evaluated
  /// for its drift): the projection starts from them instead of evaluating them again. A hint:
  /// formulations whose projection does not start there ignore it.
  bool kinematics_at_x = false;
};

/// A formulation: a const description of how to compute the motion (built once for a model and
/// its options, shared by runs and threads), whose run data lives in the workspace it is given
/// (FormulationData, made by makeData; Formulation::data finds it there). Every member function
/// is const: what a run changes -- its settings, a partition, a tangent basis, the rows kept,
/// counters, buffers -- is in the data. A workspace holds one formulation's data at a time: a
/// formulation given a workspace another one used makes its own afresh there.
class Formulation {
 public:
  Formulation();
  Formulation(const Formulation&) = delete;
  Formulation& operator=(const Formulation&) = delete;
  virtual ~Formulation() = default;
  virtual std::string_view name() const = 0;
  /// Fills ws.a, ws.lambda (and ws.kin, ws.M, ws.F, ws.F_nc) at state x. Returns "" on success,
  /// otherwise what went wrong, naming the equations involved.
  virtual Problem solve(const Model& model, DynamicsWorkspace& ws, const State& x) const = 0;
  /// The positions the integrator carries for this formulation (kinematics/coordinates.hpp):
  /// absolute unless the formulation works in joint coordinates.
  virtual std::unique_ptr<Coordinates> coordinates(const Model& model) const;
  /// Rows of C whose multipliers the formulation sets to zero by construction: at the start (the
  /// description's), or in a run's data at its end (an automatic elimination may have switched).
  virtual std::vector<int> eliminatedEquations() const { return {}; }
  virtual std::vector<int> eliminatedEquations(const FormulationData&) const { return eliminatedEquations(); }

  // ---- the run data ----

  /// This formulation's data in ws, made there (makeData) when ws holds none of this formulation's.
  FormulationData& data(const Model& model, DynamicsWorkspace& ws) const;
  /// This formulation's data in ws, which must hold it (after start or an evaluation).
  const FormulationData& data(const DynamicsWorkspace& ws) const;
  /// The run's settings (start's; defaults before it).
  const RunSettings& settings(const DynamicsWorkspace& ws) const { return data(ws).settings; }

  // ---- the velocity variables u the integrator carries (sim/simulation.hpp) ----
  // Absolute formulations carry the velocities themselves, u = v. The minimal-coordinate
  // formulations (partitioning.hpp, projection.hpp) carry independent velocities, and what they
  // track along the path, so that v = v(q, t, u) satisfies C v + b = 0 by construction.

  /// Size of u.
  virtual int velocityStateSize(const Model& model) const { return model.nv(); }
  /// True when u = v (the simulation then projects velocities onto C v + b = 0 itself).
  virtual bool carriesVelocities() const { return true; }
  /// True for joint-coordinate formulations whose u holds the joint velocities v_r in the run of
  /// `data`: the integrator then weighs their errors by the bodies' motion they cause
  /// (JointErrorWeights), as it weighs the joint coordinates'; other entries of u keep its own
  /// formula.
  virtual bool carriesJointVelocities(const FormulationData& /*data*/) const { return false; }
  /// Sets up a run with `settings` in ws (its data made afresh: the run's choices start here) at
  /// the assembled state x, and writes u for it.
  Problem start(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u,
                const RunSettings& settings = {}) const;
  /// What start chose that the log should show, e.g. the branch at a singular start (its time is
  /// the start's).
  virtual std::optional<RunEvent> startEvent(const FormulationData& /*data*/) const { return std::nullopt; }
  /// What coordinate partitioning reports of a run (partitioning.hpp): the independent
  /// coordinates at the start and now (indices into the velocity coordinates, or into the joint
  /// velocities when joint_coordinates) and how often they switched.
  struct PartitionSummary {
    std::vector<int> independent_initial, independent_final;
    int switches = 0;
    bool joint_coordinates = false;
  };
  /// Nothing but for coordinate partitioning.
  virtual std::optional<PartitionSummary> partitionSummary(const FormulationData&) const { return std::nullopt; }
  /// What makes this model costly for this formulation, said before the run (a run's warnings).
  virtual std::vector<RunWarning> costWarnings(const Model& /*model*/) const { return {}; }
  /// From positions x.q at x.t and u: fills x.v, ws.a and du/dt, and ws.lambda when
  /// how.multipliers (inside the integration only their power is needed). With how.project the
  /// state is first moved onto the constraints and x holds the projected positions and velocities.
  virtual Problem evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                           Eigen::Ref<VecX> du, const Evaluation& how) const;
  /// From positions x.q at x.t and u: x.v alone (what the simulation's checks and the watch's
  /// interpolant need after each step). By default a whole evaluation (du: its scratch, u's
  /// size); a formulation whose velocity map is cheaper than its dynamics (projection) overrides.
  virtual Problem velocities(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                             Eigen::Ref<VecX> du) const;
  /// Power of the constraint forces at the last evaluation: lambda^T b = (M a - F)^T v (the work
  /// drivers do; C^T lambda = F - M a and C v = -b).
  virtual Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const;
  /// True when v = v(q, t, u) solves C_K v + b_K = 0 exactly on independent rows K (partitioning):
  /// what the other rows then violate follows from the positions' violation, amplified next to a
  /// singular configuration, and only projecting the positions reduces it, so the simulation
  /// projects on the positions' violation alone. (Measured: the spatial parallelogram's
  /// near-singular pose at 2.64 s, positions at 0.2 of the tolerance and the redundant row's
  /// velocity violation at 130 times it, where Newton cannot improve the positions further.)
  virtual bool velocitiesFollowPositions() const { return false; }
  /// Called after every accepted step (and after the simulation projected the positions, with
  /// `projected`) at the state x, whose velocities came from u. May re-choose what u means and
  /// rewrite u for the same motion; returns what it did ("" if nothing), and the simulation then
  /// restarts the integrator from the new u. `at(t, x, u)` interpolates inside the step [t0, x.t].
  struct Step {
    Scalar t0 = 0;
    bool projected = false;
    bool on_constraints = false;  ///< the step evaluated with Evaluation::project
    Scalar tolerance = 0;  ///< the simulation's projection trigger (scaled violation)
    /// Long against the motion's time scale: a whole passage (the ratio down to zero and up
    /// again) may lie between two ends far from any singular configuration.
    bool long_step = false;
    std::function<void(Scalar t, State& x, VecX& u)> at;
    /// Positions only (x.q, x.t) inside the step, cheaper than `at` and as accurate as a search
    /// for where something happens needs (sim/simulation.hpp: cubic Hermite from the step ends).
    std::function<void(Scalar t, State& x)> positions;
  };
  struct StepOutcome {
    bool restart = false;  ///< u was rewritten
    std::optional<RunEvent> event;  ///< what happened, for the log (none if nothing worth reporting)
    Problem failure;       ///< why the formulation cannot go on (empty if it can): the simulation stops
  };
  virtual StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                                Eigen::Ref<VecX> u) const;
  /// Called when the simulation starts or stops evaluating on the constraints (Evaluation::
  /// project, near a singular configuration), at the positions x before the integrator restarts
  /// from u. May rewrite u for the same motion (HDCA: its momenta become joint velocities there,
  /// hdca.hpp). Returns "" or why it cannot.
  virtual Problem evaluationModeChanged(const Model&, DynamicsWorkspace&, const State&, bool /*project*/,
                                        Eigen::Ref<VecX> /*u*/) const {
    return {};
  }
  /// Whether the formulation can go through a singular configuration (sim/simulation.hpp steps
  /// across it). Elimination and partitioning cannot: their kept equations or independent
  /// coordinates turn dependent there, and what they compute past it need not be the motion.
  virtual bool passesSingularConfigurations() const { return true; }
  /// The generalized velocities inside u (empty for absolute formulations): an output column group.
  virtual int generalizedVelocityCount(const Model&) const { return 0; }
  virtual Eigen::Ref<const VecX> generalizedVelocities(Eigen::Ref<const VecX> u) const { return u.head(0); }

 protected:
  /// start's own part: the formulation's choices at x in its fresh data, and u.
  virtual Problem begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const;
  /// A run's data, before start: a subclass's own (with its buffers sized for the model).
  virtual std::unique_ptr<FormulationData> makeData(const Model& model) const;
  /// data(), as the subclass's own type D (which its makeData makes).
  template <class D>
  D& dataAs(const Model& model, DynamicsWorkspace& ws) const {
    return static_cast<D&>(data(model, ws));
  }
  template <class D>
  const D& dataAs(const DynamicsWorkspace& ws) const {
    return static_cast<const D&>(data(ws));
  }
  template <class D>
  static const D& dataAs(const FormulationData& data) {
    return static_cast<const D&>(data);
  }

 private:
  std::uint64_t id_;  ///< serial number: whose data a workspace holds
};

/// The scaled position residual ||Phi_s|| / L the projections below stop at (rounding level).
inline constexpr Scalar kProjectionTolerance = 1e-14;

/// Moves x onto the constraints: positions onto Phi = 0 by Newton steps of least kinetic-metric
/// length (paper 004, eqs. (12)-(13), in the metric M) until the scaled residual ||Phi_s|| / L stops
/// falling or is below `tolerance`, then velocities onto C v + b = 0 by the least change in that
/// metric. Leaves ws.kin evaluated at the result, ws.inverse_mass and ws.gram_all factorised there.
/// Returns "" or why not (Newton did not reach 1e-6: x is too far from the constraints).
/// `evaluated`: ws.kin already holds the constraints at x (not evaluated again).
Problem projectState(const Model& model, DynamicsWorkspace& ws, State& x, Scalar tolerance = kProjectionTolerance,
                         bool evaluated = false);

/// Positions only (the first half of projectState); ws.kin is left evaluated at the result.
Problem projectPositions(const Model& model, DynamicsWorkspace& ws, State& x,
                             Scalar tolerance = kProjectionTolerance, bool evaluated = false);

/// Velocities only (the second half): x.v onto C v + b = 0 by the least change in the kinetic
/// metric. ws.kin must be evaluated at x's positions; it is left evaluated at the result.
void projectVelocities(const Model& model, DynamicsWorkspace& ws, State& x);

/// ws.Gamma from ws.kin (evaluated at x), with Baumgarte's (1972) terms when they are switched on.
void stabilizedGamma(const Model& model, DynamicsWorkspace& ws, const State& x, const Baumgarte& baumgarte);

/// The least-norm scaled multipliers for the constraint force C^T lambda = f (size nv):
/// lambda = diag(row) (C_s^T)^+ diag(col) f, the rank of C_s^T decided with kRankThreshold. Uses
/// ws.kin.C as evaluated.
void leastNormMultipliers(const Model& model, DynamicsWorkspace& ws, const VecX& constraint_force);

/// Rows of C by equation name ("C.y", "W4"); throws InvalidArgument naming an unknown one.
std::vector<int> equationRows(const Model& model, const std::vector<std::string>& names);

}  // namespace loopdyn
