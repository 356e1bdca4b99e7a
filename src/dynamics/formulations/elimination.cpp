#include "loopdyn/dynamics/formulations/elimination.hpp"

#include <Eigen/QR>

#include <algorithm>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/kept_rows.hpp"

namespace loopdyn {

namespace {

/// The names of the equations at `positions` in `rows`.
std::string equationList(const Model& model, const std::vector<int>& rows, const std::vector<int>& positions) {
  std::string names;
  for (const int k : positions)
    names += (names.empty() ? "" : ", ") + model.equations()[static_cast<std::size_t>(rows[static_cast<std::size_t>(k)])].name;
  return names.empty() ? "?" : names;
}

}  // namespace

EliminationFormulation::EliminationFormulation(const Model& model, std::vector<int> eliminated, bool reselect,
                                               bool relative)
    : VelocityFormulation(coordinateEquations(model, relative)), eliminated_(std::move(eliminated)), reselect_(reselect) {
  std::sort(eliminated_.begin(), eliminated_.end());
  const std::vector<int>& rows = equations_->rows();
  for (const int row : eliminated_)
    LOOPDYN_CHECK(std::binary_search(rows.begin(), rows.end(), row), "elimination in joint coordinates: ",
                  model.equations()[static_cast<std::size_t>(row)].name,
                  " belongs to a joint of the spanning tree, which joint coordinates satisfy by construction");
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (!std::binary_search(eliminated_.begin(), eliminated_.end(), rows[k])) kept_.push_back(static_cast<int>(k));
  mu_.setZero(static_cast<Eigen::Index>(rows.size()));
}

std::string EliminationFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                            const Evaluation& how) const {
  CoordinateEquations& e = *equations_;
  if (std::string problem = e.prepareKeptRows(model, ws, x, settings_.baumgarte); !problem.empty()) return problem;
  if (!e.gaussOnRows(model, ws, x, settings_.baumgarte, kept_, mu_)) {
    // The kept rows are dependent here. QR with column pivoting of all of At (the same matrix and
    // the same 1e-6 as the pivot test) tells whether the configuration is singular, or within
    // that of one (rank below the number kept), or only the choice went bad.
    const KeptRowsSolver::Diagnosis why = KeptRowsSolver::diagnose(e.metricScaledTransposed(model, ws), kept_);
    if (why.rank < static_cast<int>(kept_.size()))
      return std::string("a singular configuration (or within 1e-6 of one): ") + e.constraintsName() + " has rank " +
             std::to_string(why.rank) + " here, below the " + std::to_string(kept_.size()) +
             " equations kept after elimination (dependent: " + equationList(model, e.rows(), why.dependent) + ")";
    // a regular configuration where the initial choice fails (paper 001, sect. 3.1: which
    // equations are redundant may depend on the configuration): here, the QR choice
    if (!reselect_ || !e.gaussOnRows(model, ws, x, settings_.baumgarte, why.independent, mu_))
      return "the equations kept after elimination are dependent here (" + equationList(model, e.rows(), why.dependent) +
             ") although the mechanism is not singular: eliminate other equations";
  }
  if (!ws.a.allFinite()) return {};  // (the simulation names the bodies)
  // every row's multiplier: mu (the rows eliminated carry none), in joint coordinates the tree
  // joints' from the bodies
  if (how.multipliers) e.multipliers(model, ws, mu_);
  return {};
}

Scalar EliminationFormulation::constraintPower(const DynamicsWorkspace& ws, const State&) const {
  return mu_.dot(equations_->b(ws));  // (b of the rows kept, at the last evaluation)
}

std::vector<int> redundantRows(const Model& model, CoordinateEquations& equations, const State& x, int rank) {
  DynamicsWorkspace ws(model);
  State xs = x;
  if (!equations.carry(xs).empty()) return {};
  equations.evaluateConstraints(model, ws, xs);
  MatX At;
  equations.scaledTransposed(ws, At);
  std::vector<int> out;
  if (At.cols() == 0) return out;
  const Eigen::ColPivHouseholderQR<MatX> qr(At);
  for (Eigen::Index k = rank; k < At.cols(); ++k)
    out.push_back(equations.rows()[static_cast<std::size_t>(qr.colsPermutation().indices()(k))]);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace loopdyn
