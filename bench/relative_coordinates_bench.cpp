// Relative coordinates' baseline (issue 15): one forward-dynamics evaluation of an open chain in
// joint coordinates (dense Kane equations, tree_dynamics.hpp) against the absolute lagrange
// formulation's right-hand side, on planar revolute chains of N bodies; and relative Lagrange with
// cut joints (lagrange.hpp in joint coordinates) against absolute lagrange on ladders of N four-bar loops.
// Both relative ones form J densely: O(n^2) memory, O(n^3) time -- what the recursive (DCA)
// formulations of the next issues are measured against. docs/performance.md has the table.
// and every bundled model's right-hand side in both coordinates (BM_ModelRhs).
// Run: build/bench/loopdyn_bench --benchmark_filter='Chain|Ladder(Abs|Rel)|ModelRhs'

#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "loopdyn/sim/formulation_choice.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/dynamics/tree_dynamics.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "test_models.hpp"

namespace {

using namespace loopdyn;

Model chain(int bodies) {
  test::RandomMechanismOptions options;
  options.bodies = bodies;
  options.serial = true;
  options.tree_types = {JointType::Revolute};
  std::mt19937 rng(1);
  return compile(test::randomMechanismSpec(2, rng, options));
}

Model ladder(int loops) {
  test::LadderOptions options;
  options.loops = loops;
  return compile(test::fourBarLadderSpec(options));
}

/// One right-hand side of the lagrange formulation in `coordinates` at the model's assembled state.
void rhs(benchmark::State& st, const Model& model, const std::string& coordinates) {
  KinematicsWorkspace kin(model);
  const State x0 = assemble(model, kin, initialState(model)).state;
  FormulationChoice choice;
  choice.method = "lagrange";
  choice.coordinates = coordinates;
  BuiltFormulation built = buildFormulation(model, x0, choice);
  if (!built.formulation) {
    st.SkipWithError(built.problem.c_str());
    return;
  }
  DynamicsWorkspace ws(model);
  VecX u(built.formulation->velocityStateSize(model)), du(u.size());
  built.formulation->start(model, ws, x0, u);
  const std::unique_ptr<Coordinates> map = built.formulation->coordinates(model);
  State x = x0;
  VecX p(map->size());
  map->fromState(x, p);
  for (auto _ : st) {
    map->toState(0, p, x, false);
    built.formulation->evaluate(model, ws, x, u, du, Evaluation{});
    benchmark::DoNotOptimize(du.data());
  }
  st.counters["n"] = static_cast<double>(u.size());
  st.counters["bodies"] = model.nb();
}

void absoluteRhs(benchmark::State& st, const Model& model) { rhs(st, model, "absolute"); }

/// An open chain's state from the joint coordinates of its written one: exact on the joints,
/// without the dense assembly (an n^3 start at 1024 bodies).
State chainState(const Model& model, const TreeKinematics& tree) {
  State x = initialState(model);
  tree.relativeState(x, x.q_r, x.v_r);
  tree.absoluteState(x.q_r, x.v_r, x.t, x);
  return x;
}

/// The absolute lagrange formulation's right-hand side on a chain, without the generic-rank
/// analysis buildFormulation runs (dense: minutes at 1024 bodies; an open chain has no redundancy).
void BM_ChainAbsoluteLagrange(benchmark::State& st) {
  const Model model = chain(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  State x = chainState(model, tree);
  const LagrangeFormulation lagrange(model);
  DynamicsWorkspace ws(model);
  const VecX u = x.v;
  VecX du(u.size());
  for (auto _ : st) {
    lagrange.evaluate(model, ws, x, u, du, Evaluation{});
    benchmark::DoNotOptimize(du.data());
  }
  st.counters["n"] = static_cast<double>(u.size());
  st.counters["bodies"] = model.nb();
}

void BM_ChainRelativeKane(benchmark::State& st) {
  const Model model = chain(static_cast<int>(st.range(0)));
  const TreeKinematics tree(model);
  const State x = chainState(model, tree);
  const VecX q = x.q_r, v = x.v_r;
  VecX a;
  for (auto _ : st) {
    treeForwardDynamics(model, tree, 0, q, v, a);
    benchmark::DoNotOptimize(a.data());
  }
  st.counters["n"] = tree.nv();
  st.counters["bodies"] = model.nb();
}

void BM_LadderAbsoluteLagrange(benchmark::State& st) { absoluteRhs(st, ladder(static_cast<int>(st.range(0)))); }

void BM_LadderRelativeLagrange(benchmark::State& st) { rhs(st, ladder(static_cast<int>(st.range(0))), "relative"); }

/// Every bundled model's right-hand side in absolute and in relative coordinates.
void registerBundledModels() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(LOOPDYN_MODELS_DIR))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files)
    for (const char* coordinates : {"absolute", "relative"}) {
      const std::string name = "BM_ModelRhs/" + file.stem().string() + "/" + coordinates;
      benchmark::RegisterBenchmark(name.c_str(), [file, coordinates](benchmark::State& st) {
        const Model model = compile(io::readModelFile(file.string()));
        rhs(st, model, coordinates);
      })->Unit(benchmark::kMicrosecond);
    }
}

const bool registered = (registerBundledModels(), true);

}  // namespace

BENCHMARK(BM_ChainAbsoluteLagrange)->RangeMultiplier(4)->Range(4, 1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ChainRelativeKane)->RangeMultiplier(4)->Range(4, 1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LadderAbsoluteLagrange)->RangeMultiplier(4)->Range(1, 256)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LadderRelativeLagrange)->RangeMultiplier(4)->Range(1, 256)->Unit(benchmark::kMicrosecond);
