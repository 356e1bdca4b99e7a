#include "loopdyn/sim/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/assembly.hpp"

namespace loopdyn {

namespace {

/// qdot from v: 2D the same; 3D rdot = v and quaternion rate 1/2 (0, w) * q (w in world axes).
void positionRates(const Model& model, const State& x, Scalar* qdot) {
  if (model.dimension() == 2) {
    Eigen::Map<VecX>(qdot, model.nq()) = x.v;
    return;
  }
  for (int b = 0; b < model.nb(); ++b) {
    const Vec3 w = x.v.segment<3>(6 * b + 3);
    const Scalar s = x.q(7 * b + 3);
    const Vec3 u = x.q.segment<3>(7 * b + 4);
    Eigen::Map<Eigen::Matrix<Scalar, 7, 1>> out(qdot + 7 * b);
    out.head<3>() = x.v.segment<3>(6 * b);
    out(3) = -0.5 * w.dot(u);
    out.tail<3>() = 0.5 * (s * w + w.cross(u));
  }
}

void normalizeQuaternions(const Model& model, State& x) {
  if (model.dimension() == 3)
    for (int b = 0; b < model.nb(); ++b) x.q.segment<4>(7 * b + 3).normalize();
}

/// A projection that does not converge is retried after the next step while the violation stays
/// below this multiple of the projection tolerance.
constexpr Scalar kPostponeFactor = 100;

/// At most this many formulation events are kept (a switching set could otherwise fill memory).
constexpr std::size_t kMaxEvents = 1000;

/// Scaled violations of the state as evaluated in ws.
void violations(const Model& model, const DynamicsWorkspace& ws, const State& x, Scalar& position, Scalar& velocity) {
  const Scalar L = model.characteristicLength();
  position = ws.scaling.row.head(model.m()).cwiseProduct(ws.kin.Phi).norm() / L;
  velocity = ws.scaling.row.cwiseProduct(ws.kin.C * x.v + ws.kin.b).norm() / L;
}

/// "near a singular configuration (rank 14 -> 12; dependent: O3.x, O2.x of joints O3, O2)" or "".
std::string singularityHint(const Model& model, const State& x, int initial_rank) {
  KinematicsWorkspace kin(model);
  RankOptions options;
  options.generic_samples = 0;
  const RankReport r = analyzeConstraintsAt(model, kin, x, options);
  if (r.rank >= initial_rank) return {};
  std::vector<std::string> pairs;
  for (int row : r.dependent_equations) {
    const std::string& name = model.pairs()[static_cast<std::size_t>(model.equations()[static_cast<std::size_t>(row)].pair)].name;
    if (std::find(pairs.begin(), pairs.end(), name) == pairs.end()) pairs.push_back(name);
  }
  std::ostringstream os;
  os << " near a singular configuration (rank " << initial_rank << " -> " << r.rank << ") involving";
  for (std::size_t k = 0; k < pairs.size(); ++k) os << (k == 0 ? " " : ", ") << pairs[k];
  return os.str();
}

}  // namespace

Scalar projectionTrigger(ode::Method method) { return method == ode::Method::Adams ? 10 : 1; }

Scalar defaultRelease(Scalar rtol) { return 10 * std::sqrt(rtol); }

SimulationResult simulate(const Model& model, Formulation& formulation, const State& x0,
                          const SimulationOptions& options,
                          const std::function<void(const Sample&, const DynamicsWorkspace&)>& on_sample) {
  const auto start = std::chrono::steady_clock::now();
  SimulationResult result;
  formulation.baumgarte = options.stabilization == Stabilization::Baumgarte
                              ? Baumgarte{options.baumgarte_alpha, options.baumgarte_beta}
                              : Baumgarte{};
  DynamicsWorkspace ws(model);
  const Scalar tolerance =
      options.projection_tolerance > 0 ? options.projection_tolerance : projectionTrigger(options.integrator) * options.ode.rtol;

  // ODE state y = (q, u, W): positions, the formulation's velocity variables, driver work
  const int nq = model.nq(), nu = formulation.velocityStateSize(model);
  const auto positions = [&](Scalar t, const VecX& y, State& x) {
    x.t = t;
    x.q = y.head(nq);
    normalizeQuaternions(model, x);
  };
  VecX du(nu);

  // right-hand side
  State xr;
  std::string rhs_problem;
  ode::Rhs rhs = [&](Scalar t, const Scalar* y, Scalar* ydot) -> int {
    xr.t = t;
    xr.q = Eigen::Map<const VecX>(y, nq);
    const std::string problem =
        formulation.evaluate(model, ws, xr, Eigen::Map<const VecX>(y + nq, nu), Eigen::Map<VecX>(ydot + nq, nu), false);
    if (!problem.empty()) {
      rhs_problem = problem;
      return -1;  // the formulation cannot go on here (a singular configuration): stop
    }
    if (!ws.a.allFinite()) {
      rhs_problem = "the accelerations are not finite";
      return 1;  // recoverable: the integrator retries with a smaller step
    }
    positionRates(model, xr, ydot);
    ydot[nq + nu] = ws.F_nc.dot(xr.v) + formulation.constraintPower(ws, xr);
    return 0;
  };

  // samples: the state at t (interpolated), the dynamics evaluated there
  Sample sample;
  Scalar energy_max_T = 0, energy_V0 = 0, energy_dV = 0;
  auto emit = [&](Scalar t, const VecX& y) {
    positions(t, y, sample.x);
    const std::string problem = formulation.evaluate(model, ws, sample.x, y.segment(nq, nu), du, true);
    if (!problem.empty() && result.ok) {
      result.ok = false;
      result.failure = "at t = " + std::to_string(t) + " s: " + problem;
    }
    sample.a = ws.a;
    sample.lambda = ws.lambda;
    sample.generalized_velocities = formulation.generalizedVelocities(y.segment(nq, nu));
    sample.kinetic = kineticEnergy(model, ws.kin.motion);
    sample.potential = potentialEnergy(model, ws.kin.motion);
    sample.work = y(nq + nu);
    violations(model, ws, sample.x, sample.position_violation, sample.velocity_violation);
    const Scalar E = sample.kinetic + sample.potential - sample.work;
    if (result.samples == 0) {
      result.energy_initial = E;
      energy_V0 = sample.potential;
    }
    result.energy_drift_max = std::max(result.energy_drift_max, std::abs(E - result.energy_initial));
    result.max_position_violation = std::max(result.max_position_violation, sample.position_violation);
    result.max_velocity_violation = std::max(result.max_velocity_violation, sample.velocity_violation);
    energy_max_T = std::max(energy_max_T, sample.kinetic);
    energy_dV = std::max(energy_dV, std::abs(sample.potential - energy_V0));
    ++result.samples;
    on_sample(sample, ws);
  };

  KinematicsWorkspace check(model);
  const int initial_rank = [&] {
    RankOptions o;
    o.generic_samples = 0;
    return analyzeConstraintsAt(model, check, x0, o).rank;
  }();

  VecX y0(nq + nu + 1), y;
  y0.head(nq) = x0.q;
  y0(nq + nu) = 0;
  if (const std::string problem = formulation.start(model, ws, x0, y0.segment(nq, nu)); !problem.empty()) {
    result.ok = false;
    result.failure = "at t = " + std::to_string(x0.t) + " s: " + problem;
    result.final_state = x0;
    return result;
  }
  if (const std::string event = formulation.startEvent(); !event.empty())
    result.events.push_back("t = " + std::to_string(x0.t) + " s: " + event);
  ode::Integrator integrator(options.integrator, rhs, x0.t, y0, options.ode);
  const Scalar dt = options.sample_interval;
  const long last = std::max(1L, static_cast<long>(std::ceil((options.t_end - x0.t) / dt - 1e-9)));
  auto sampleTime = [&](long k) { return k >= last ? options.t_end : x0.t + static_cast<Scalar>(k) * dt; };
  emit(x0.t, y0);
  long next = 1;
  AssemblyOptions projection;
  projection.keep_prescribed_velocities = false;
  projection.position_tolerance = projection.velocity_tolerance = std::max(1e-14, 1e-3 * tolerance);
  State xp;
  VecX u(nu), yi;
  Formulation::Step step_info;
  step_info.tolerance = tolerance;
  step_info.at = [&](Scalar t, State& x, VecX& ui) {
    integrator.interpolate(t, yi);
    positions(t, yi, x);
    ui = yi.segment(nq, nu);
  };
  long steps = 0;
  Scalar t_previous = x0.t;
  while (result.ok && integrator.time() < options.t_end) {
    ode::StepResult step = integrator.step(options.t_end);
    if (step.ok && ++steps > options.ode.max_steps)
      step = {false, "more than " + std::to_string(options.ode.max_steps) + " steps (step size collapsed) at t = " +
                         std::to_string(integrator.time()) + " s"};
    positions(integrator.time(), integrator.state(), xp);
    u = integrator.state().segment(nq, nu);
    if (!step.ok) {
      formulation.evaluate(model, ws, xp, u, du, false);
      result.ok = false;
      result.failure = step.message + singularityHint(model, xp, initial_rank);
      if (!rhs_problem.empty()) result.failure += " (" + rhs_problem + ")";
      break;
    }
    while (result.ok && next <= last && sampleTime(next) <= integrator.time() + 1e-12 * std::abs(options.t_end)) {
      integrator.interpolate(std::min(sampleTime(next), integrator.time()), y);
      emit(sampleTime(next), y);
      ++next;
    }
    if (!result.ok) break;
    bool restart = false;
    step_info.t0 = t_previous;
    step_info.projected = false;
    t_previous = integrator.time();
    if (options.stabilization == Stabilization::Projection) {
      // project when the violation exceeds the tolerance
      formulation.evaluate(model, ws, xp, u, du, false);
      Scalar position = 0, velocity = 0;
      violations(model, ws, xp, position, velocity);
      const Scalar speed = ws.scaling.col.cwiseProduct(xp.v).norm() / model.characteristicLength();
      // (formulation.hpp: velocitiesFollowPositions)
      const bool velocity_trigger =
          !formulation.velocitiesFollowPositions() && velocity > tolerance * std::max<Scalar>(1, speed);
      if (position > tolerance || velocity_trigger) {
        // positions onto Phi = 0 (Newton with least-norm steps: along the range of C^T, paper 004
        // eqs. (12)-(13)); next to a singular configuration Newton converges only linearly, so a
        // result below the trigger is accepted. Then velocities onto C v + b = 0 there: by the
        // simulation for absolute formulations, by the formulation (afterStep) for the others.
        AssemblyResult projected = assemblePositions(model, check, xp, projection);
        if ((projected.converged || projected.position_residual <= 0.1 * tolerance) && formulation.carriesVelocities())
          projected = assembleVelocities(model, check, projected.state, projection);
        else if (projected.position_residual <= 0.1 * tolerance)
          projected.converged = true;
        if (!projected.converged && position <= kPostponeFactor * tolerance &&
            velocity <= kPostponeFactor * tolerance * std::max<Scalar>(1, speed)) {
          ++result.projections_postponed;  // keep the (still small) violation and try again after the next step
        } else if (!projected.converged) {
          result.ok = false;
          result.failure = "at t = " + std::to_string(xp.t) + " s the state could not be projected onto the constraints: " +
                           projected.message + singularityHint(model, xp, initial_rank);
          break;
        } else {
          xp = projected.state;
          if (formulation.carriesVelocities()) u = xp.v;
          step_info.projected = restart = true;
          ++result.projections;
        }
      }
    }
    const Formulation::StepOutcome outcome = formulation.afterStep(model, ws, step_info, xp, u);
    if (!outcome.failure.empty()) {
      result.ok = false;
      result.failure = outcome.failure;
      break;
    }
    if (!outcome.event.empty() && result.events.size() < kMaxEvents)
      result.events.push_back("t = " + std::to_string(xp.t) + " s: " + outcome.event);
    restart = restart || outcome.restart;
    if (restart) {
      y.resize(nq + nu + 1);
      y << xp.q, u, integrator.state()(nq + nu);
      integrator.reset(integrator.time(), y);
    }
  }
  result.statistics = integrator.statistics();
  positions(integrator.time(), integrator.state(), result.final_state);
  u = integrator.state().segment(nq, nu);
  formulation.evaluate(model, ws, result.final_state, u, du, false);
  result.energy_scale = energy_max_T + energy_dV;
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace loopdyn
