// `loopdyn analyze`: structure of the constraint set at the model's assembled configuration.

#include <cstdio>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/io/json_writer.hpp"
#include "model_loading.hpp"

namespace loopdyn::cli {

namespace {

struct AnalyzeOptions {
  std::string model_path;
  bool json = false;
  int samples = RankOptions{}.generic_samples;
  Scalar threshold = kRankThreshold;
};

std::string joinNames(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string formatNumber(Scalar x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

void printText(const std::string& path, const Model& model, const AssemblyResult& assembly, const RankReport& r) {
  std::ostringstream os;
  os << "model        " << (model.name().empty() ? path : model.name()) << " (" << model.dimension() << "D, "
     << path << ")\n";
  if (!model.description().empty()) os << "             " << model.description() << '\n';
  os << "size         " << r.bodies << " bodies, n = " << r.n << " velocity coordinates, m = " << r.m
     << " holonomic equations (" << r.drivers << " from drivers), h = " << r.h << " nonholonomic\n";
  os << "assembly     converged in " << assembly.iterations << " Newton iterations, relative residual "
     << formatNumber(assembly.position_residual) << '\n';
  os << "rank         C: " << r.rank << "    Phi_q: " << r.rank_holonomic << " of " << r.m;
  if (r.h > 0) os << "    Psi: " << r.rank_nonholonomic << " of " << r.h;
  os << "\n";
  os << "redundancy   p = m + h - rank = " << r.redundancy << '\n';
  os << "mobility     n - rank = " << r.mobility << "    (Grubler/Kutzbach count n - m - h = " << r.grubler << ")\n";
  if (r.generic_rank < 0) {
    os << "singular     not tested\n";
  } else if (r.singular) {
    os << "singular     YES: rank " << r.rank << " here, generic rank " << r.generic_rank << " -> "
       << r.generic_rank - r.rank << " extra admissible motion(s) at this configuration\n";
  } else if (r.generic_samples_used == 0) {
    os << "singular     no nearby configuration could be sampled (the mechanism cannot move, or no sample\n"
       << "             assembled): generic rank taken as the rank here\n";
  } else {
    os << "singular     no (generic rank " << r.generic_rank << ", from " << r.generic_samples_used
       << " nearby assembled configurations)\n";
  }
  os << "dependent    " << joinNames(equationNames(model, r.dependent_equations))
     << "    (QR with column pivoting of C^T; threshold " << formatNumber(r.rank_threshold) << ")\n";
  os << "\nQR pivot order: equation and scaled diagonal |R_kk|/|R_11|\n";
  const std::vector<int>& kept = r.independent_equations;
  std::vector<int> order = kept;
  order.insert(order.end(), r.dependent_equations.begin(), r.dependent_equations.end());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::string& name = model.equations()[static_cast<std::size_t>(order[k])].name;
    char line[128];
    const std::string value = k < r.scaled_diagonal.size() ? formatNumber(r.scaled_diagonal[k]) : "-";
    std::snprintf(line, sizeof line, "  %3zu  %-16s %-10s %s\n", k + 1, name.c_str(), value.c_str(),
                  k < kept.size() ? "kept" : "dependent");
    os << line;
  }
  std::cout << os.str();
}

void printJson(const std::string& path, const Model& model, const AssemblyResult& assembly, const RankReport& r) {
  io::JsonWriter w;
  w.beginObject();
  w.key("model").value(model.name());
  w.key("file").value(path);
  w.key("dimension").value(model.dimension());
  w.key("bodies").value(r.bodies);
  w.key("n").value(r.n);
  w.key("m").value(r.m);
  w.key("h").value(r.h);
  w.key("drivers").value(r.drivers);
  w.key("rank").value(r.rank);
  w.key("rank_holonomic").value(r.rank_holonomic);
  w.key("rank_nonholonomic").value(r.rank_nonholonomic);
  w.key("redundancy").value(r.redundancy);
  w.key("mobility").value(r.mobility);
  w.key("grubler").value(r.grubler);
  w.key("singular").value(r.singular);
  w.key("generic_rank").value(r.generic_rank);
  w.key("dependent_equations").array(equationNames(model, r.dependent_equations));
  w.key("independent_equations").array(equationNames(model, r.independent_equations));
  w.key("scaled_diagonal").array(r.scaled_diagonal);
  w.key("rank_threshold").value(r.rank_threshold);
  w.key("characteristic_length").value(model.characteristicLength());
  w.key("assembly").beginObject();
  w.key("iterations").value(assembly.iterations);
  w.key("position_residual").value(assembly.position_residual);
  w.key("velocity_residual").value(assembly.velocity_residual);
  w.endObject();
  w.endObject();
  std::cout << w.str() << '\n';
}

void runAnalyze(const AnalyzeOptions& options, int& exit_code) {
  auto loaded = loadAndAssemble(options.model_path, exit_code);
  if (!loaded) return;
  KinematicsWorkspace ws(loaded->model);
  RankOptions rank_options;
  rank_options.generic_samples = options.samples;
  rank_options.rank_threshold = options.threshold;
  const RankReport report = analyzeConstraints(loaded->model, ws, loaded->assembly.state, rank_options);
  if (options.json) {
    printJson(options.model_path, loaded->model, loaded->assembly, report);
  } else {
    printText(options.model_path, loaded->model, loaded->assembly, report);
  }
  exit_code = kExitOk;
}

}  // namespace

void addAnalyzeCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze", "Constraint rank, redundancy, mobility and singularity of a model at its assembled configuration");
  cmd->add_option("model", options->model_path, "Model file (YAML)")->required();
  cmd->add_flag("--json", options->json, "Print the report as one JSON object");
  cmd->add_option("--samples", options->samples,
                  "Nearby configurations sampled to find the generic rank (0: skip the singularity test)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--threshold", options->threshold, "Relative rank threshold on |R_kk|/|R_11|")
      ->check(CLI::PositiveNumber);
  cmd->callback([options, &exit_code] { runAnalyze(*options, exit_code); });
}

}  // namespace loopdyn::cli
