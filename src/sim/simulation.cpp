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

void unpack(const Model& model, Scalar t, const Scalar* y, State& x) {
  x.t = t;
  x.q = Eigen::Map<const VecX>(y, model.nq());
  x.v = Eigen::Map<const VecX>(y + model.nq(), model.nv());
}

void pack(const State& x, Scalar work, VecX& y) {
  y.resize(x.q.size() + x.v.size() + 1);
  y << x.q, x.v, work;
}

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

  // right-hand side of the ODE y = (q, v, W)
  State xr;
  std::string rhs_problem;
  const int nq = model.nq(), nv = model.nv();
  ode::Rhs rhs = [&](Scalar t, const Scalar* y, Scalar* ydot) -> int {
    unpack(model, t, y, xr);
    const std::string problem = formulation.solve(model, ws, xr);
    if (!problem.empty()) {
      rhs_problem = problem;
      return -1;  // the formulation cannot go on here (a singular configuration): stop
    }
    if (!ws.a.allFinite()) {
      rhs_problem = "the accelerations are not finite";
      return 1;  // recoverable: the integrator retries with a smaller step
    }
    positionRates(model, xr, ydot);
    Eigen::Map<VecX>(ydot + nq, nv) = ws.a;
    ydot[nq + nv] = ws.F_nc.dot(xr.v) + ws.lambda.dot(ws.kin.b);
    return 0;
  };

  // samples: the state at t (interpolated), the dynamics evaluated there
  Sample sample;
  Scalar energy_max_T = 0, energy_V0 = 0, energy_dV = 0;
  auto emit = [&](Scalar t, const VecX& y) {
    unpack(model, t, y.data(), sample.x);
    normalizeQuaternions(model, sample.x);
    const std::string problem = formulation.solve(model, ws, sample.x);
    if (!problem.empty() && result.ok) {
      result.ok = false;
      result.failure = "at t = " + std::to_string(t) + " s: " + problem;
    }
    sample.a = ws.a;
    sample.lambda = ws.lambda;
    sample.kinetic = kineticEnergy(model, ws.kin.motion);
    sample.potential = potentialEnergy(model, ws.kin.motion);
    sample.work = y(nq + nv);
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

  VecX y0, y;
  pack(x0, 0, y0);
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
  long steps = 0;
  while (result.ok && integrator.time() < options.t_end) {
    ode::StepResult step = integrator.step(options.t_end);
    if (step.ok && ++steps > options.ode.max_steps)
      step = {false, "more than " + std::to_string(options.ode.max_steps) + " steps (step size collapsed) at t = " +
                         std::to_string(integrator.time()) + " s"};
    if (!step.ok) {
      unpack(model, integrator.time(), integrator.state().data(), xp);
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
    if (options.stabilization != Stabilization::Projection) continue;
    // project when the violation exceeds the tolerance
    unpack(model, integrator.time(), integrator.state().data(), xp);
    normalizeQuaternions(model, xp);
    evaluateConstraints(model, ws.kin, xp);
    Scalar position = 0, velocity = 0;
    violations(model, ws, xp, position, velocity);
    const Scalar speed = ws.scaling.col.cwiseProduct(xp.v).norm() / model.characteristicLength();
    if (position <= tolerance && velocity <= tolerance * std::max<Scalar>(1, speed)) continue;
    // positions onto Phi = 0; next to a singular configuration Newton converges only linearly, so
    // a result below the trigger is accepted, then velocities onto C v + b = 0 there
    AssemblyResult projected = assemblePositions(model, check, xp, projection);
    if (projected.converged || projected.position_residual <= 0.1 * tolerance)
      projected = assembleVelocities(model, check, projected.state, projection);
    if (!projected.converged && position <= kPostponeFactor * tolerance &&
        velocity <= kPostponeFactor * tolerance * std::max<Scalar>(1, speed)) {
      // keep the (still small) violation and try again after the next step
      ++result.projections_postponed;
      continue;
    }
    if (!projected.converged) {
      result.ok = false;
      result.failure = "at t = " + std::to_string(xp.t) + " s the state could not be projected onto the constraints: " +
                       projected.message + singularityHint(model, xp, initial_rank);
      break;
    }
    pack(projected.state, integrator.state()(nq + nv), y);
    integrator.reset(integrator.time(), y);
    ++result.projections;
  }
  result.statistics = integrator.statistics();
  unpack(model, integrator.time(), integrator.state().data(), result.final_state);
  result.energy_scale = energy_max_T + energy_dV;
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace loopdyn
