#include "loopdyn/kinematics/constraint_evaluation.hpp"

#include <array>
#include <cmath>

#include "loopdyn/kinematics/constraint_equations.hpp"

namespace loopdyn {

KinematicsWorkspace::KinematicsWorkspace(const Model& model)
    : Phi(VecX::Zero(model.m())),
      // (a model past compile's dense size limit, built for the DCA's right-hand sides alone, has
      // its C sized when first evaluated)
      C(model.nc() <= kLargestDenseSize && model.nv() <= kLargestDenseSize ? MatX::Zero(model.nc(), model.nv()) : MatX()),
      b(VecX::Zero(model.nc())),
      Gamma(VecX::Zero(model.nc())),
      motion(static_cast<std::size_t>(model.nb())) {}

namespace {

/// Writes one equation's jet into row `row` of C, b, Gamma (and Phi for holonomic rows; C_rate
/// for a RateJet).
template <bool R>
void scatter(const Model& model, KinematicsWorkspace& ws, int row, const BasicJet<R>& jet, BodyIndex b1, BodyIndex b2,
             bool holonomic) {
  const int dim = model.dimension();
  const int nvb = model.vPerBody();
  // velocity columns of a jet slot used by this dimension: 2D (vx, vy, wz); 3D all six
  static constexpr std::array<int, 3> planar_cols{0, 1, 5};
  Scalar grad_dot_v = 0;
  const std::array<BodyIndex, 2> bodies{b1, b2};
  for (int slot = 0; slot < 2; ++slot) {
    const BodyIndex body = bodies[static_cast<std::size_t>(slot)];
    if (body == kGround) continue;
    const BodyMotion& m = ws.motion[static_cast<std::size_t>(body)];
    // (overwritten: C keeps its zeros elsewhere; both markers on one body add up)
    const bool same_body = slot == 1 && body == b1;
    for (int k = 0; k < nvb; ++k) {
      const int jet_col = 6 * slot + (dim == 2 ? planar_cols[static_cast<std::size_t>(k)] : k);
      const Scalar g = jet.grad(jet_col);
      if (same_body) ws.C(row, body * nvb + k) += g;
      else ws.C(row, body * nvb + k) = g;
      if constexpr (R) {
        if (same_body) ws.C_rate(row, body * nvb + k) += jet.grad_rate(jet_col);
        else ws.C_rate(row, body * nvb + k) = jet.grad_rate(jet_col);
      }
      const int c = jet_col - 6 * slot;
      grad_dot_v += g * (c < 3 ? m.v(c) : m.w(c - 3));
    }
  }
  ws.b(row) = holonomic ? jet.dot - grad_dot_v : 0;
  ws.Gamma(row) = -jet.ddot;
  if (holonomic) ws.Phi(row) = jet.val;
}

template <bool R>
void evaluate(const Model& model, KinematicsWorkspace& ws, const State& x) {
  checkStateSize(model, x);
  for (int body = 0; body < model.nb(); ++body)
    ws.motion[static_cast<std::size_t>(body)] = bodyMotion(model, x.q, x.v, body);
  // C keeps its zeros between evaluations: only a row's entries on its bodies change, and scatter
  // overwrites those (zeroing all of C was O(rows x nv), 18 MB a call on a 256-loop ladder)
  if (ws.C.rows() != model.nc() || ws.C.cols() != model.nv()) ws.C.setZero(model.nc(), model.nv());
  if constexpr (R) {
    if (ws.C_rate.rows() != model.nc() || ws.C_rate.cols() != model.nv()) ws.C_rate.setZero(model.nc(), model.nv());
  }
  std::array<BasicJet<R>, 6> jets;
  for (const Joint& joint : model.joints()) {
    const std::span<BasicJet<R>> out(jets.data(), static_cast<std::size_t>(joint.rows));
    jointEquations(model.dimension(), joint, motionOf(ws.motion, joint.first.body), motionOf(ws.motion, joint.second.body), out);
    const bool holonomic = !isNonholonomic(joint.type);
    for (int k = 0; k < joint.rows; ++k)
      scatter(model, ws, joint.row + k, out[static_cast<std::size_t>(k)], joint.first.body, joint.second.body, holonomic);
  }
  for (const Driver& driver : model.drivers()) {
    const BasicJet<R> jet = driverEquation<R>(model, driver, motionOf(ws.motion, driver.first.body),
                                              motionOf(ws.motion, driver.second.body), x.t);
    scatter(model, ws, driver.row, jet, driver.first.body, driver.second.body, true);
  }
}

}  // namespace

void evaluateConstraints(const Model& model, KinematicsWorkspace& ws, const State& x) { evaluate<false>(model, ws, x); }

void evaluateConstraintsAndRates(const Model& model, KinematicsWorkspace& ws, const State& x) {
  evaluate<true>(model, ws, x);
}

std::vector<Scalar> pairResiduals(const Model& model, const KinematicsWorkspace& ws, const State& x) {
  std::vector<Scalar> out;
  const Scalar L = model.characteristicLength();
  const VecX velocity_residual = ws.C * x.v + ws.b;
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
