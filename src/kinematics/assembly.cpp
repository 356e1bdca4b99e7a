#include "loopdyn/kinematics/assembly.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

namespace {

Scalar scaledPositionResidual(const Model& model, const KinematicsWorkspace& ws, const ConstraintScaling& s) {
  if (model.m() == 0) return 0;
  return s.row.head(model.m()).cwiseProduct(ws.Phi).norm() / model.characteristicLength();
}

/// "joint 'B' 0.12, driver 'steer' 0.03" for the pairs with the largest residuals.
std::string worstPairs(const Model& model, const std::vector<Scalar>& residuals, const char* unit) {
  std::vector<std::size_t> order(residuals.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // not-a-number residuals first (a NaN would break the ordering), then the largest
  auto key = [&](std::size_t k) { return std::isnan(residuals[k]) ? std::numeric_limits<Scalar>::infinity() : residuals[k]; };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) > key(b); });
  std::ostringstream os;
  int shown = 0;
  for (std::size_t k : order) {
    if (!(key(k) > 0) || shown == 4) break;
    const Pair& pair = model.pairs()[k];
    os << (shown++ ? ", " : "") << pair.type << " '" << pair.name << "' " << residuals[k] << ' ' << unit;
  }
  return os.str();
}

}  // namespace

AssemblyResult assemblePositions(const Model& model, KinematicsWorkspace& ws, const State& guess,
                                 const AssemblyOptions& options) {
  checkStateSize(model, guess);
  const ConstraintScaling& s = model.scaling();
  const Scalar L = model.characteristicLength();
  const int m = model.m();
  AssemblyResult out;
  out.state = guess;
  State trial = guess;
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;
  cod.setThreshold(options.rank_threshold);

  evaluateConstraints(model, ws, out.state);
  Scalar residual = scaledPositionResidual(model, ws, s);
  // the requested tolerance, or what rounding allows far from the origin
  const Scalar tolerance = std::max(options.position_tolerance, positionResidualFloor(model, guess.q));
  while (residual > tolerance && out.iterations < options.max_iterations) {
    ++out.iterations;
    // Newton step in scaled coordinates: minimum-norm least squares, robust to dependent rows
    MatX Cs = s.row.head(m).asDiagonal() * ws.C.dense().topRows(m) * s.col.asDiagonal();
    // held bodies (`hold: true`) take no part in the step: their columns are removed
    for (BodyIndex b = 0; b < model.nb(); ++b)
      if (model.heldBodies()[static_cast<std::size_t>(b)]) Cs.middleCols(b * model.vPerBody(), model.vPerBody()).setZero();
    cod.compute(Cs);
    const VecX step = s.col.cwiseProduct(cod.solve(-s.row.head(m).cwiseProduct(ws.Phi)));
    // backtracking: accept the first fraction of the step that lowers the residual
    Scalar alpha = 1;
    bool lowered = false;
    for (int halving = 0; halving < 12 && !lowered; ++halving, alpha /= 2) {
      displacePositions(model, out.state.q, alpha * step, trial.q);
      evaluateConstraints(model, ws, trial);
      const Scalar r = scaledPositionResidual(model, ws, s);
      if (r < residual) {
        lowered = true;
        residual = r;
        out.state.q = trial.q;
      }
    }
    if (!lowered) break;
  }
  evaluateConstraints(model, ws, out.state);
  out.position_residual = residual;
  out.converged = residual <= tolerance;
  out.pair_residuals = pairResiduals(model, ws, out.state);
  if (!out.converged) {
    std::ostringstream os;
    os << "assembly failed after " << out.iterations << " Newton iterations (relative residual " << residual
       << " > " << tolerance << "); largest residuals: "
       << worstPairs(model, out.pair_residuals, L == 1 ? "m" : "m (scaled)");
    out.message = os.str();
  }
  return out;
}

AssemblyResult assembleVelocities(const Model& model, KinematicsWorkspace& ws, const State& guess,
                                  const AssemblyOptions& options) {
  checkStateSize(model, guess);
  const ConstraintScaling& s = model.scaling();
  const Scalar L = model.characteristicLength();
  const int n = model.nv();
  AssemblyResult out;
  out.state = guess;
  out.converged = true;
  State at_rest = guess;
  at_rest.v.setZero();
  evaluateConstraints(model, ws, at_rest);  // b does not depend on v
  MatX Cs;
  scaledMatrix(s, ws.C.dense(), Cs);
  const VecX rb = s.row.cwiseProduct(ws.b);
  const VecX vs0 = guess.v.cwiseQuotient(s.col);
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;
  cod.setThreshold(options.rank_threshold);

  auto consistent = [&](const VecX& vs) {
    return (Cs * vs + rb).norm() <= 1e-9 * (vs.norm() + rb.norm()) + options.velocity_tolerance * L;
  };
  VecX vs = vs0;
  std::vector<int> free_cols;
  const std::vector<bool>& prescribed = model.prescribedVelocities();
  for (int k = 0; k < n; ++k)
    if (!options.keep_prescribed_velocities || !prescribed[static_cast<std::size_t>(k)]) free_cols.push_back(k);

  bool done = false;
  if (!free_cols.empty() && static_cast<int>(free_cols.size()) < n) {
    // keep the prescribed components; the others: least-norm solution of the remaining system
    MatX Cu(Cs.rows(), static_cast<Eigen::Index>(free_cols.size()));
    VecX fixed_part = rb;
    for (int k = 0; k < n; ++k) {
      if (prescribed[static_cast<std::size_t>(k)] && options.keep_prescribed_velocities)
        fixed_part += Cs.col(k) * vs0(k);
    }
    for (std::size_t j = 0; j < free_cols.size(); ++j) Cu.col(static_cast<Eigen::Index>(j)) = Cs.col(free_cols[j]);
    if (Cs.rows() > 0) {
      cod.compute(Cu);
      const VecX vu = cod.solve(-fixed_part);
      for (std::size_t j = 0; j < free_cols.size(); ++j) vs(free_cols[j]) = vu(static_cast<Eigen::Index>(j));
    }
    done = consistent(vs);
  }
  if (!done && Cs.rows() > 0) {
    // no prescription, or an inconsistent one: smallest change to all velocities
    cod.compute(Cs);
    vs = vs0 - cod.solve(Cs * vs0 + rb);
    for (int k = 0; k < n; ++k) {
      if (prescribed[static_cast<std::size_t>(k)] && options.keep_prescribed_velocities) {
        out.velocity_change = std::max(out.velocity_change, std::abs(vs(k) - vs0(k)));
      }
    }
    out.prescribed_velocities_kept = out.velocity_change <= 1e-9 * (1 + vs0.norm());
  }
  out.state.v = s.col.cwiseProduct(vs);
  out.velocity_residual = (Cs * vs + rb).norm() / L;
  out.converged = consistent(vs);
  if (!out.converged) {
    out.message = "velocities could not be made consistent with the constraints (relative residual " +
                  std::to_string(out.velocity_residual) + ")";
  }
  evaluateConstraints(model, ws, out.state);
  out.pair_residuals = pairResiduals(model, ws, out.state);
  return out;
}

AssemblyResult assemble(const Model& model, KinematicsWorkspace& ws, const State& guess,
                        const AssemblyOptions& options) {
  AssemblyResult positions = assemblePositions(model, ws, guess, options);
  if (!positions.converged) return positions;
  AssemblyResult velocities = assembleVelocities(model, ws, positions.state, options);
  velocities.iterations = positions.iterations;
  velocities.position_residual = positions.position_residual;
  return velocities;
}

}  // namespace loopdyn
