// libFuzzer target (issue 22): a model file's text through everything `loopdyn analyze` does with
// it -- parse, compile, assemble, constraint rank and reaction uniqueness -- and, the same bytes,
// through the trajectory reader of `loopdyn inverse` (io/csv_table.hpp), under AddressSanitizer
// and UndefinedBehaviorSanitizer. A model error (ModelError: the file's problems with their lines)
// or a failed assembly is a correct answer; anything else that escapes, a crash, a sanitizer
// finding or an input that takes over a second (scripts/sanitize.sh: -timeout=1) is a defect.
// Run: scripts/sanitize.sh (seeded with models/ and tests/data/; docs/reliability.md).

#include <cstddef>
#include <cstdint>
#include <string>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/common/errors.hpp"
#include "loopdyn/io/csv_table.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopdyn;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    io::parseCsvTable(text, "fuzz.csv");
  } catch (const ModelError&) {
    // the table's problems with their lines: a correct answer
  }
  try {
    const Model model = compile(io::parseModel(text, "fuzz.yaml"));
    KinematicsWorkspace ws(model);
    const AssemblyResult assembly = assemble(model, ws, initialState(model));
    if (!assembly.converged) return 0;
    RankOptions rank_options;
    rank_options.generic_samples = 2;  // (the CLI's 8 find nothing more here, at 4x the time)
    analyzeConstraints(model, ws, assembly.state, rank_options);
    UniquenessOptions uniqueness_options;
    uniqueness_options.methods = {UniquenessMethod::QR};
    analyzeReactionUniqueness(model, ws, assembly.state, uniqueness_options);
  } catch (const ModelError&) {
    // the model's problems, reported with their lines: a correct answer to a broken file
  }
  return 0;
}
