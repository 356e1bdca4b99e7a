// Forward dynamics: one right-hand-side evaluation (accelerations and multipliers), and a full
// 10 s simulation of every bundled model per formulation and integrator (docs/performance.md).
// Run: build/bench/loopdyn_bench --benchmark_filter='Rhs|Simulate10s'

#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "loopdyn/sim/formulation_choice.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "bench_models.hpp"

namespace {

using namespace loopdyn;
using bench::Fixture;
using bench::load;

constexpr Scalar kRtol = 1e-8;  // the CLI default

/// The formulation `loopdyn simulate` builds for `method`, or nullptr (the benchmark marked
/// skipped with why) if it cannot.
std::unique_ptr<Formulation> formulationFor(benchmark::State& st, const Fixture& f, const std::string& method) {
  FormulationChoice choice;
  choice.method = method;
  BuiltFormulation built = buildFormulation(f.model, f.state, choice);
  if (!built.formulation) st.SkipWithError(built.problem.c_str());
  return std::move(built.formulation);
}

void BM_Rhs(benchmark::State& st, const std::string& name, const std::string& method) {
  const Fixture f = load(name);
  const auto formulation = formulationFor(st, f, method);
  if (!formulation) return;
  // one right-hand side as the integrator calls it: from the formulation's velocity variables
  DynamicsWorkspace ws(f.model);
  VecX u(formulation->velocityStateSize(f.model)), du(u.size());
  if (const Problem problem = formulation->start(f.model, ws, f.state, u); !problem.empty()) {
    st.SkipWithError(problemText(problem).c_str());
    return;
  }
  State x = f.state;
  // (the positions as the integrator carries them: joint coordinates for dca and hdca)
  const std::unique_ptr<Coordinates> coordinates = formulation->coordinates(f.model);
  VecX positions(coordinates->size());
  coordinates->fromState(x, positions);
  coordinates->toState(x.t, positions, x, true);
  for (auto _ : st) {
    const Problem problem = formulation->evaluate(f.model, ws, x, u, du, Evaluation{});
    benchmark::DoNotOptimize(du.data());
  }
  st.counters["n"] = f.model.nv();
  st.counters["rows"] = f.model.nc();
}

void BM_Simulate10s(benchmark::State& st, const std::string& name, const std::string& method, ode::Method integrator) {
  const Fixture f = load(name);
  const auto formulation = formulationFor(st, f, method);
  if (!formulation) return;
  SimulationOptions options;
  options.t_end = 10;
  options.sample_interval = 0.01;
  options.integrator = integrator;
  options.ode.rtol = kRtol;
  options.ode.fixed_step = 1e-3;  // rk4 only, the CLI default
  SimulationResult r;
  for (auto _ : st) r = simulate(f.model, *formulation, f.state, options, [](const Sample&, const DynamicsWorkspace&) {});
  if (!r.ok) {
    st.SkipWithError(runStatusName(r.status));
    return;
  }
  st.counters["steps"] = static_cast<double>(r.statistics.steps);
  st.counters["rhs"] = static_cast<double>(r.statistics.rhs_evaluations);
  st.counters["projections"] = static_cast<double>(r.projections);
  st.counters["drift"] = r.energy_drift_max / r.energy_scale;
}

std::vector<std::string> bundledModels() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(LOOPDYN_MODELS_DIR))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

const bool registered = [] {
  const std::vector<std::pair<std::string, ode::Method>> integrators{
      {"dopri5", ode::Method::Dopri5}, {"bs23", ode::Method::Bs23}, {"adams", ode::Method::Adams}, {"rk4", ode::Method::Rk4}};
  for (const std::string& name : bundledModels()) {
    for (const std::string method : {"lagrange", "elimination", "partitioning", "projection", "dca", "hdca"})
      benchmark::RegisterBenchmark(("BM_Rhs/" + name + "/" + method).c_str(), BM_Rhs, name, method);
    for (const std::string method : {"lagrange", "elimination", "partitioning", "projection"})
      for (const auto& [integrator_name, integrator] : integrators)
        benchmark::RegisterBenchmark(("BM_Simulate10s/" + name + "/" + method + "/" + integrator_name).c_str(),
                                     BM_Simulate10s, name, method, integrator)
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
