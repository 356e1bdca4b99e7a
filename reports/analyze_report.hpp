#pragma once
/// The report of `loopdyn analyze`: constraint structure (rank, redundancy, singularity) and
/// reaction uniqueness, as text tables for a person or as one JSON object for a program.

#include <optional>
#include <string>
#include <vector>

#include "loopdyn/actuation_analysis.hpp"
#include "loopdyn/criterion_sweep.hpp"
#include "loopdyn/loopdyn.hpp"
#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/dynamics/dca/dca_uniqueness.hpp"
#include "loopdyn/analysis/projective_criterion.hpp"
#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/io/tree_writer.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::reports {

/// The library's analysis (loopdyn.hpp) with what the report adds: the file, the model, the
/// topology flag and the cautions in words.
struct AnalysisResults : Analysis {
  std::string path;
  const Model* model = nullptr;
  /// With --topology: print the spanning tree, cut joints and assembly tree.
  bool topology = false;
  /// With --sweep: the projective criterion over a driven sweep (loopdyn/criterion_sweep.hpp).
  std::optional<CriterionSweep> sweep;
  /// With --actuators: the actuation at the pose (and along --sweep: loopdyn/actuation_analysis.hpp).
  std::optional<ActuationReport> actuation;
  SweepRequest actuation_sweep;
  /// The cautions (Analysis::cautions) as sentences, one each.
  std::vector<std::string> warnings;
};

/// What to compute (the options of `loopdyn analyze`).
struct AnalysisSettings : AnalysisRequest {
  bool topology = false;  ///< --topology
};

/// Everything `loopdyn analyze` reports, at the assembled state (analyzeAt), with the warnings;
/// the same for the command line and the Python module (python/).
AnalysisResults computeAnalysis(const Model& model, const AssemblyResult& assembly, const std::string& path,
                                const AnalysisSettings& settings);

/// The sentence of a caution (the command line's and the Python module's words).
std::string cautionText(const AnalysisCaution& caution);

std::string analysisText(const AnalysisResults& results);
/// The report as one object (the keys of docs/analysis.md), to any writer: JSON text, Python objects.
void writeAnalysis(io::TreeWriter& w, const AnalysisResults& results);
/// writeAnalysis as indented JSON text, ending in a newline (`loopdyn analyze --json`).
std::string analysisJson(const AnalysisResults& results);

}  // namespace loopdyn::reports
