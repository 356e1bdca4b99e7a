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

/// Issue 16's chain: joint i about local z (even i) or local y (odd i), at (1, 0, 0) in its
/// parent's link frame (joint 0 at the origin); each body 1 kg, centre of mass at (0.5, 0, 0) of
/// its link frame, the given inertia about it; gravity (0, 0, -9.81); efforts 0.1 sin(2.3 j).
Model spatialChain(int n) {
  // (past 857 bodies the model exceeds compile's dense size limit: nothing dense is built here)
  ModelSpec spec;
  spec.name = "spatial_chain";
  spec.dimension = 3;
  spec.gravity = Vec3(0, 0, -9.81);
  Mat3 inertia;
  inertia << 0.02, 0.001, 0.002, 0.001, 0.09, 0.003, 0.002, 0.003, 0.085;
  Mat3 about_y;  // marker axes turning its z onto the body's y
  about_y << 1, 0, 0, 0, 0, -1, 0, 1, 0;
  const auto axis = [&](int j) { return j % 2 == 0 ? Mat3::Identity() : about_y; };
  spec.ground_markers.push_back({"o", Vec3::Zero(), axis(0), {}, 0});
  for (int i = 0; i < n; ++i) {
    BodySpec body;
    body.name = "b" + std::to_string(i);
    body.mass = 1;
    body.inertia = inertia;
    body.position = Vec3(i + 0.5, 0, 0);
    body.markers.push_back({"in", Vec3(-0.5, 0, 0), axis(i), {}, 0});
    body.markers.push_back({"out", Vec3(0.5, 0, 0), axis(i + 1), {}, 0});
    spec.bodies.push_back(body);
    JointSpec joint;
    joint.name = "j" + std::to_string(i);
    joint.first = i == 0 ? MarkerRef{"ground", "o", {}} : MarkerRef{"b" + std::to_string(i - 1), "out", {}};
    joint.second = {body.name, "in", {}};
    spec.joints.push_back(joint);
    ForceSpec effort;
    effort.name = "tau" + std::to_string(i);
    effort.type = ForceType::JointEffort;
    effort.joint = joint.name;
    effort.profile = Profile::constant(0.1 * std::sin(2.3 * i));
    spec.forces.push_back(effort);
  }
  return compile(spec);
}

/// The state of joint coordinates q_j = 0.3 sin(1.7 j + 0.4), rates 0.5 cos(0.9 j).
State chainState(const Model& model, const TreeKinematics& tree) {
  State x;
  x.q_r.resize(tree.nq());
  x.v_r.resize(tree.nv());
  for (Eigen::Index j = 0; j < x.q_r.size(); ++j) {
    x.q_r(j) = 0.3 * std::sin(1.7 * static_cast<Scalar>(j) + 0.4);
    x.v_r(j) = 0.5 * std::cos(0.9 * static_cast<Scalar>(j));
  }
  tree.absoluteState(x.q_r, x.v_r, 0, x);
  (void)model;
  return x;
}

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
  if (const std::string problem = hdca.start(model, ws, x, p); !problem.empty()) {
    st.SkipWithError(problem.c_str());
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
