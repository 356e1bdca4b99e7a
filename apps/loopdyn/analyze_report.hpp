#pragma once
/// The report of `loopdyn analyze`: constraint structure (rank, redundancy, singularity) and
/// reaction uniqueness, as text tables for a person or as one JSON object for a program.

#include <optional>
#include <string>
#include <vector>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/dynamics/dca/dca_uniqueness.hpp"
#include "loopdyn/analysis/projective_criterion.hpp"
#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::cli {

struct AnalysisResults {
  std::string path;
  const Model* model = nullptr;
  const AssemblyResult* assembly = nullptr;
  RankReport rank;
  UniquenessReport uniqueness;
  /// With --coordinates relative: the same question answered inside the DCA (paper 000).
  std::optional<DcaUniquenessReport> relative;
  /// Pairs on which that answer differs from `uniqueness` (a defect: the command fails).
  std::vector<std::string> routes_disagree;
  /// With --criterion: the projective criterion (paper 003) at the configuration.
  std::optional<ProjectiveCriterion> criterion;
  /// Components unique at this configuration but not near it on the motion (uniqueOnlyHere).
  std::vector<std::string> unique_only_here;
  /// With --motions: the admissible motions (null C) at the configuration (paper 004, sect. 2.5).
  std::optional<AdmissibleMotions> motions;
  /// With --topology: print the spanning tree, cut joints and assembly tree.
  bool topology = false;
  /// Warnings about how far the answers can be trusted (singular configuration, small margins,
  /// methods that disagree), one sentence each.
  std::vector<std::string> warnings;
};

/// What to compute (the options of `loopdyn analyze`).
struct AnalysisSettings {
  RankOptions rank;                ///< generic_samples (--samples), rank_threshold (--threshold)
  UniquenessOptions uniqueness;    ///< methods (--method), thresholds, extra groups (--group)
  bool criterion = false;          ///< --criterion
  bool motions = false;            ///< --motions
  bool topology = false;           ///< --topology
  bool relative = false;           ///< --coordinates relative
};

/// Up to this many equations (rows of C) `--method auto` runs all four uniqueness tests; above it
/// only qr (each test factorises C again: the Stewart platform's 78 rows took 3.8 s with all four,
/// 0.19 s with qr).
inline constexpr int kAllMethodsEquations = 60;

/// The tests `--method NAME` names: all, rank, qr, svd, nullspace, or auto (see
/// kAllMethodsEquations). An empty list for an unknown name.
std::vector<UniquenessMethod> uniquenessMethods(const Model& model, const std::string& name);

/// Everything `loopdyn analyze` reports, at the assembled state, with the warnings; the same for
/// the command line and the Python module (python/).
AnalysisResults computeAnalysis(const Model& model, const AssemblyResult& assembly, const std::string& path,
                                const AnalysisSettings& settings);

/// Decisions closer than this many decades to their thresholds are reported as warnings.
inline constexpr double kSmallMargin = 2.0;

/// Fills results.warnings from the rank and uniqueness reports.
void collectWarnings(AnalysisResults& results);

std::string analysisText(const AnalysisResults& results);
std::string analysisJson(const AnalysisResults& results);

}  // namespace loopdyn::cli
