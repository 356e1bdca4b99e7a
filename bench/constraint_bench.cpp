// Constraint evaluation (Phi, C, b, Gamma) and rank analysis on the bundled models.
// Run: build/bench/loopdyn_bench --benchmark_out=bench.json --benchmark_out_format=json

#include <benchmark/benchmark.h>

#include <string>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "bench_models.hpp"

namespace {

using namespace loopdyn;
using bench::Fixture;
using bench::load;

void BM_EvaluateConstraints(benchmark::State& st, const std::string& name) {
  const Fixture f = load(name);
  KinematicsWorkspace ws(f.model);
  for (auto _ : st) {
    evaluateConstraints(f.model, ws, f.state);
    benchmark::DoNotOptimize(ws.Gamma.data());
  }
  st.counters["rows"] = f.model.nc();
}

void BM_RankAtConfiguration(benchmark::State& st, const std::string& name) {
  const Fixture f = load(name);
  KinematicsWorkspace ws(f.model);
  for (auto _ : st) benchmark::DoNotOptimize(analyzeConstraintsAt(f.model, ws, f.state).rank);
}

void BM_FullAnalysis(benchmark::State& st, const std::string& name) {
  const Fixture f = load(name);
  KinematicsWorkspace ws(f.model);
  for (auto _ : st) benchmark::DoNotOptimize(analyzeConstraints(f.model, ws, f.state).generic_rank);
}

}  // namespace

BENCHMARK_CAPTURE(BM_EvaluateConstraints, double_four_bar, std::string("double_four_bar"));
BENCHMARK_CAPTURE(BM_EvaluateConstraints, mobile_robot, std::string("mobile_robot"));
BENCHMARK_CAPTURE(BM_EvaluateConstraints, spatial_parallelogram, std::string("spatial_parallelogram"));
BENCHMARK_CAPTURE(BM_RankAtConfiguration, double_four_bar, std::string("double_four_bar"));
BENCHMARK_CAPTURE(BM_RankAtConfiguration, spatial_parallelogram, std::string("spatial_parallelogram"));
BENCHMARK_CAPTURE(BM_FullAnalysis, double_four_bar_singular, std::string("double_four_bar_singular"));
BENCHMARK_CAPTURE(BM_FullAnalysis, spatial_parallelogram, std::string("spatial_parallelogram"));
