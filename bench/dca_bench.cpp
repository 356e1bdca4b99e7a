// The divide-and-conquer algorithm (issue 16): one forward-dynamics call -- from joint coordinates
// and velocities to joint accelerations and every joint's reaction (tree pass, applied forces,
// DCA main pass and back-substitution, joint accelerations) -- on the spatial revolute
// chain (n = 4 ... 4096 bodies) and on A02-style ladders of N four-bar loops (N = 1 ... 256), and
// the same models' right-hand side as the simulation calls it (with the dense constraint
// evaluation its checks read). Targets (docs/performance.md): <= 200 ns per body on the chain,
// <= 40 us at N = 64 and <= 150 us at N = 256 on the ladder.
// The HDCA's right-hand side (issue 18) on the same models, on 1 and 2 threads, beside the DCA's.
// Run: build/bench/loopdyn_bench --benchmark_filter=Dca

#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "loopdyn/dynamics/dca/dca.hpp"
#include "loopdyn/dynamics/dca/hdca.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "test_models.hpp"

namespace {

using namespace loopdyn;

/// Issue 16's chain (test_models.hpp: its accelerations are checked in tests/dynamics/dca/dca_test.cpp).
Model spatialChain(int n) { return compile(test::spatialChainSpec(n)); }

State chainState(const Model&, const TreeKinematics& tree) { return test::spatialChainState(tree); }

Model ladder(int loops) {
  test::LadderOptions options;
  options.loops = loops;
  return compile(test::fourBarLadderSpec(options));
}

/// The assembled initial state; past the dense size limit the written one (its rectangles are
/// exact; the velocities of the tree as the written ones give them by least squares), since
/// assembly is dense.
State ladderState(const Model& model, const TreeKinematics& tree) {
  State x = initialState(model);
  if (model.nv() <= kLargestDenseSize) {
    KinematicsWorkspace kin(model);
    x = assemble(model, kin, x).state;
  }
  tree.relativeState(x, x.q_r, x.v_r);
  tree.absoluteState(x.q_r, x.v_r, x.t, x);
  return x;
}

/// One forward-dynamics call (DcaFormulation::forwardDynamics) at x, per iteration.
void forwardDynamics(benchmark::State& st, const Model& model, const State& x, int threads = 1) {
  const DcaFormulation dca(model, threads);
  DynamicsWorkspace ws(model);
  const VecX none;
  for (auto _ : st) {
    dca.forwardDynamics(model, ws, x, none);
    benchmark::DoNotOptimize(ws.a_r.data());
  }
  st.counters["bodies"] = model.nb();
  // seconds per body and call
  st.counters["per_body"] = benchmark::Counter(static_cast<double>(st.iterations()) * model.nb(),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_DcaChain(benchmark::State& st) {
  const Model model = spatialChain(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  forwardDynamics(st, model, chainState(model, tree));
}

void BM_DcaLadder(benchmark::State& st) {
  const Model model = ladder(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  forwardDynamics(st, model, ladderState(model, tree));
}

/// The same on `threads` threads (issue 18): arguments (bodies or loops, threads).
void BM_DcaChainThreads(benchmark::State& st) {
  const Model model = spatialChain(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  forwardDynamics(st, model, chainState(model, tree), static_cast<int>(st.range(1)));
}

void BM_DcaLadderThreads(benchmark::State& st) {
  const Model model = ladder(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  forwardDynamics(st, model, ladderState(model, tree), static_cast<int>(st.range(1)));
}

/// The DCA's right-hand side as the simulation evaluates it (Formulation::evaluate: the forward
/// dynamics and the dense constraint evaluation its checks read) at x's joint velocities.
void dcaRhs(benchmark::State& st, const Model& model, State x, int threads = 1) {
  const DcaFormulation dca(model, threads);
  DynamicsWorkspace ws(model);
  VecX du(dca.tree().nv());
  const VecX u = x.v_r;
  for (auto _ : st) {
    dca.evaluate(model, ws, x, u, du, Evaluation{});
    benchmark::DoNotOptimize(du.data());
  }
  st.counters["bodies"] = model.nb();
}

void BM_DcaLadderSimulationRhs(benchmark::State& st) {
  const Model model = ladder(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  dcaRhs(st, model, ladderState(model, tree));
}

/// One HDCA right-hand side (issue 18; HdcaFormulation::evaluate: velocity level by the assembly,
/// momentum rates, the constraints' evaluation the simulation's checks read) at x's momenta.
void hdcaRhs(benchmark::State& st, const Model& model, State x, int threads = 1) {
  HdcaFormulation hdca(model, threads);
  DynamicsWorkspace ws(model);
  VecX p(hdca.tree().nv()), pdot(hdca.tree().nv());
  if (const Problem problem = hdca.start(model, ws, x, p); !problem.empty()) {
    st.SkipWithError(problemText(problem).c_str());
    return;
  }
  for (auto _ : st) {
    hdca.evaluate(model, ws, x, p, pdot, Evaluation{});
    benchmark::DoNotOptimize(pdot.data());
  }
  st.counters["bodies"] = model.nb();
  st.counters["per_body"] = benchmark::Counter(static_cast<double>(st.iterations()) * model.nb(),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_HdcaChainThreads(benchmark::State& st) {
  const Model model = spatialChain(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  hdcaRhs(st, model, chainState(model, tree), static_cast<int>(st.range(1)));
}

void BM_HdcaLadderThreads(benchmark::State& st) {
  const Model model = ladder(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  hdcaRhs(st, model, ladderState(model, tree), static_cast<int>(st.range(1)));
}

/// The DCA's right-hand side on the same terms, for the ratio.
void BM_DcaChainRhsThreads(benchmark::State& st) {
  const Model model = spatialChain(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  dcaRhs(st, model, chainState(model, tree), static_cast<int>(st.range(1)));
}

}  // namespace

// (up to 512 bodies: models beyond 6000 coordinates are refused while the simulation keeps dense
// constraint matrices, model/compile)
BENCHMARK(BM_DcaChain)->RangeMultiplier(4)->Range(4, 4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DcaLadder)->RangeMultiplier(4)->Range(1, 256)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DcaChainThreads)->ArgsProduct({{128, 512}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_DcaLadderThreads)->ArgsProduct({{64, 256}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_DcaLadderSimulationRhs)->RangeMultiplier(4)->Range(1, 256)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DcaChainThreads)->ArgsProduct({{1024, 4096, 16384, 65536}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime()->Name("BM_DcaLongChainThreads");
BENCHMARK(BM_HdcaChainThreads)->ArgsProduct({{1024, 4096, 16384, 65536}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime()->Name("BM_HdcaLongChainThreads");
BENCHMARK(BM_HdcaChainThreads)->ArgsProduct({{8, 128, 512}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_DcaChainRhsThreads)->ArgsProduct({{8, 128, 512}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_DcaLadderThreads)->ArgsProduct({{1024, 4096}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime()->Name("BM_DcaLongLadderThreads");
BENCHMARK(BM_HdcaLadderThreads)->ArgsProduct({{1024, 4096}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime()->Name("BM_HdcaLongLadderThreads");
BENCHMARK(BM_HdcaLadderThreads)->ArgsProduct({{1, 64, 256}, {1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime();
