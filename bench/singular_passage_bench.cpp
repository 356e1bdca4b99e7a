// The core promise's benchmark (issue 14): the IFToMM double four-bar (models/double_four_bar.yaml)
// over 10 s through its 10 singular configurations, with the accuracy reached against the exact
// motion (tests/support/ladder_oracle.hpp). Target: energy error <= 1e-8 and B0 within 1e-8 m of
// the exact motion in <= 20 ms (docs/performance.md). Also in joint coordinates by the DCA and the
// HDCA (issue 18).
// Run: build/bench/loopdyn_bench --benchmark_filter=DoubleFourBarExact

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "bench_models.hpp"
#include "loopdyn/sim/formulation_choice.hpp"
#include "loopdyn/sim/simulation.hpp"
#include "support/ladder_oracle.hpp"

namespace {

using namespace loopdyn;

constexpr Scalar kEnd = 10, kSample = 0.01;

void BM_DoubleFourBarExact(benchmark::State& st, const std::string& method, ode::Method integrator, Scalar rtol) {
  const bench::Fixture f = bench::load("double_four_bar");
  static const test::LadderOracle oracle(2, kEnd, kSample);
  FormulationChoice choice;
  choice.method = method;
  BuiltFormulation built = buildFormulation(f.model, f.state, choice);
  if (!built.formulation) {
    st.SkipWithError(built.problem.c_str());
    return;
  }
  SimulationOptions options;
  options.t_end = kEnd;
  options.sample_interval = kSample;
  options.integrator = integrator;
  options.ode.rtol = rtol;
  options.ode.atol = 1e-2 * rtol;
  options.generic_rank = built.generic_rank;
  SimulationResult r;
  Scalar b0_error = 0;
  for (auto _ : st) {
    std::size_t k = 0;
    b0_error = 0;
    r = simulate(f.model, *built.formulation, f.state, options, [&](const Sample& s, const DynamicsWorkspace&) {
      double x, y, vx, vy;
      oracle.tip(k++, x, y, vx, vy);
      b0_error = std::max(b0_error, std::hypot(2 * s.x.q(0) - x, 2 * s.x.q(1) - y));
    });
  }
  if (!r.ok) {
    st.SkipWithError(runStatusName(r.status));
    return;
  }
  st.counters["B0_error"] = b0_error;
  st.counters["energy"] = r.energy_drift_max / r.energy_scale;
  st.counters["passages"] = static_cast<double>(r.passages.size());
  st.counters["steps"] = static_cast<double>(r.statistics.steps);
  st.counters["rhs"] = static_cast<double>(r.statistics.rhs_evaluations);
}

const bool registered = [] {
  for (const std::string method : {"lagrange", "projection", "dca", "hdca"})
    for (const auto& [name, integrator, rtols] :
         {std::tuple{"dopri5", ode::Method::Dopri5, std::vector<Scalar>{1e-8, 1e-9, 1e-10}},
          std::tuple{"dop853", ode::Method::Dop853, std::vector<Scalar>{1e-8, 1e-9, 1e-10, 3e-11, 1e-11}},
          std::tuple{"adams", ode::Method::Adams, std::vector<Scalar>{1e-10, 1e-12}}})
      for (const Scalar rtol : rtols) {
        char label[32];
        std::snprintf(label, sizeof label, "%.0e", rtol);
        benchmark::RegisterBenchmark(("BM_DoubleFourBarExact/" + method + "/" + name + "/rtol:" + label).c_str(),
                                     BM_DoubleFourBarExact, method, integrator, rtol)
            ->Unit(benchmark::kMillisecond);
      }
  return true;
}();

}  // namespace
