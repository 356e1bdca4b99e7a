#pragma once
/// One run of simulate() as named stages (private to src/sim/; the public entry is
/// loopdyn/sim/simulation.hpp).

#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loopdyn/dynamics/singular_watch.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/kinematics/coordinates.hpp"
#include "loopdyn/ode/gauss_legendre.hpp"
#include "loopdyn/ode/integrator.hpp"
#include "loopdyn/common/stage_clock.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "singular_passage.hpp"

namespace loopdyn::detail {

/// One run of simulate(), as named stages over the state they share (issue 47: the loop was one
/// function of 600 lines): set-up (the generic rank, the coordinates, the right-hand side), the
/// start, the steps (across a singular configuration by collocation, or ordinary), what follows
/// each step (the watch, lock-ups, passages, stabilisation, the next crossing plan) and the checks
/// at the end. Its members are the state the stages share, named as plain variables (no trailing
/// underscore): the stages read like the steps of one algorithm.
class Run {
 public:
  using OnSample = std::function<void(const Sample&, const DynamicsWorkspace&)>;

  Run(const Model& model, const Formulation& formulation, const State& x0, const SimulationOptions& options,
      const OnSample& on_sample);
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  SimulationResult go();

 private:
  // set-up and start
  void chooseRank();
  void defineRightHandSides();
  bool start();
  void startStepping();
  // the stages of a step
  void step();
  bool crossSingularConfiguration(Scalar t0);
  void emitCrossingSamples(Scalar t0, const VecX& y_begin, const VecX& y_end);
  bool ordinaryStep(Scalar t0);
  bool stepsCollapsed();
  RunFailure collapse() const;
  /// The integrator from (t, y) afresh (after a projection, a change of mode, a crossing).
  void restartIntegrator(Scalar t, const VecX& y_now);
  void setOrdinaryStepReaders(Scalar t0);
  bool lockedUp(Scalar t0);
  void recordApproaches(bool crossing);
  bool stabilize(bool crossing, bool& restart);
  bool learnVelocityFloor();
  /// Stops the run at a lock-up found since t0 (`what`: how it shows), with its event.
  void failLockUp(Scalar t0, RunFailure failure);
  /// The equation the watch last found beyond the generic rank, with its pair.
  std::string excessEquationName() const;
  bool watchTheStep(Scalar t0, bool crossing);
  void planNextStep(Scalar t0, bool crossing);
  // the end
  void finish();
  void checkEnergyAndViolation();
  // what the stages share
  void positions(Scalar t, const VecX& y, State& x) const { coordinates->toState(t, y.head(nq), x, true); }
  Problem velocitiesAt(State& x, Eigen::Ref<const VecX> u);
  void emit(Scalar t, const VecX& y, bool in_crossing = false);
  void setProjectMode(bool project, Scalar t);
  Scalar sampleTime(long k) const { return k >= last ? options.t_end : x0.t + static_cast<Scalar>(k) * dt; }
  Scalar singularValueRatio(const State& x);
  void judgePassages(const State& x_after);
  void watchStep(Scalar t0, bool crossing);

  const Model& model;
  const Formulation& formulation;
  const State& x0;
  const SimulationOptions& options;
  const OnSample& on_sample;
  const std::chrono::steady_clock::time_point start_time = std::chrono::steady_clock::now();
  /// The stages wall time is charged to (SimulationResult::stage_seconds, in its order).
  enum class Stage { Start, Integration, Samples, Watch, Projections, Formulation, Checks };
  using Clock = StageClock<Stage, 7>;
  using Timer = StageTimer<Clock, Stage>;
  Clock clock{Stage::Start};
  SimulationResult result;
  DynamicsWorkspace ws, watch_ws;
  Scalar tolerance = 0;  ///< the projection trigger (scaled violation)
  /// The velocity violation (scaled, per unit of max(1, speed)) a projection could not take the
  /// formulation's velocities below: the trigger for velocities is at least twice it (learnVelocityFloor).
  Scalar velocity_floor = 0;
  bool velocity_projection = false;  ///< the last projection was for the velocities' violation
  int unheld_steps = 0;  ///< steps in a row whose velocities a projection could not hold (learnVelocityFloor)
  KinematicsWorkspace check;
  int rank = 0;
  RunSettings settings;  ///< what the formulation is started with (Baumgarte's terms, the ratio scale)
  // ODE state y = (p, u, W): the formulation's positions (absolute or joint coordinates,
  // kinematics/coordinates.hpp), its velocity variables, driver work
  std::unique_ptr<Coordinates> coordinates;
  int nq = 0, nu = 0;
  VecX du;
  // right-hand side; on the constraints (project) near singular configurations
  State xr;
  Problem rhs_problem;
  Evaluation rhs_how;
  ode::Rhs rhs, projected_rhs;
  // samples
  Sample sample;
  Scalar energy_max_T = 0, energy_V0 = 0, energy_dV = 0;
  Scalar energy_drift_time = 0, step_violation_time = 0, sample_violation_time = 0;  // where the checks' maxima are
  VecX y0, y;
  std::optional<ode::Integrator> integrator;
  std::optional<ode::GaussLegendreStep> collocation;
  Scalar dt = 0;
  long last = 0, next = 1;
  std::optional<SingularWatch> watch;
  Scalar ratio_start = 1;
  bool watch_lockup = false;
  CrossingPlan plan;
  Scalar crossing_t0 = 0, h_crossing = 0;  ///< the last step across a singular configuration
  AssemblyOptions projection;
  State xp, x_start;
  VecX u, yi, y_start, p_end;
  Formulation::Step step_info;
  long steps = 0, steps_near = 0;
  long window_steps = 0;  ///< ordinary steps since the integrator's last restart or the last window (stepsCollapsed)
  Scalar window_t0 = 0;    ///< where they began
  Scalar t_near = 0;
  // sigma_r / sigma_1 at the last two positions read: the crossing plan reads it at a step's start
  // and end, the start being the last step's end unless projected in between, the end where the
  // watch just read it (a Lanczos run or an eigen-decomposition saved for each, near a crossing)
  struct KeptSigma {
    State at;
    Scalar value = -1;
  };
  std::array<KeptSigma, 2> sigma_kept;
  int sigma_next = 0;  ///< the entry the next new reading replaces: the one not read last
  void keepSigma(const State& x, Scalar value);
  HermitePositions hermite;
  // Passages wait for their branch check until the motion is at a regular configuration again
  // (pending): the tangent bases compared are those at the last step ends on either side with
  // |R_rr| / |R_11| >= kRegularRatio
  std::vector<PendingPassage> pending;
  bool depart = false;  // the last step across ended at a singular configuration: leave it like a start
  State last_regular;
  bool regular_before = false;
  // the singular configurations inside the step that ends at xp's positions (singular_watch.hpp),
  // recorded for the branch check
  std::vector<SingularWatch::Approach> approaches;
  // where an ordinary step must stop: short of a singular configuration the ratio falls towards
  // (planNextStep), before the plan takes over
  Scalar t_guard = std::numeric_limits<Scalar>::infinity();
  Scalar ratio_before = 1;  // |R_rr| / |R_11| at the current step's start
};

}  // namespace loopdyn::detail
