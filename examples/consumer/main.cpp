// Load a model, analyze it and simulate it through loopdyn's facade (include/loopdyn/loopdyn.hpp).
//   consumer MODEL.yaml [T_END]
// Prints the constraint structure, which joint reactions are unique, and how the run went; exits 1
// when the run failed.

#include <loopdyn/loopdyn.hpp>

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: consumer MODEL.yaml [T_END]\n";
    return 2;
  }
  try {
    const loopdyn::Model model = loopdyn::loadModel(argv[1]);
    const loopdyn::Analysis analysis = loopdyn::analyze(model);
    if (!analysis.assembly.converged) {
      std::cerr << analysis.assembly.message << '\n';
      return 1;
    }
    std::cout << "loopdyn " << loopdyn::version() << ": " << model.name() << ", n = " << analysis.rank.n
              << ", rank " << analysis.rank.rank << ", redundancy " << analysis.rank.redundancy << '\n';
    for (const loopdyn::PairUniqueness& p : analysis.uniqueness.pairs)
      std::cout << "  " << model.pairs()[static_cast<std::size_t>(p.pair)].name << ": "
                << (p.reaction.unique() ? "unique" : "NOT unique") << '\n';

    loopdyn::SimulationRequest request;
    request.t_end = argc > 2 ? std::atof(argv[2]) : 1.0;
    const loopdyn::Trajectory run = loopdyn::simulateModel(model, request);
    std::cout << run.formulation << ": " << run.values.rows() << " samples x " << run.columns.size()
              << " columns, energy drift " << run.result.energy_drift_max << " J"
              << (run.result.ok ? "" : ", FAILED: ");
    if (!run.result.ok) std::cout << run.result.failure;  // (its fields; the CLI's sentence: reports/)
    std::cout << '\n';
    return run.result.ok ? 0 : 1;
  } catch (const loopdyn::ModelError& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
}
