#pragma once
/// loopdyn's public facade: load a model, analyze it, simulate it, in a few calls -- for programs
/// that use loopdyn as a library (`find_package(loopdyn)` or `pkg-config loopdyn`). The layers
/// below (model, kinematics, analysis, dynamics, sim, io) stay available for everything else; this
/// header includes the ones its results are made of.
///
///   const loopdyn::Model model = loopdyn::loadModel("double_four_bar.yaml");
///   const loopdyn::Analysis a = loopdyn::analyze(model);          // rank, redundancy, uniqueness
///   loopdyn::SimulationRequest request;
///   request.t_end = 10;
///   const loopdyn::Trajectory run = loopdyn::simulateModel(model, request);
///   // run.columns: the CLI's CSV column names; run.values: one row per sample

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/analysis/projective_criterion.hpp"
#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/common/errors.hpp"
#include "loopdyn/dynamics/dca/dca_uniqueness.hpp"
#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/inverse.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/model/model.hpp"
#include "loopdyn/sim/sample_columns.hpp"
#include "loopdyn/sim/simulation.hpp"

namespace loopdyn {

/// loopdyn's version, "MAJOR.MINOR.PATCH".
const char* version();

/// Reads and compiles a model file. Throws ModelError with every problem as file:line:col.
Model loadModel(const std::string& path);
/// The same from YAML text; `file_name` names it in the messages.
Model modelFromYaml(const std::string& text, const std::string& file_name = "<yaml>");

/// What `loopdyn analyze` is asked (its options of the same names).
struct AnalysisRequest {
  RankOptions rank;              ///< generic_samples (--samples), rank_threshold (--threshold)
  UniquenessOptions uniqueness;  ///< methods (--method), thresholds, extra groups (--group)
  bool criterion = false;        ///< also the projective criterion (paper 003) at the configuration
  bool motions = false;          ///< also the admissible motions (null C, paper 004, sect. 2.5)
  bool relative = false;         ///< also the uniqueness inside the DCA (paper 000), checked against the rest
};

/// Up to this many equations (rows of C) uniquenessMethods("auto") runs all four uniqueness tests;
/// above it only qr (each test factorises C again: the Stewart platform's 78 rows took 3.8 s with
/// all four, 0.19 s with qr).
inline constexpr int kAllMethodsEquations = 60;
/// The tests a method name asks for: all, rank, qr, svd, nullspace, or auto (see
/// kAllMethodsEquations). Empty for an unknown name.
std::vector<UniquenessMethod> uniquenessMethods(const Model& model, const std::string& name);

/// Decisions closer than this many decades to their thresholds are cautions.
inline constexpr double kSmallMargin = 2.0;

/// Why an analysis's answers cannot be trusted as they stand: a code with its fields (the words
/// are the front ends').
struct AnalysisCaution {
  enum class Kind {
    SingularConfiguration,      ///< rank below the generic rank: the answers hold here only (rank, generic_rank)
    MethodsDisagreeNearThreshold,  ///< the uniqueness methods disagree, a decision near its threshold
    MethodsDisagree,            ///< ... although every decision is clear-cut (margin): a defect
    RoutesDisagree,             ///< the DCA route answers differently for `names`: a defect
    GroundTestsNearThreshold,   ///< the DCA's tests on G decide within `margin` decades
    DcaStepsContradictNullSpace,   ///< a step of paper 000's algorithm contradicts the null space: a defect
    UniqueOnlyHere,             ///< `names` unique at this configuration only, not near it on the motion
    PairNearThreshold,          ///< pair names[0]'s decision within `margin` decades of its threshold
    GroupNearThreshold,         ///< group names[0]'s decision within `margin` decades
  };
  Kind kind = Kind::SingularConfiguration;
  std::vector<std::string> names;
  double margin = 0;
  int rank = 0, generic_rank = 0;
};

/// What `loopdyn analyze` computes: the assembled state, the constraint structure (rank,
/// redundancy, mobility, singularity: analysis/constraint_rank.hpp), the joint-reaction uniqueness
/// (analysis/reaction_uniqueness.hpp) and what the request adds, with the cautions. When assembly
/// fails (assembly.converged false, assembly.message says why) the reports are left empty.
struct Analysis {
  AssemblyResult assembly;
  RankReport rank;
  UniquenessReport uniqueness;
  /// Components unique at this configuration but not near it on the motion (uniqueOnlyHere).
  std::vector<std::string> unique_only_here;
  std::optional<ProjectiveCriterion> criterion;     ///< request.criterion
  std::optional<AdmissibleMotions> motions;         ///< request.motions
  std::optional<DcaUniquenessReport> relative;      ///< request.relative
  std::vector<std::string> routes_disagree;         ///< pairs on which the two routes differ (a defect)
  std::vector<AnalysisCaution> cautions;
};
Analysis analyze(const Model& model, const RankOptions& rank_options = {},
                 const UniquenessOptions& uniqueness_options = {});
/// The same at an assembled state (assembly.converged) with everything the request asks.
Analysis analyzeAt(const Model& model, const AssemblyResult& assembly, const AnalysisRequest& request);

/// What `loopdyn simulate` is asked (its options of the same names; docs/simulation.md). Every
/// number is checked against the ranges every door shares (simulationOptionsProblem).
struct SimulationRequest {
  Scalar t_end = 1;                  ///< simulated time, s (from the assembled state at t = 0)
  Scalar sample = 0.01;              ///< sample interval, s
  std::string method = "lagrange";   ///< lagrange, elimination, partitioning, projection, dca, hdca
  std::string coordinates = "absolute";  ///< absolute or relative (joint coordinates, every method)
  std::string integrator = "dopri5";  ///< dopri5, bs23, adams, dop853, rk4
  Scalar rtol = 1e-8;
  Scalar atol = 0;  ///< 0: defaultAbsoluteTolerance(rtol) = rtol / 100
  Scalar step = 1e-3;                ///< rk4's step, s
  Scalar max_step = 0;               ///< largest step, s (0: no limit)
  std::string stabilization = "projection";  ///< projection, baumgarte, none
  int threads = 1;                   ///< dca, hdca: threads of the passes (the same results on any number)
  std::vector<std::string> columns = {"default"};  ///< column groups (sim/sample_columns.hpp)
  std::string reactions = "world";   ///< reaction axes: world (the default), joint, all (both), none
  std::vector<std::string> points;   ///< body-fixed points as columns, NAME=BODY.MARKER (--point)
  long max_steps = 1'000'000;        ///< accepted steps before the run gives up (a step-size collapse)
  bool continuation = true;          ///< projection: the tangent basis continued (paper 004); false: a fresh QR a step
  bool switching = true;             ///< partitioning: independent coordinates switched (paper 003, sect. 5)
  std::vector<std::string> eliminate;  ///< elimination: the equations removed (empty: the redundant ones QR finds)
  Scalar baumgarte_alpha = 10, baumgarte_beta = 10;  ///< 1/s, with stabilization baumgarte
  Scalar projection_tolerance = 0;   ///< scaled violation that triggers a projection (0: from rtol and atol)
  Scalar energy_tolerance = 0;       ///< relative energy drift a run may show (0: energyTolerance(rtol))
};

/// What a door adds to a request besides the run: the header's marks, the uniqueness of every
/// pair (a report's table), the stages as they begin (a progress line).
struct SetupNeeds {
  bool mark_non_unique = false;  ///< the non-unique columns' names with a trailing `*` (`--mark-non-unique`)
  bool every_pair = false;       ///< decide every pair's uniqueness, read by a column or not (a report's table)
  std::function<void(const char* stage)> stage;  ///< told as each stage begins (may be empty)
};

/// A request set up on an assembled model: what runs it, and what its samples' rows hold.
struct SimulationSetup {
  std::unique_ptr<Formulation> formulation;
  SimulationOptions options;             ///< checked (simulationOptionsProblem)
  std::vector<std::string> eliminated;   ///< the equations elimination removes
  UniquenessReport uniqueness;           ///< what decides the columns' marks (sim/sample_columns.hpp uniquenessMarks)
  std::unique_ptr<SampleColumns> columns;  ///< the rows' columns: request.columns, .reactions, .points
  double formulation_seconds = 0, uniqueness_seconds = 0;  ///< wall time of the two stages
};

/// Every door's set-up of a request at the assembled state x0 (the CLI's, Python's,
/// simulateModel's): the points resolved, the formulation the request chooses
/// (sim/formulation_choice.hpp), the simulation's options checked, the columns and their
/// uniqueness marks. Throws InvalidArgument whose message starts with the request's field
/// ("integrator: ...", "points: ...", "rtol: ...") for an unknown name, a number out of its range
/// (simulationOptionsProblem) or a formulation that cannot run here (why, e.g. an elimination that
/// does not work at x0); each door words the field as its own.
SimulationSetup setUpSimulation(const Model& model, const State& x0, const SimulationRequest& request,
                                const SetupNeeds& needs = {});

/// Runs a set-up request from x0, each sample's row (setup.columns' values, in their order) to
/// `on_row` with the sample's time. Never throws for numerical trouble (SimulationResult::failure).
SimulationResult runSimulation(const Model& model, SimulationSetup& setup, const State& x0,
                               const std::function<void(double t, const std::vector<double>& row)>& on_row);

/// The values one trajectory may hold (samples x columns, 800 MB of doubles): a request for more
/// is refused (sample less often, or write a CSV with the command line, which keeps no rows).
inline constexpr double kMaxTrajectoryValues = 1e8;
/// Throws InvalidArgument ("sample: ...") when the request's samples of `columns` values each
/// would be more than kMaxTrajectoryValues (a door that keeps every row in memory asks first).
void checkTrajectorySize(const SimulationRequest& request, std::size_t columns);

/// A simulation's samples and outcome.
struct Trajectory {
  std::vector<std::string> columns;  ///< the CSV's column names (sim/sample_columns.hpp)
  std::vector<std::string> non_unique;  ///< the columns whose values the model does not determine
  MatX values;                        ///< one row per sample, one column per name
  SimulationResult result;            ///< ok, or failure (when, why), events, checks, statistics
  std::string formulation;            ///< the formulation that ran
};

/// Assembles the model and simulates it. Throws InvalidArgument for a request it cannot run (an
/// unknown method or integrator, a number out of its range: the message starts with the option's
/// name, "rtol: ..."). A failed assembly or run is not thrown: it
/// returns result.ok = false and result.failure (when, why, which parts), with the samples up to
/// the failure.
Trajectory simulateModel(const Model& model, const SimulationRequest& request);

}  // namespace loopdyn
