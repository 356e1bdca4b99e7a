// libFuzzer target (issue 45): a model file's text through everything `loopdyn simulate` does
// with it -- parse, compile, assemble, choose the formulation, mark the unique columns, and a short
// run with a step budget -- under AddressSanitizer and UndefinedBehaviorSanitizer. The input's
// first four bytes choose the request: method, coordinates, reactions, threads, integrator and
// column groups; the rest is the model.
//
// Correct answers: a model error (ModelError, with its lines), a refused request
// (InvalidArgument: a formulation that cannot start there), a failed assembly or run (a status
// with its reason). Defects: a crash, a sanitizer finding, anything else escaping, an input that
// takes over the -timeout, and a run that says it completed without every sample or with a
// non-finite value in one (issue 45: exit 0 with one CSV row of 21).
// Run: scripts/sanitize.sh (seeded from models/ and tests/data/; docs/reliability.md).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "loopdyn/common/errors.hpp"
#include "loopdyn/loopdyn.hpp"

namespace {

constexpr const char* kMethods[] = {"lagrange", "elimination", "partitioning", "projection", "dca", "hdca"};
constexpr const char* kReactions[] = {"all", "world", "joint", "none"};
constexpr const char* kIntegrators[] = {"dopri5", "bs23", "adams", "dop853", "rk4"};
constexpr const char* kGroups[] = {"bodies", "energy", "violation", "coordinates", "joints", "points", "reactions",
                                   "efforts"};

/// The request the first four bytes choose (a short run: 0.1 s, 6 samples, at most 2000 steps).
loopdyn::SimulationRequest requestFrom(const std::uint8_t* b) {
  loopdyn::SimulationRequest r;
  r.t_end = 0.1;
  r.sample = 0.02;
  r.max_steps = 2000;
  r.step = 1e-3;
  r.method = kMethods[b[0] % 6];
  r.coordinates = (b[1] & 1) != 0 ? "relative" : "absolute";
  r.reactions = kReactions[(b[1] >> 1) % 4];
  r.threads = (b[1] & 8) != 0 ? 2 : 1;
  r.integrator = kIntegrators[b[2] % 5];
  if (b[3] != 0) {
    r.columns.clear();
    for (int g = 0; g < 8; ++g)
      if ((b[3] >> g) & 1) r.columns.push_back(kGroups[g]);
  }
  return r;
}

[[noreturn]] void defect(const char* what, const loopdyn::Trajectory& run) {
  std::fprintf(stderr, "simulate_fuzzer: %s (%ld rows, %s)\n", what, static_cast<long>(run.values.rows()),
               run.formulation.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopdyn;
  if (size < 4) return 0;
  const SimulationRequest request = requestFrom(data);
  const std::string text(reinterpret_cast<const char*>(data) + 4, size - 4);
  try {
    const Model model = modelFromYaml(text, "fuzz.yaml");
    const Trajectory run = simulateModel(model, request);
    if (!run.result.ok) {
      const RunFailure& f = run.result.failure;
      if (f.reason == RunFailure::Reason::None || (f.reason == RunFailure::Reason::Problem && f.detail.empty()) ||
          (f.reason == RunFailure::Reason::ProblemAt && f.problem.empty()))
        defect("a failed run without a reason", run);
      return 0;
    }
    if (run.values.rows() != 6) defect("a completed run without every sample", run);
    if (!run.values.allFinite()) defect("a completed run with a non-finite value", run);
  } catch (const ModelError&) {
    // the model's problems, reported with their lines: a correct answer to a broken file
  } catch (const InvalidArgument&) {
    // a request this model cannot run (elimination at a singular start, a model too large, ...)
  }
  return 0;
}
