#include "loopdyn/sim/formulation_choice.hpp"

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/formulations/partitioning.hpp"
#include "loopdyn/dynamics/formulations/projection.hpp"
#include "loopdyn/dynamics/dca/dca.hpp"
#include "loopdyn/dynamics/dca/hdca.hpp"
#include "loopdyn/dynamics/formulations/elimination.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"

namespace loopdyn {

namespace {

/// Why elimination cannot start at a singular configuration: QR would also mark equations that
/// are dependent at this instant only, and removing them changes the motion.
std::string singularEliminationProblem(const RankReport& rank) {
  return "the initial configuration is singular (rank " + std::to_string(rank.rank) + ", generic rank " +
         std::to_string(rank.generic_rank) +
         "): elimination would remove equations that are dependent only here; start from a regular "
         "configuration or use the lagrange formulation";
}

/// The rows choice.eliminate names into rows; false (out.problem says which name) when one is unknown.
bool namedRows(const Model& model, const FormulationChoice& choice, std::vector<int>& rows, BuiltFormulation& out) {
  try {
    rows = equationRows(model, choice.eliminate);
    return true;
  } catch (const InvalidArgument& e) {
    out.problem = std::string("eliminate: ") + e.what();
    return false;
  }
}

/// The rows the user names with --eliminate, checked against what the coordinates keep (in joint
/// coordinates only rows outside the spanning tree) and against the redundancy: exactly the
/// redundant count must go. False with out.problem saying why.
bool namedEliminatedRows(const Model& model, const FormulationChoice& choice, const std::vector<int>& constraint_rows,
                         int rank, bool relative, std::vector<int>& rows, BuiltFormulation& out) {
  if (!namedRows(model, choice, rows, out)) return false;
  for (const int row : rows)
    if (!std::binary_search(constraint_rows.begin(), constraint_rows.end(), row)) {
      const Equation& equation = model.equations()[static_cast<std::size_t>(row)];
      out.problem = "eliminate: " + equation.name + " is an equation of " +
                    model.pairs()[static_cast<std::size_t>(equation.pair)].name +
                    ", a joint of the spanning tree, which joint coordinates satisfy by construction; eliminate "
                    "equations of joints outside the tree (the topology analysis lists the cut joints), or use "
                    "absolute coordinates";
      return false;
    }
  // the eliminated equations must be redundant: removing them may not change the motion
  const int n_rows = static_cast<int>(constraint_rows.size());
  const int kept = n_rows - static_cast<int>(rows.size());
  if (kept == rank) return true;
  out.problem = std::string("eliminate: ") + (kept > rank ? "removes too few" : "removes too many") + " equations: " +
                (relative ? "in joint coordinates the constraints outside the spanning tree have rank "
                          : "the constraint matrix has rank ") +
                std::to_string(rank) + " of " + std::to_string(n_rows) + " rows, so exactly " +
                std::to_string(n_rows - rank) + " redundant equations must go, not " + std::to_string(rows.size());
  return false;
}

/// Elimination (elimination.hpp): the equations QR finds redundant (in absolute coordinates those
/// the rank analysis reports), or those named; then a first solve at the initial state.
BuiltFormulation elimination(const Model& model, const State& x0, const RankReport& rank,
                             const FormulationChoice& choice, bool relative, BuiltFormulation& out) {
  if (rank.singular) {
    out.problem = singularEliminationProblem(rank);
    return std::move(out);
  }
  const std::unique_ptr<CoordinateEquations> equations = coordinateEquations(model, relative);
  const std::vector<int>& constraint_rows = equations->rows();
  const int rank_kept = rank.rank - (model.nc() - static_cast<int>(constraint_rows.size()));  // (the tree joints' rows are independent)
  std::vector<int> rows;
  if (choice.eliminate.empty())
    rows = relative ? redundantRows(model, *equations, x0, rank_kept) : rank.dependent_equations;
  else if (!namedEliminatedRows(model, choice, constraint_rows, rank_kept, relative, rows, out))
    return std::move(out);
  out.eliminated = equationNames(model, rows);
  std::unique_ptr<Formulation> formulation;
  try {
    formulation = std::make_unique<EliminationFormulation>(model, rows, choice.eliminate.empty(), relative);
  } catch (const InvalidArgument& e) {
    out.problem = e.what();
    return std::move(out);
  }
  DynamicsWorkspace ws(model);
  if (const Problem problem = formulation->solve(model, ws, x0); !problem.empty()) {
    std::string names;
    for (const std::string& name : out.eliminated) names += (names.empty() ? "" : ", ") + name;
    out.problem = (relative ? std::string("elimination in joint coordinates")
                            : "eliminating " + (names.empty() ? std::string("nothing") : names)) +
                  " does not work at the initial state: " + problemText(problem);
    return std::move(out);
  }
  out.formulation = std::move(formulation);
  return std::move(out);
}

std::string unknownMethod(const std::string& method) {
  return "unknown formulation '" + method + "' (lagrange, elimination, partitioning, projection, dca, hdca)";
}

/// The absolute-coordinate formulation `method` names.
BuiltFormulation absoluteFormulation(const Model& model, const State& x0, const RankReport& rank,
                                     const std::string& method, const FormulationChoice& choice, BuiltFormulation& out) {
  if (method == "lagrange") out.formulation = std::make_unique<LagrangeFormulation>(model);
  else if (method == "projection")
    out.formulation = std::make_unique<ProjectionFormulation>(model, rank.generic_rank, choice.continuation);
  else if (method == "partitioning")
    out.formulation = std::make_unique<PartitioningFormulation>(model, rank.generic_rank, choice.switching ? kSwitchRatio : 0);
  else if (method == "elimination")
    return elimination(model, x0, rank, choice, false, out);
  else
    out.problem = unknownMethod(method);
  return std::move(out);
}

}  // namespace

namespace {

/// The formulations whose right-hand sides keep no dense matrix of the model's size: the DCA's
/// and the HDCA's (joint coordinates, O(n)) and lagrange's in absolute coordinates (a sparse
/// factor of C M^-1 C^T, dynamics/kinetic_gram.hpp).
bool scalesWithTheModel(const std::string& method, const std::string& coordinates) {
  return method == "dca" || method == "hdca" || (method == "lagrange" && coordinates == "absolute");
}

}  // namespace

BuiltFormulation buildFormulation(const Model& model, const State& x0, const FormulationChoice& choice) {
  BuiltFormulation out;
  if (const std::string& method = choice.eliminate.empty() ? choice.method : "elimination";
      !scalesWithTheModel(method, choice.coordinates)) {
    out.problem = denseSizeProblem(model, "the " + method + " formulation" +
                                              (choice.coordinates == "relative" ? " in joint coordinates" : ""),
                                   "use the dca or hdca formulation (linear in the model's size) or lagrange in absolute "
                                   "coordinates (sparse)");
    if (!out.problem.empty()) return out;
  }
  KinematicsWorkspace kin(model);
  // Only generically redundant equations may go: at a singular configuration QR would also mark
  // equations that are dependent at this instant only, and removing them changes the motion.
  const RankReport rank = analyzeConstraints(model, kin, x0, RankOptions{});
  out.generic_rank = rank.generic_rank;
  out.generic_ratio = rank.generic_ratio;
  const std::string& method = choice.eliminate.empty() ? choice.method : "elimination";
  // in joint coordinates: the initial state must be one the spanning tree's joints reach
  // (what else keeps a formulation from starting there -- a singular configuration for
  // partitioning -- its start says, as in absolute coordinates)
  const auto inJointCoordinates = [&](std::unique_ptr<Formulation> formulation) {
    State xs = x0;
    if (const Problem problem = jointState(TreeKinematics(model), xs); !problem.empty())
      out.problem = method + ": relative coordinates cannot describe the initial state: " + problemText(problem);
    else
      out.formulation = std::move(formulation);
    return std::move(out);
  };
  // (the divide-and-conquer algorithm works on the spanning tree: always in joint coordinates)
  if (choice.threads < 1) {
    out.problem = "threads: expected at least 1, got " + std::to_string(choice.threads);
    return out;
  }
  if (method == "dca") return inJointCoordinates(std::make_unique<DcaFormulation>(model, choice.threads));
  if (method == "hdca") return inJointCoordinates(std::make_unique<HdcaFormulation>(model, choice.threads));
  if (choice.coordinates == "relative") {
    if (method == "lagrange") return inJointCoordinates(std::make_unique<LagrangeFormulation>(model, true));
    if (method == "projection")
      return inJointCoordinates(
          std::make_unique<ProjectionFormulation>(model, rank.generic_rank, choice.continuation, true));
    if (method == "partitioning")
      return inJointCoordinates(std::make_unique<PartitioningFormulation>(
          model, rank.generic_rank, choice.switching ? kSwitchRatio : 0, true));
    if (method == "elimination") return elimination(model, x0, rank, choice, true, out);
    out.problem = unknownMethod(method);
    return out;
  }
  if (choice.coordinates != "absolute") {
    out.problem = "unknown coordinates '" + choice.coordinates + "' (absolute, relative)";
    return out;
  }
  return absoluteFormulation(model, x0, rank, method, choice, out);
}
}  // namespace loopdyn
