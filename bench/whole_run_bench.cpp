// Whole runs (issue 48): what a user waits for, through the library's front door (simulateModel:
// assembly, the formulation and the constraints' generic rank, the reactions' uniqueness marks,
// the run), on A02 ladders of N four-bar loops, as the issue measured them: dca, rk4 at 1 ms for
// 20 ms (20 steps, 81 right-hand sides), one sample at the end, no reactions. Counters: the time
// before the run (assembly, setup, marks), the run's stages (SimulationResult::stage_seconds), the
// right-hand sides, and `per_rhs_ratio`: the whole run's time per right-hand side over one bare
// DCA right-hand side at the start (the target: <= 2 for N >= 1,024). One iteration each: the
// larger ladders take seconds.
// Run: build/bench/loopdyn_bench --benchmark_filter=WholeRun

#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "loopdyn/dynamics/dca/dca.hpp"
#include "loopdyn/loopdyn.hpp"
#include "test_models.hpp"

namespace {

using namespace loopdyn;

/// Seconds of one DCA right-hand side (Formulation::evaluate, as the run calls it) at the state
/// the run starts from, the mean of `calls`.
double bareDcaCall(const Model& model, int calls = 50) {
  KinematicsWorkspace kin(model);
  State x = assemble(model, kin, initialState(model)).state;
  const DcaFormulation dca(model);
  DynamicsWorkspace ws(model);
  VecX du(dca.tree().nv());
  dca.tree().relativeState(x, x.q_r, x.v_r);
  const VecX u = x.v_r;
  dca.evaluate(model, ws, x, u, du, Evaluation{});  // (warm)
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < calls; ++k) {
    dca.evaluate(model, ws, x, u, du, Evaluation{});
    benchmark::DoNotOptimize(du.data());
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

void BM_WholeRunLadderDca(benchmark::State& st) {
  test::LadderOptions ladder;
  ladder.loops = static_cast<int>(st.range(0));
  const Model model = compile(test::fourBarLadderSpec(ladder));
  SimulationRequest request;
  request.method = "dca";
  request.integrator = "rk4";
  request.step = 1e-3;
  request.t_end = 0.02;
  request.sample = 0.02;
  request.reactions = "none";
  request.threads = 1;
  Trajectory run;
  double wall = 0;
  for (auto _ : st) {
    const auto start = std::chrono::steady_clock::now();
    run = simulateModel(model, request);
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (!run.result.ok) {
    st.SkipWithError(runStatusName(run.result.status));
    return;
  }
  const RunStageSeconds& s = run.result.stage_seconds;
  const double rhs = static_cast<double>(run.result.statistics.rhs_evaluations);
  st.counters["bodies"] = model.nb();
  st.counters["before_run_s"] = wall - run.result.wall_seconds;
  st.counters["start_s"] = s.start;
  st.counters["integration_s"] = s.integration;
  st.counters["watch_s"] = s.watch;
  st.counters["samples_s"] = s.samples + s.projections + s.checks;
  st.counters["rhs"] = rhs;
  st.counters["per_rhs_ratio"] = wall / rhs / bareDcaCall(model);
}

}  // namespace

BENCHMARK(BM_WholeRunLadderDca)->RangeMultiplier(4)->Range(8, 8192)->Iterations(1)->Unit(benchmark::kMillisecond);
