// Reaction-uniqueness analysis on the bundled models, per method and with all four, and on a
// ladder of spatial four-bar loops of growing size (dense factorisations).

#include <benchmark/benchmark.h>

#include <numbers>
#include <string>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "bench_models.hpp"

namespace {

using namespace loopdyn;
using bench::Fixture;
using bench::load;

void run(benchmark::State& st, const std::string& name, std::vector<UniquenessMethod> methods) {
  const Fixture f = load(name);
  KinematicsWorkspace ws(f.model);
  UniquenessOptions options;
  options.methods = std::move(methods);
  for (auto _ : st) benchmark::DoNotOptimize(analyzeReactionUniqueness(f.model, ws, f.state, options).rank);
  st.counters["rows"] = f.model.nc();
  st.counters["pairs"] = static_cast<double>(f.model.pairs().size());
}

void BM_UniquenessAllMethods(benchmark::State& st, const std::string& name) {
  run(st, name, UniquenessOptions{}.methods);
}

void BM_UniquenessOneMethod(benchmark::State& st, const std::string& name, UniquenessMethod method) {
  run(st, name, {method});
}

/// A ladder of st.range(0) spatial four-bar loops (parallel revolutes, rungs shared by adjacent
/// loops): redundant in 3D, 2 self-equilibrated sets per loop. Shows how the cost grows with size.
void ladder(benchmark::State& st, std::vector<UniquenessMethod> methods) {
  const int loops = static_cast<int>(st.range(0));
  ModelSpec spec;
  spec.name = "ladder";
  spec.dimension = 3;
  auto marker = [](const std::string& name, Scalar x) {
    return MarkerSpec{name, Vec3(x, 0, 0), Mat3::Identity(), {}};
  };
  // rungs: horizontal bars at heights k; rails: vertical bars between rungs at x = 0 and x = 1
  for (int k = 0; k < loops; ++k) {
    for (int side = 0; side < 2; ++side) {
      BodySpec rail;
      rail.name = "rail" + std::to_string(k) + "_" + std::to_string(side);
      rail.mass = 1;
      rail.inertia = Mat3::Identity() * 0.1;
      rail.position = Vec3(side, k + 0.5, 0);
      rail.orientation = Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ()).toRotationMatrix();
      rail.markers = {marker("lo", -0.5), marker("hi", 0.5)};
      spec.bodies.push_back(rail);
    }
    BodySpec rung;
    rung.name = "rung" + std::to_string(k + 1);
    rung.mass = 1;
    rung.inertia = Mat3::Identity() * 0.1;
    rung.position = Vec3(0.5, k + 1, 0);
    rung.markers = {marker("l", -0.5), marker("r", 0.5)};
    spec.bodies.push_back(rung);
  }
  spec.ground_markers = {marker("l", 0), marker("r", 1)};
  for (int k = 0; k < loops; ++k) {
    const std::string below = k == 0 ? "ground" : "rung" + std::to_string(k);
    const std::string above = "rung" + std::to_string(k + 1), r0 = "rail" + std::to_string(k) + "_0",
                      r1 = "rail" + std::to_string(k) + "_1";
    auto revolute = [&](const std::string& name, const std::string& a, const std::string& am, const std::string& b,
                        const std::string& bm) {
      spec.joints.push_back({name, JointType::Revolute, {a, am, {}}, {b, bm, {}}, 0, {}, {}});
    };
    revolute("L" + std::to_string(k), below, "l", r0, "lo");
    revolute("R" + std::to_string(k), below, "r", r1, "lo");
    revolute("U" + std::to_string(k), r0, "hi", above, "l");
    revolute("V" + std::to_string(k), r1, "hi", above, "r");
  }
  const Model model = compile(spec);
  KinematicsWorkspace ws(model);
  const State x = initialState(model);
  UniquenessOptions options;
  options.methods = std::move(methods);
  for (auto _ : st) benchmark::DoNotOptimize(analyzeReactionUniqueness(model, ws, x, options).rank);
  st.counters["rows"] = model.nc();
  st.counters["n"] = model.nv();
}

void BM_UniquenessLadderAllMethods(benchmark::State& st) { ladder(st, UniquenessOptions{}.methods); }
void BM_UniquenessLadderQR(benchmark::State& st) { ladder(st, {UniquenessMethod::QR}); }

}  // namespace

BENCHMARK_CAPTURE(BM_UniquenessAllMethods, mobile_robot, std::string("mobile_robot"));
BENCHMARK_CAPTURE(BM_UniquenessAllMethods, four_bar_spatial, std::string("four_bar_spatial"));
BENCHMARK_CAPTURE(BM_UniquenessAllMethods, spatial_parallelogram, std::string("spatial_parallelogram"));
BENCHMARK_CAPTURE(BM_UniquenessOneMethod, parallelogram_rank, std::string("spatial_parallelogram"),
                  UniquenessMethod::Rank);
BENCHMARK_CAPTURE(BM_UniquenessOneMethod, parallelogram_qr, std::string("spatial_parallelogram"),
                  UniquenessMethod::QR);
BENCHMARK_CAPTURE(BM_UniquenessOneMethod, parallelogram_svd, std::string("spatial_parallelogram"),
                  UniquenessMethod::SVD);
BENCHMARK_CAPTURE(BM_UniquenessOneMethod, parallelogram_nullspace, std::string("spatial_parallelogram"),
                  UniquenessMethod::Nullspace);
BENCHMARK(BM_UniquenessLadderAllMethods)->RangeMultiplier(2)->Range(1, 16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UniquenessLadderQR)->RangeMultiplier(2)->Range(1, 64)->Unit(benchmark::kMillisecond);
