#include "loopdyn/dynamics/singular_start.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <Eigen/SVD>

#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"
#include "loopdyn/dynamics/tangent_space.hpp"
#include "loopdyn/kinematics/assembly.hpp"

namespace loopdyn {

namespace {

/// The tangential part of the initial acceleration (scaled), see the header.
VecX initialAcceleration(const Model& model, DynamicsWorkspace& ws, const State& x, const MatX& N) {
  const VecX& S = ws.scaling.col;
  massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  const MatX Mt = S.asDiagonal() * ws.M * S.asDiagonal();
  const VecX Ft = S.cwiseProduct(ws.F);
  Eigen::CompleteOrthogonalDecomposition<MatX> cod(ws.tangent.At.transpose());
  const VecX a_p = cod.solve(ws.scaling.row.cwiseProduct(ws.kin.Gamma));
  const VecX w = (N.transpose() * Mt * N).llt().solve(N.transpose() * (Ft - Mt * a_p));
  return N * w;
}

}  // namespace

SingularStart singularStartBasis(const Model& model, DynamicsWorkspace& ws, const State& x, int rank) {
  SingularStart out;
  const int n = model.nv(), f = n - rank;
  const Scalar L = model.characteristicLength();
  const VecX& S = ws.scaling.col;
  TangentFactorization& tf = ws.tangent;
  evaluateConstraints(model, ws.kin, x);
  tf.compute(ws.kin, ws.scaling, rank);
  out.rank = std::min(tf.rankAt(kSingularRatio), rank);
  const MatX Q = tf.fullQ();
  const MatX Q1 = Q.leftCols(out.rank), N = Q.rightCols(n - out.rank);

  // the direction of the motion: its velocity, or at rest its acceleration
  VecX d = N * (N.transpose() * S.cwiseInverse().cwiseProduct(x.v));
  if (d.norm() <= 1e-12 * L) {
    out.at_rest = true;
    d = initialAcceleration(model, ws, x, N);
    if (!(d.norm() > 1e-12 * L)) {
      // at rest in equilibrium: it stays there, on every branch at once
      out.T = N.leftCols(f);
      return out;
    }
  }
  d.normalize();

  // the branch through x along d: its tangent basis at a configuration eps L away, moved to x
  State probe = x;
  displacePositions(model, x.q, S.cwiseProduct(kSingularProbe * L * d), probe.q);
  const AssemblyResult on_branch = assemblePositions(model, ws.kin, probe);
  if (!on_branch.converged) {
    out.problem = Problem::of(Problem::Kind::BranchUnreachable);
    out.problem.detail = on_branch.message;
    return out;
  }
  evaluateConstraints(model, ws.kin, on_branch.state);
  tf.compute(ws.kin, ws.scaling, rank);
  MatX P = tf.fullQ().rightCols(f);
  evaluateConstraints(model, ws.kin, x);
  tf.compute(ws.kin, ws.scaling, rank);
  if (!reorthogonalize(Q1, P)) {
    out.problem = Problem::of(Problem::Kind::BranchOrthogonal);
    return out;
  }
  out.misfit = (d - P * (P.transpose() * d)).norm();
  if (out.misfit > kBranchMisfit) {
    // d points between branches: the motion takes the nearest one, the probe's, along its own
    // tangent (with d itself the motion would leave the constraints at once)
    out.T = P;
    return out;
  }

  // T = [d, the rest of the branch's tangent orthogonal to d]
  out.T.resize(n, f);
  out.T.col(0) = d;
  if (f > 1) {
    const MatX rest = P - d * (d.transpose() * P);
    Eigen::JacobiSVD<MatX> svd(rest, Eigen::ComputeThinU);
    out.T.rightCols(f - 1) = svd.matrixU().leftCols(f - 1);
  }
  return out;
}

RunEvent singularStartEvent(const SingularStart& branch, const State& x, Scalar ratio, int rank_regular,
                            bool joint_coordinates) {
  RunEvent e;
  e.kind = EventKind::SingularStart;
  e.t = x.t;
  e.ratio = ratio;
  e.rank = branch.rank;
  e.rank_regular = rank_regular;
  e.new_motions = rank_regular - branch.rank;
  e.at_rest = branch.at_rest;
  e.misfit = branch.misfit;
  e.between_branches = branch.misfit > kBranchMisfit;
  e.joint_coordinates = joint_coordinates;
  return e;
}

}  // namespace loopdyn
