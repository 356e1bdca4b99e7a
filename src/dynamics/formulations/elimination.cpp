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
    : VelocityFormulation(model, relative), eliminated_(std::move(eliminated)), reselect_(reselect) {
  std::sort(eliminated_.begin(), eliminated_.end());
  const std::vector<int>& rows = layout_.rows;
  for (const int row : eliminated_)
    LOOPDYN_CHECK(std::binary_search(rows.begin(), rows.end(), row), "elimination in joint coordinates: ",
                  model.equations()[static_cast<std::size_t>(row)].name,
                  " belongs to a joint of the spanning tree, which joint coordinates satisfy by construction");
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (!std::binary_search(eliminated_.begin(), eliminated_.end(), rows[k])) kept_.push_back(static_cast<int>(k));
}

std::unique_ptr<FormulationData> EliminationFormulation::makeData(const Model& model) const {
  std::unique_ptr<Data> data = makeDataAs<Data>(model);
  data->eliminated = eliminated_;
  data->kept = kept_;
  data->mu.setZero(static_cast<Eigen::Index>(layout_.rows.size()));
  return data;
}

Problem EliminationFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                            const Evaluation& how) const {
  Data& d = dataAs<Data>(model, ws);
  CoordinateEquations& e = *d.equations;
  const Baumgarte& baumgarte = d.settings.baumgarte;
  if (Problem problem = e.prepareKeptRows(model, ws, x, baumgarte); !problem.empty()) return problem;
  if (!e.gaussOnRows(model, ws, x, baumgarte, d.kept, d.mu)) {
    // The kept rows are dependent here. QR with column pivoting of all of At (the same matrix and
    // the same 1e-6 as the pivot test) tells whether the configuration is singular, or within
    // that of one (rank below the number kept), or only the choice went bad.
    const KeptRowsSolver::Diagnosis why = KeptRowsSolver::diagnose(e.metricScaledTransposed(model, ws), d.kept);
    Problem problem = Problem::of(Problem::Kind::KeptRowsDependent);
    problem.names = equationList(model, e.rows(), why.dependent);
    if (why.rank < static_cast<int>(d.kept.size())) {
      problem.kind = Problem::Kind::KeptRowsSingular;
      problem.matrix = e.constraintsName();
      problem.rank = why.rank;
      problem.count = static_cast<int>(d.kept.size());
      return problem;
    }
    // a regular configuration where the initial choice fails (paper 001, sect. 3.1: which
    // equations are redundant may depend on the configuration): here, the QR choice
    if (!reselect_ || !e.gaussOnRows(model, ws, x, baumgarte, why.independent, d.mu)) return problem;
  }
  if (!ws.a.allFinite()) return {};  // (the simulation names the bodies)
  // every row's multiplier: mu (the rows eliminated carry none), in joint coordinates the tree
  // joints' from the bodies
  if (how.multipliers) e.multipliers(model, ws, d.mu);
  return {};
}

Problem EliminationFormulation::begin(const Model& model, DynamicsWorkspace& ws, const State& x,
                                          Eigen::Ref<VecX> u) const {
  Problem problem = VelocityFormulation::begin(model, ws, x, u);
  if (!problem.empty() || !reselect_ || eliminated_.empty()) return problem;
  Data& d = dataAs<Data>(model, ws);
  State xs = x;  // (in joint coordinates: with its joint coordinates)
  if (d.equations->carry(xs).empty()) d.best_quality = quality(model, ws, xs, d.kept);
  return problem;
}

Scalar EliminationFormulation::quality(const Model& model, DynamicsWorkspace& ws, const State& x,
                                       const std::vector<int>& kept) const {
  const Data& d = dataAs<Data>(model, ws);
  CoordinateEquations& e = *d.equations;
  if (!e.prepareKeptRows(model, ws, x, d.settings.baumgarte).empty()) return 0;
  return conditioning(e.metricScaledTransposed(model, ws), kept);
}

Formulation::StepOutcome EliminationFormulation::afterStep(const Model& model, DynamicsWorkspace& ws,
                                                           const Step& step, const State& x,
                                                           Eigen::Ref<VecX> u) const {
  StepOutcome outcome = VelocityFormulation::afterStep(model, ws, step, x, u);
  Data& d = dataAs<Data>(model, ws);
  if (!reselect_ || !outcome.failure.empty() || d.eliminated.empty()) return outcome;  // (none: nothing to re-choose)
  const Scalar now = quality(model, ws, x, d.kept);
  if (now >= kSwitchRatio * d.best_quality) return outcome;
  // degraded against the best known: the rows QR keeps here (a singular configuration, where no
  // choice is regular, the simulation's watch reports)
  const MatX& At = d.equations->metricScaledTransposed(model, ws);
  const KeptRowsSolver::Diagnosis best = KeptRowsSolver::diagnose(At, d.kept);
  if (best.rank < static_cast<int>(d.kept.size())) return outcome;
  d.best_quality = conditioning(At, best.independent);
  if (now >= kSwitchRatio * d.best_quality || best.independent == d.kept) return outcome;
  outcome.event = switchTo(model, d, best.independent, now, x.t);
  outcome.restart = true;  // (the right-hand side changed: no derivative of the old one is reused)
  return outcome;
}

RunEvent EliminationFormulation::switchTo(const Model& model, Data& d, const std::vector<int>& kept,
                                          Scalar quality_from, Scalar t) const {
  RunEvent event;
  event.kind = EventKind::EliminationSwitch;
  event.t = t;
  for (const int row : d.eliminated) event.from.push_back(model.equations()[static_cast<std::size_t>(row)].name);
  d.kept = kept;
  d.eliminated.clear();
  const std::vector<int>& rows = layout_.rows;
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (!std::binary_search(d.kept.begin(), d.kept.end(), static_cast<int>(k))) d.eliminated.push_back(rows[k]);
  for (const int row : d.eliminated) event.to.push_back(model.equations()[static_cast<std::size_t>(row)].name);
  event.quality_from = quality_from;
  event.quality_to = d.best_quality;
  event.switch_ratio = kSwitchRatio;
  return event;
}

Scalar EliminationFormulation::constraintPower(const DynamicsWorkspace& ws, const State&) const {
  const Data& d = dataAs<Data>(ws);
  return d.mu.dot(d.equations->b(ws));  // (b of the rows kept, at the last evaluation)
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
