#include "loopdyn/kinematics/assembly.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "loopdyn/common/errors.hpp"
#include "loopdyn/kinematics/assembly_misfit.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/linalg/sparse_minimum_norm.hpp"

namespace loopdyn {

namespace {

Scalar scaledPositionResidual(const Model& model, const KinematicsWorkspace& ws, const ConstraintScaling& s) {
  if (model.m() == 0) return 0;
  return s.row.head(model.m()).cwiseProduct(ws.Phi).norm() / model.characteristicLength();
}

/// The minimum-norm solution of A x = b where A's rows are independent; empty where they are not
/// (the callers then take the dense route).
VecX sparseMinimumNorm(SparseMatrix A, const VecX& b) {
  const SparseMinimumNorm solver(std::move(A));
  if (!solver.ok()) return {};
  VecX x = solver.solve(b);
  return x.allFinite() ? x : VecX();
}

}  // namespace

namespace {

/// The Newton step of the assembly in unscaled velocity coordinates: the minimum-norm least-squares
/// solution of C_s dx_s = -Phi_s, robust to dependent rows; held bodies (`hold: true`) take no part
/// (their columns removed). Sparse where asked and the rows are independent
/// (linalg/sparse_minimum_norm.hpp; empty where they are not), else a complete orthogonal
/// decomposition. ws evaluated at the current positions.
VecX newtonStep(const Model& model, const KinematicsWorkspace& ws, bool sparse, Scalar rank_threshold) {
  const ConstraintScaling& s = model.scaling();
  const int m = model.m();
  const VecX rhs = -s.row.head(m).cwiseProduct(ws.Phi);
  if (sparse) {
    std::vector<int> rows(static_cast<std::size_t>(m));
    std::iota(rows.begin(), rows.end(), 0);
    const VecX step = sparseMinimumNorm(scaledSparseRows(s, ws.C, rows), rhs);
    return step.size() == 0 ? step : VecX(s.col.cwiseProduct(step));
  }
  MatX Cs = s.row.head(m).asDiagonal() * ws.C.dense().topRows(m) * s.col.asDiagonal();
  for (BodyIndex b = 0; b < model.nb(); ++b)
    if (model.heldBodies()[static_cast<std::size_t>(b)]) Cs.middleCols(b * model.vPerBody(), model.vPerBody()).setZero();
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;
  cod.setThreshold(rank_threshold);
  cod.compute(Cs);
  return s.col.cwiseProduct(cod.solve(rhs));
}

/// What a model too large for the dense route is told where its rows are dependent.
constexpr std::string_view kDependentRows =
    "it is asked for because the constraint equations are dependent or nearly so here: loopdyn assembles a "
    "model this large only where its equations are independent (no redundant joint, a regular configuration)";

}  // namespace

AssemblyResult assemblePositions(const Model& model, KinematicsWorkspace& ws, const State& guess,
                                 const AssemblyOptions& options) {
  checkStateSize(model, guess);
  const ConstraintScaling& s = model.scaling();
  AssemblyResult out;
  out.state = guess;
  State trial = guess;
  // the sparse step for many equations, until it fails to lower the residual (nearly dependent rows)
  const bool held = std::any_of(model.heldBodies().begin(), model.heldBodies().end(), [](bool h) { return h; });
  bool sparse = options.sparse_route && model.m() >= kSparseRows && !held;

  evaluateConstraints(model, ws, out.state);
  Scalar residual = scaledPositionResidual(model, ws, s);
  // the requested tolerance, or what rounding allows far from the origin
  const Scalar tolerance = std::max(options.position_tolerance, positionResidualFloor(model, guess.q));
  bool stalled = false;  // no fraction of a step lowered the residual: a closest configuration
  while (residual > tolerance && out.iterations < options.max_iterations) {
    ++out.iterations;
    const VecX step = newtonStep(model, ws, sparse, options.rank_threshold);
    // backtracking: accept the first fraction of the step that lowers the residual
    Scalar alpha = 1;
    bool lowered = false;
    for (int halving = 0; halving < 12 && !lowered && step.size() > 0; ++halving, alpha /= 2) {
      displacePositions(model, out.state.q, alpha * step, trial.q);
      evaluateConstraints(model, ws, trial);
      const Scalar r = scaledPositionResidual(model, ws, s);
      if (r < residual) {
        lowered = true;
        residual = r;
        out.state.q = trial.q;
      }
    }
    if (!lowered && sparse) {
      sparse = false;
      evaluateConstraints(model, ws, out.state);
      if (const std::string problem = denseSizeProblem(model, "assembly by dense least squares", kDependentRows);
          !problem.empty()) {
        out.failure.kind = AssemblyFailure::Kind::TooLarge;
        out.failure.detail = problem;
        out.message = problem;
        out.pair_residuals = pairResiduals(model, ws, out.state);
        return out;
      }
      continue;
    }
    if (!lowered) {
      stalled = true;
      break;
    }
  }
  evaluateConstraints(model, ws, out.state);
  out.position_residual = residual;
  out.converged = residual <= tolerance;
  out.pair_residuals = pairResiduals(model, ws, out.state);
  if (!out.converged) {
    out.failure = assemblyFailure(model, ws, out.state, out.iterations, stalled, residual, tolerance);
    out.message = assemblyFailureText(out.failure);
  }
  return out;
}

namespace {

/// C_s at one configuration for the velocity assembly: products and minimum-norm solutions on a
/// subset of its columns. Dense (a complete orthogonal decomposition: rank-revealing), or sparse
/// for many rows (linalg/sparse_minimum_norm.hpp), which hands a system with dependent rows to
/// the dense route.
class VelocitySystem {
 public:
  VelocitySystem(const Model& model, const KinematicsWorkspace& ws, const AssemblyOptions& options)
      : model_(model), ws_(ws), rank_threshold_(options.rank_threshold),
        sparse_(options.sparse_route && model.nc() >= kSparseRows) {
    if (sparse_) {
      std::vector<int> rows(static_cast<std::size_t>(model.nc()));
      std::iota(rows.begin(), rows.end(), 0);
      Cs_sparse_ = scaledSparseRows(model.scaling(), ws.C, rows);
    } else {
      scaledMatrix(model.scaling(), ws.C.dense(), Cs_);
    }
  }
  Eigen::Index rows() const { return model_.nc(); }
  VecX times(const VecX& v) const { return sparse_ ? VecX(Cs_sparse_ * v) : VecX(Cs_ * v); }
  /// start plus the sum over `cols` of C_s's column k times v(k).
  VecX plusColumnsTimes(VecX start, const std::vector<int>& cols, const VecX& v) const {
    if (sparse_) {
      VecX masked = VecX::Zero(v.size());
      for (int k : cols) masked(k) = v(k);
      return start + Cs_sparse_ * masked;
    }
    for (int k : cols) start += Cs_.col(k) * v(k);
    return start;
  }
  /// The minimum-norm x with C_s(:, cols) x = rhs (least squares where it has no solution).
  VecX leastNorm(const std::vector<int>& cols, const VecX& rhs) {
    if (sparse_) {
      std::vector<int> index(static_cast<std::size_t>(model_.nv()), -1);
      for (std::size_t j = 0; j < cols.size(); ++j) index[static_cast<std::size_t>(cols[j])] = static_cast<int>(j);
      std::vector<Eigen::Triplet<Scalar>> entries;
      for (Eigen::Index c = 0; c < Cs_sparse_.outerSize(); ++c)
        for (SparseMatrix::InnerIterator it(Cs_sparse_, c); it; ++it)
          if (const int j = index[static_cast<std::size_t>(it.col())]; j >= 0) entries.emplace_back(it.row(), j, it.value());
      SparseMatrix A(rows(), static_cast<Eigen::Index>(cols.size()));
      A.setFromTriplets(entries.begin(), entries.end());
      if (VecX x = sparseMinimumNorm(std::move(A), rhs); x.size() > 0) return x;
      sparse_ = false;  // dependent rows: the dense route from here on
      if (const std::string problem = denseSizeProblem(model_, "the velocity assembly", kDependentRows); !problem.empty())
        throw InvalidArgument(problem);
      scaledMatrix(model_.scaling(), ws_.C.dense(), Cs_);
    }
    MatX Cu(Cs_.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t j = 0; j < cols.size(); ++j) Cu.col(static_cast<Eigen::Index>(j)) = Cs_.col(cols[j]);
    Eigen::CompleteOrthogonalDecomposition<MatX> cod;
    cod.setThreshold(rank_threshold_);
    cod.compute(Cu);
    return cod.solve(rhs);
  }

 private:
  const Model& model_;
  const KinematicsWorkspace& ws_;
  Scalar rank_threshold_;
  bool sparse_;
  MatX Cs_;
  SparseMatrix Cs_sparse_;
};

}  // namespace

namespace {

/// The velocity assembly's solve (into out.state.v and its figures): the prescribed velocities
/// kept where the rest can satisfy the constraints, else the smallest change to all of them.
/// Throws InvalidArgument where a model too large for the dense route needs it.
void solveVelocities(const Model& model, VelocitySystem& Cs, const VecX& b, const State& guess,
                     const AssemblyOptions& options, AssemblyResult& out) {
  const ConstraintScaling& s = model.scaling();
  const Scalar L = model.characteristicLength();
  const int n = model.nv();
  const VecX rb = s.row.cwiseProduct(b);
  const VecX vs0 = guess.v.cwiseQuotient(s.col);
  auto consistent = [&](const VecX& vs) {
    return (Cs.times(vs) + rb).norm() <= 1e-9 * (vs.norm() + rb.norm()) + options.velocity_tolerance * L;
  };
  VecX vs = vs0;
  std::vector<int> free_cols, prescribed_cols, all_cols(static_cast<std::size_t>(n));
  std::iota(all_cols.begin(), all_cols.end(), 0);
  const std::vector<bool>& prescribed = model.prescribedVelocities();
  for (int k = 0; k < n; ++k)
    (options.keep_prescribed_velocities && prescribed[static_cast<std::size_t>(k)] ? prescribed_cols : free_cols).push_back(k);

  bool done = false;
  if (!free_cols.empty() && static_cast<int>(free_cols.size()) < n) {
    // keep the prescribed components; the others: least-norm solution of the remaining system
    const VecX fixed_part = Cs.plusColumnsTimes(rb, prescribed_cols, vs0);
    if (Cs.rows() > 0) {
      const VecX vu = Cs.leastNorm(free_cols, -fixed_part);
      for (std::size_t j = 0; j < free_cols.size(); ++j) vs(free_cols[j]) = vu(static_cast<Eigen::Index>(j));
    }
    done = consistent(vs);
  }
  if (!done && Cs.rows() > 0) {
    // no prescription, or an inconsistent one: smallest change to all velocities
    vs = vs0 - Cs.leastNorm(all_cols, Cs.times(vs0) + rb);
    for (int k : prescribed_cols) out.velocity_change = std::max(out.velocity_change, std::abs(vs(k) - vs0(k)));
    out.prescribed_velocities_kept = out.velocity_change <= 1e-9 * (1 + vs0.norm());
  }
  out.state.v = s.col.cwiseProduct(vs);
  out.velocity_residual = (Cs.times(vs) + rb).norm() / L;
  out.converged = consistent(vs);
  if (!out.converged) {
    out.failure.kind = AssemblyFailure::Kind::VelocitiesInconsistent;
    out.failure.residual = out.velocity_residual;
    out.message = assemblyFailureText(out.failure);
  }
}

}  // namespace

AssemblyResult assembleVelocities(const Model& model, KinematicsWorkspace& ws, const State& guess,
                                  const AssemblyOptions& options) {
  checkStateSize(model, guess);
  AssemblyResult out;
  out.state = guess;
  out.converged = true;
  State at_rest = guess;
  at_rest.v.setZero();
  evaluateConstraints(model, ws, at_rest);  // b does not depend on v
  VelocitySystem Cs(model, ws, options);
  try {
    solveVelocities(model, Cs, ws.b, guess, options, out);
  } catch (const InvalidArgument& e) {  // (too large for the dense route)
    out.converged = false;
    out.failure.kind = AssemblyFailure::Kind::TooLarge;
    out.failure.detail = e.what();
    out.message = e.what();
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
