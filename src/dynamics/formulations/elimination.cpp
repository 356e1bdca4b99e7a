#include "loopdyn/dynamics/formulations/elimination.hpp"

#include <Eigen/QR>

#include <algorithm>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/formulations/partitioning.hpp"
#include "loopdyn/dynamics/kept_rows.hpp"

namespace loopdyn {

namespace {

/// The names of the equations at `positions` in `rows`.
std::vector<std::string> equationList(const Model& model, const std::vector<int>& rows, const std::vector<int>& positions) {
  std::vector<std::string> names;
  for (const int k : positions) names.push_back(model.equations()[static_cast<std::size_t>(rows[static_cast<std::size_t>(k)])].name);
  return names;
}

/// The smallest |R_kk| / |R_11| of the pivoted QR of At's columns `kept` (1 for none).
Scalar conditioning(const MatX& At, const std::vector<int>& kept) {
  if (kept.empty()) return 1;
  const Eigen::ColPivHouseholderQR<MatX> qr(At(Eigen::all, kept));
  const VecX pivots = qr.matrixR().diagonal().cwiseAbs();
  return pivots(0) > 0 ? pivots.minCoeff() / pivots(0) : 0;
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

Problem EliminationFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                            const Evaluation& how) const {
  CoordinateEquations& e = *equations_;
  if (Problem problem = e.prepareKeptRows(model, ws, x, settings_.baumgarte); !problem.empty()) return problem;
  if (!e.gaussOnRows(model, ws, x, settings_.baumgarte, kept_, mu_)) {
    // The kept rows are dependent here. QR with column pivoting of all of At (the same matrix and
    // the same 1e-6 as the pivot test) tells whether the configuration is singular, or within
    // that of one (rank below the number kept), or only the choice went bad.
    const KeptRowsSolver::Diagnosis why = KeptRowsSolver::diagnose(e.metricScaledTransposed(model, ws), kept_);
    Problem problem = Problem::of(Problem::Kind::KeptRowsDependent);
    problem.names = equationList(model, e.rows(), why.dependent);
    if (why.rank < static_cast<int>(kept_.size())) {
      problem.kind = Problem::Kind::KeptRowsSingular;
      problem.matrix = e.constraintsName();
      problem.rank = why.rank;
      problem.count = static_cast<int>(kept_.size());
      return problem;
    }
    // a regular configuration where the initial choice fails (paper 001, sect. 3.1: which
    // equations are redundant may depend on the configuration): here, the QR choice
    if (!reselect_ || !e.gaussOnRows(model, ws, x, settings_.baumgarte, why.independent, mu_)) return problem;
  }
  if (!ws.a.allFinite()) return {};  // (the simulation names the bodies)
  // every row's multiplier: mu (the rows eliminated carry none), in joint coordinates the tree
  // joints' from the bodies
  if (how.multipliers) e.multipliers(model, ws, mu_);
  return {};
}

Problem EliminationFormulation::begin(const Model& model, DynamicsWorkspace& ws, const State& x,
                                          Eigen::Ref<VecX> u) {
  Problem problem = VelocityFormulation::begin(model, ws, x, u);
  if (!problem.empty() || !reselect_ || eliminated_.empty()) return problem;
  State xs = x;  // (in joint coordinates: with its joint coordinates)
  if (equations_->carry(xs).empty()) best_quality_ = quality(model, ws, xs, kept_);
  return problem;
}

Scalar EliminationFormulation::quality(const Model& model, DynamicsWorkspace& ws, const State& x,
                                       const std::vector<int>& kept) {
  CoordinateEquations& e = *equations_;
  if (!e.prepareKeptRows(model, ws, x, settings_.baumgarte).empty()) return 0;
  return conditioning(e.metricScaledTransposed(model, ws), kept);
}

Formulation::StepOutcome EliminationFormulation::afterStep(const Model& model, DynamicsWorkspace& ws,
                                                           const Step& step, const State& x, Eigen::Ref<VecX> u) {
  StepOutcome outcome = VelocityFormulation::afterStep(model, ws, step, x, u);
  if (!reselect_ || !outcome.failure.empty() || eliminated_.empty()) return outcome;  // (none: nothing to re-choose)
  const Scalar now = quality(model, ws, x, kept_);
  if (now >= kSwitchRatio * best_quality_) return outcome;
  // degraded against the best known: the rows QR keeps here (a singular configuration, where no
  // choice is regular, the simulation's watch reports)
  const KeptRowsSolver::Diagnosis best = KeptRowsSolver::diagnose(equations_->metricScaledTransposed(model, ws), kept_);
  if (best.rank < static_cast<int>(kept_.size())) return outcome;
  best_quality_ = conditioning(equations_->metricScaledTransposed(model, ws), best.independent);
  if (now >= kSwitchRatio * best_quality_ || best.independent == kept_) return outcome;
  outcome.event = switchTo(model, best.independent, now, x.t);
  outcome.restart = true;  // (the right-hand side changed: no derivative of the old one is reused)
  return outcome;
}

RunEvent EliminationFormulation::switchTo(const Model& model, const std::vector<int>& kept, Scalar quality_from,
                                          Scalar t) {
  RunEvent event;
  event.kind = EventKind::EliminationSwitch;
  event.t = t;
  for (const int row : eliminated_) event.from.push_back(model.equations()[static_cast<std::size_t>(row)].name);
  kept_ = kept;
  eliminated_.clear();
  const std::vector<int>& rows = equations_->rows();
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (!std::binary_search(kept_.begin(), kept_.end(), static_cast<int>(k))) eliminated_.push_back(rows[k]);
  for (const int row : eliminated_) event.to.push_back(model.equations()[static_cast<std::size_t>(row)].name);
  event.quality_from = quality_from;
  event.quality_to = best_quality_;
  event.switch_ratio = kSwitchRatio;
  return event;
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
