#include "loopdyn/kinematics/constraint_evaluation.hpp"

#include <array>
#include <cmath>

#include "loopdyn/kinematics/constraint_equations.hpp"

namespace loopdyn {

KinematicsWorkspace::KinematicsWorkspace(const Model& model)
    : Phi(VecX::Zero(model.m())),
      C(model),
      b(VecX::Zero(model.nc())),
      Gamma(VecX::Zero(model.nc())),
      motion(static_cast<std::size_t>(model.nb())) {}

namespace {

/// Writes one equation's jet into row `row` of C, b, Gamma (and Phi for holonomic rows; C_rate
/// for a rate jet): the jet's columns of each body are that body's velocity columns.
template <int D, bool R>
void scatter(KinematicsWorkspace& ws, int row, const BasicJet<R, D>& jet, BodyIndex b1, BodyIndex b2, bool holonomic) {
  constexpr int nvb = kJetBodyColumns<D>;
  Scalar grad_dot_v = 0;
  const std::array<BodyIndex, 2> bodies{b1, b2};
  for (int slot = 0; slot < 2; ++slot) {
    const BodyIndex body = bodies[static_cast<std::size_t>(slot)];
    if (body == kGround) continue;
    const BodyMotion& m = ws.motion[static_cast<std::size_t>(body)];
    const Scalar velocity[6] = {m.v.x(), m.v.y(), D == 2 ? m.w.z() : m.v.z(), m.w.x(), m.w.y(), m.w.z()};
    // (both markers on one body: the second's entries are added to the first's block)
    const bool same_body = slot == 1 && body == b1;
    Scalar* c = ws.C.writableBlock(row, same_body ? 0 : slot);
    Scalar* c_rate = R ? ws.C_rate.writableBlock(row, same_body ? 0 : slot) : nullptr;
    for (int k = 0; k < nvb; ++k) {
      const Scalar g = jet.grad(nvb * slot + k);
      if (same_body) c[k] += g;
      else c[k] = g;
      if constexpr (R) {
        if (same_body) c_rate[k] += jet.grad_rate(nvb * slot + k);
        else c_rate[k] = jet.grad_rate(nvb * slot + k);
      }
      grad_dot_v += g * velocity[k];
    }
  }
  ws.b(row) = holonomic ? jet.dot - grad_dot_v : 0;
  ws.Gamma(row) = -jet.ddot;
  if (holonomic) ws.Phi(row) = jet.val;
}

template <int D, bool R>
void evaluateIn(const Model& model, KinematicsWorkspace& ws, const State& x) {
  for (int body = 0; body < model.nb(); ++body)
    ws.motion[static_cast<std::size_t>(body)] = bodyMotion(model, x.q, x.v, body);
  std::array<BasicJet<R, D>, 6> jets;
  for (const Joint& joint : model.joints()) {
    const std::span<BasicJet<R, D>> out(jets.data(), static_cast<std::size_t>(joint.rows));
    jointEquations<R, D>(joint, motionOf(ws.motion, joint.first.body), motionOf(ws.motion, joint.second.body), out);
    const bool holonomic = !isNonholonomic(joint.type);
    for (int k = 0; k < joint.rows; ++k)
      scatter<D>(ws, joint.row + k, out[static_cast<std::size_t>(k)], joint.first.body, joint.second.body, holonomic);
  }
  for (const Driver& driver : model.drivers()) {
    const BasicJet<R, D> jet =
        driverEquation<R, D>(driver, motionOf(ws.motion, driver.first.body), motionOf(ws.motion, driver.second.body), x.t);
    scatter<D>(ws, driver.row, jet, driver.first.body, driver.second.body, true);
  }
}

template <bool R>
void evaluate(const Model& model, KinematicsWorkspace& ws, const State& x) {
  checkStateSize(model, x);
  if (model.dimension() == 2) evaluateIn<2, R>(model, ws, x);
  else evaluateIn<3, R>(model, ws, x);
}

}  // namespace

void evaluateConstraints(const Model& model, KinematicsWorkspace& ws, const State& x) { evaluate<false>(model, ws, x); }

void evaluateConstraintsAndRates(const Model& model, KinematicsWorkspace& ws, const State& x) {
  if (ws.C_rate.rows() != ws.C.rows()) ws.C_rate = ConstraintJacobian(model);
  evaluate<true>(model, ws, x);
}

std::vector<Scalar> pairResiduals(const Model& model, const KinematicsWorkspace& ws, const State& x) {
  std::vector<Scalar> out;
  const Scalar L = model.characteristicLength();
  VecX velocity_residual = ws.b;
  ws.C.times(x.v, velocity_residual);
  velocity_residual += ws.b;
  for (const Pair& pair : model.pairs()) {
    Scalar sum = 0;
    for (int r = pair.row; r < pair.row + pair.rows; ++r) {
      const Scalar scale = model.equations()[static_cast<std::size_t>(r)].kind == EquationKind::Angular ? L : 1;
      const Scalar e = pair.nonholonomic ? velocity_residual(r) : scale * ws.Phi(r);
      sum += e * e;
    }
    out.push_back(std::sqrt(sum));
  }
  return out;
}

}  // namespace loopdyn
