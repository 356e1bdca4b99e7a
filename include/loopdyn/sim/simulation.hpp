#pragma once
/// A simulation: a formulation (dynamics/formulation.hpp), an integrator (ode/integrator.hpp) and
/// constraint stabilisation, producing samples at exact times.
///
/// ODE state y = (q, u, W): positions (quaternions in 3D, qdot = 1/2 (0, w) * q with w in world
/// axes), the formulation's velocity variables u (the velocities v for the absolute formulations,
/// independent velocities for the minimal-coordinate ones: dynamics/formulation.hpp), and W, the work done on the system by drivers (lambda^T b: rheonomic
/// constraints do work, paper 001, eq. (4)) and by non-conservative applied loads (F_nc . v).
/// E = T + V - W is then constant in the exact solution (energy.balance).
///
/// Stabilisation:
///   projection (default)  after an accepted step whose scaled position or velocity violation
///                         exceeds the tolerance, positions are projected onto Phi = 0 (Newton
///                         with least-norm steps) and velocities onto C v + b = 0 (least change),
///                         quaternions renormalised, and the integrator continues from there;
///   baumgarte             Gamma - 2 alpha (C v + b) - beta^2 Phi in the accelerations;
///   none                  the constraints at acceleration level only (drift grows).

#include <functional>
#include <string>
#include <vector>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/ode/integrator.hpp"

namespace loopdyn {

enum class Stabilization { Projection, Baumgarte, None };

/// Default projection trigger, relative to rtol: 1 for the Runge-Kutta methods, 10 for adams.
/// Every projection restarts adams at order 1, whose first steps drift by about rtol again, so a
/// trigger at rtol projects after nearly every step (measured on the double four-bar, 10 s, rtol
/// 1e-8: 72766 projections and 6 s at 1 x rtol; 23 projections and 0.18 s at 10 x). The
/// Runge-Kutta methods keep their step size across a projection; a looser trigger there only
/// lets more drift through (released directions near singular configurations: the modified
/// double four-bar loses 8e-4 of its energy at 10 x rtol, 3e-8 at 1 x).
Scalar projectionTrigger(ode::Method method);

/// Default release of the lagrange formulation near singular configurations (dynamics/
/// formulation.hpp): 10 sqrt(rtol). The least-norm multipliers amplify a constraint drift of
/// order rtol by 1/kappa as the kinematic size kappa of a direction vanishes, while releasing a
/// direction below rho drops a physical force over a time window of order rho: the two errors
/// balance at rho ~ sqrt(rtol). Measured on the bundled models (10 s, dopri5), see
/// docs/simulation.md.
Scalar defaultRelease(Scalar rtol);

struct SimulationOptions {
  Scalar t_end = 1;
  Scalar sample_interval = 0.01;
  ode::Method integrator = ode::Method::Dopri5;
  ode::Options ode;
  Stabilization stabilization = Stabilization::Projection;
  Scalar baumgarte_alpha = 10, baumgarte_beta = 10;  ///< 1/s
  /// Scaled violation (||Phi_s|| / L, ||diag(row)(C v + b)|| / L) above which a step is
  /// projected; 0: projectionTrigger(integrator) x rtol.
  Scalar projection_tolerance = 0;
};

/// One output sample: the state at an exact sample time and everything derived from it.
struct Sample {
  State x;
  VecX a, lambda;
  VecX generalized_velocities;  ///< minimal-coordinate formulations: the independent velocities u
  Scalar kinetic = 0, potential = 0, work = 0;
  Scalar position_violation = 0;  ///< ||Phi_s|| / L
  Scalar velocity_violation = 0;  ///< ||diag(row)(C v + b)|| / L, 1/s
};

struct SimulationResult {
  bool ok = true;
  std::string failure;  ///< when !ok: when and why, with the mechanism parts involved
  ode::Statistics statistics;
  long projections = 0;
  long projections_postponed = 0;  ///< projections that did not converge next to a singular configuration
  long samples = 0;
  double wall_seconds = 0;
  State final_state;
  Scalar energy_initial = 0;       ///< T + V - W at t = 0
  Scalar energy_drift_max = 0;     ///< max |E(t) - E(0)| over the samples
  Scalar energy_scale = 0;         ///< max(T) + max|V - V(0)| over the samples: for relative drift
  Scalar max_position_violation = 0, max_velocity_violation = 0;  ///< over the samples (see Sample)
  std::vector<std::string> warnings;
  std::vector<std::string> events;  ///< what the formulation re-chose along the way ("t = ... s: ...")
};

/// Integrates from x0 (assembled) to options.t_end, calling on_sample at t = 0, dt, 2 dt, ...,
/// t_end. Sets formulation.baumgarte from options.stabilization. The dynamics workspace passed to on_sample holds the evaluation at that sample (for
/// reactions). Never throws for numerical trouble: see SimulationResult::failure.
SimulationResult simulate(const Model& model, Formulation& formulation, const State& x0,
                          const SimulationOptions& options,
                          const std::function<void(const Sample&, const DynamicsWorkspace&)>& on_sample);

}  // namespace loopdyn
