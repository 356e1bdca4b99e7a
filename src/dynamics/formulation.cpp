#include "loopdyn/dynamics/formulation.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/common/spelling.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"

namespace loopdyn {

void stabilizedGamma(const Model& model, DynamicsWorkspace& ws, const State& x, const Baumgarte& baumgarte) {
  ws.Gamma = ws.kin.Gamma;
  if (baumgarte.alpha == 0 && baumgarte.beta == 0) return;
  for (Eigen::Index i = 0; i < model.nc(); ++i)  // - 2 alpha (C v + b)
    ws.Gamma(i) -= 2 * baumgarte.alpha * (ws.kin.C.rowTimes(i, x.v) + ws.kin.b(i));
  ws.Gamma.head(model.m()) -= baumgarte.beta * baumgarte.beta * ws.kin.Phi;
}

namespace {

std::atomic<std::uint64_t> next_formulation_id{1};

}  // namespace

Formulation::Formulation() : id_(next_formulation_id++) {}

std::unique_ptr<Coordinates> Formulation::coordinates(const Model& model) const {
  return std::make_unique<AbsoluteCoordinates>(model);
}

std::unique_ptr<FormulationData> Formulation::makeData(const Model&) const {
  return std::make_unique<FormulationData>();
}

FormulationData& Formulation::data(const Model& model, DynamicsWorkspace& ws) const {
  if (ws.formulation_id != id_ || !ws.formulation_data) {
    ws.formulation_data = makeData(model);
    ws.formulation_id = id_;
  }
  return *ws.formulation_data;
}

const FormulationData& Formulation::data(const DynamicsWorkspace& ws) const {
  LOOPDYN_CHECK(ws.formulation_id == id_ && ws.formulation_data, name(),
                ": the workspace holds no run data of this formulation (start it, or evaluate with it, first)");
  return *ws.formulation_data;
}

Problem Formulation::start(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u,
                           const RunSettings& settings) const {
  ws.formulation_data = makeData(model);
  ws.formulation_id = id_;
  ws.formulation_data->settings = settings;
  return begin(model, ws, x, u);
}

Problem Formulation::begin(const Model&, DynamicsWorkspace&, const State& x, Eigen::Ref<VecX> u) const {
  u = x.v;
  return {};
}

Problem Formulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                                  Eigen::Ref<VecX> du, const Evaluation& how) const {
  x.v = u;
  if (how.project)
    if (Problem problem = projectState(model, ws, x, kProjectionTolerance, how.kinematics_at_x); !problem.empty()) return problem;
  Problem problem = solve(model, ws, x);
  if (problem.empty()) du = ws.a;
  else du.setConstant(std::numeric_limits<Scalar>::quiet_NaN());  // (a failed solve may leave ws.a unset)
  return problem;
}

Problem Formulation::velocities(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                                    Eigen::Ref<VecX> du) const {
  return evaluate(model, ws, x, u, du, Evaluation{});
}

Scalar Formulation::constraintPower(const DynamicsWorkspace& ws, const State&) const { return ws.lambda.dot(ws.kin.b); }

Formulation::StepOutcome Formulation::afterStep(const Model&, DynamicsWorkspace&, const Step&, const State&,
                                               Eigen::Ref<VecX>) const {
  return {};
}

DynamicsWorkspace::DynamicsWorkspace(const Model& model)
    : kin(model),
      a(VecX::Zero(model.nv())),
      lambda(VecX::Zero(model.nc())),
      scaling(model.scaling()) {}

namespace {

/// Newton iterations of the position projection. Away from singular configurations it converges
/// quadratically: two suffice from the drift of an integration step. Next to one the root is
/// double along the new motion and each step only quarters the residual (measured at the
/// collocation nodes of the departure from modified_2x2_four_bar_singular: 5.7e-4 -> 1.4e-7 in six
/// steps, factor 4.0 each); eight steps left 1-3e-6 at some nodes, above the 1e-6 accepted, and
/// whether that departure converged turned on the last bit of C_s (3 of 10 one-ulp changes
/// failed; with 30 steps none). Thirty quarterings (4^30 = 1.2e18) reach 1e-6 from any residual;
/// regular projections still stop after two.
constexpr int kMaxNewtonSteps = 30;

Scalar scaledPositionResidual(const Model& model, const DynamicsWorkspace& ws) {
  return ws.scaling.row.head(model.m()).cwiseProduct(ws.kin.Phi).norm() / model.characteristicLength();
}

}  // namespace

Problem projectPositions(const Model& model, DynamicsWorkspace& ws, State& x, Scalar tolerance, bool evaluated) {
  if (x.v.size() != model.nv()) x.v.setZero(model.nv());  // (a minimal formulation's velocities come later)
  if (!evaluated) evaluateConstraints(model, ws.kin, x);
  Scalar residual = scaledPositionResidual(model, ws);
  for (int it = 0; it < kMaxNewtonSteps && residual > tolerance; ++it) {
    // dq = -M^-1 C_r^T nu, G nu = Phi_r (holonomic rows)
    ws.inverse_mass.update(model, ws.kin.motion);
    ws.gram_holonomic.compute(model, ws.kin, ws.scaling, ws.inverse_mass, model.m());
    ws.w = ws.scaling.row.head(model.m()).cwiseProduct(ws.kin.Phi);
    ws.gram_holonomic.solveInPlace(ws.w);
    ws.dq.setZero(model.nv());
    ws.gram_holonomic.subtractInverseMassRowsTransposedTimes(ws.w, ws.dq);
    ws.x_shifted.q = x.q;
    displacePositions(model, ws.x_shifted.q, ws.dq, x.q);
    evaluateConstraints(model, ws.kin, x);
    const Scalar previous = residual;
    residual = scaledPositionResidual(model, ws);
    // rounding level reached (or no progress); next to a singular configuration Newton converges
    // only linearly, so a slower decrease goes on
    if (residual >= previous || (residual > 0.5 * previous && residual < 1e3 * tolerance)) break;
  }
  if (residual > 1e-6) {
    Problem problem = Problem::of(Problem::Kind::TooFarFromConstraints);
    problem.value = residual;
    return problem;
  }
  return {};
}

Problem projectState(const Model& model, DynamicsWorkspace& ws, State& x, Scalar tolerance, bool evaluated) {
  if (Problem problem = projectPositions(model, ws, x, tolerance, evaluated); !problem.empty()) return problem;
  projectVelocities(model, ws, x);
  return {};
}

void projectVelocities(const Model& model, DynamicsWorkspace& ws, State& x) {
  // v <- v - M^-1 C_r^T mu, G mu = C_r v + b_r
  ws.inverse_mass.update(model, ws.kin.motion);
  ws.gram_all.compute(model, ws.kin, ws.scaling, ws.inverse_mass, model.nc());
  ws.gram_all.rowsTimes(x.v, ws.w);
  ws.w += ws.scaling.row.cwiseProduct(ws.kin.b);
  ws.gram_all.solveInPlace(ws.w);
  ws.gram_all.subtractInverseMassRowsTransposedTimes(ws.w, x.v);
  evaluateConstraints(model, ws.kin, x);  // Gamma at the new velocities
}

void leastNormMultipliers(const Model& model, DynamicsWorkspace& ws, const VecX& constraint_force) {
  if (model.nc() == 0) {
    ws.lambda.resize(0);
    return;
  }
  scaledTransposed(ws.scaling, ws.kin.C.dense(), ws.Cs_t);
  ws.cod.setThreshold(kRankThreshold);
  ws.cod.compute(ws.Cs_t);
  ws.lambda = ws.scaling.row.cwiseProduct(ws.cod.solve(ws.scaling.col.cwiseProduct(constraint_force)));
}

std::vector<int> equationRows(const Model& model, const std::vector<std::string>& names) {
  std::vector<std::string> all;
  for (const Equation& e : model.equations()) all.push_back(e.name);
  std::vector<int> rows;
  for (const std::string& name : names) {
    const auto it = std::find(all.begin(), all.end(), name);
    LOOPDYN_CHECK(it != all.end(), "unknown equation '", name, "'", didYouMean(name, all),
                  " (equations are named like 'C.y' or 'W4'; the analysis lists them)");
    rows.push_back(static_cast<int>(it - all.begin()));
  }
  return rows;
}

}  // namespace loopdyn
