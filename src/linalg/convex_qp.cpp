#include "loopdyn/linalg/convex_qp.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/LU>

namespace loopdyn {

namespace {

constexpr Scalar kInfinity = std::numeric_limits<Scalar>::infinity();

/// The active set's normals and the projections of one Goldfarb-Idnani step for the new normal n:
/// z = H n, the primal step (H = G^-1 - G^-1 N (N^T G^-1 N)^-1 N^T G^-1: G^-1 on the active
/// constraints' null space), and r = (N^T G^-1 N)^-1 N^T G^-1 n, the change of their multipliers.
void stepDirections(const MatX& G_inv, const MatX& A, const std::vector<Eigen::Index>& active, const VecX& n,
                    VecX& z, VecX& r) {
  const Eigen::Index q = static_cast<Eigen::Index>(active.size());
  z = G_inv * n;
  r.resize(q);
  if (q == 0) return;
  MatX N(A.rows(), q);
  for (Eigen::Index j = 0; j < q; ++j) N.col(j) = A.col(active[static_cast<std::size_t>(j)]);
  const MatX GN = G_inv * N;
  r = (N.transpose() * GN).partialPivLu().solve(GN.transpose() * n);
  z -= GN * r;
}

void drop(std::vector<Eigen::Index>& active, VecX& u, Eigen::Index k) {
  active.erase(active.begin() + k);
  for (Eigen::Index j = k; j + 1 < u.size(); ++j) u(j) = u(j + 1);
  u.conservativeResize(u.size() - 1);
}

}  // namespace

QpSolution solveConvexQp(const MatX& G, const VecX& g, const MatX& A, const VecX& b) {
  const MatX G_inv = G.llt().solve(MatX::Identity(G.rows(), G.cols()));
  QpSolution out;
  out.x = -G_inv * g;
  std::vector<Eigen::Index> active;
  VecX u(0);  // the active constraints' multipliers (>= 0)
  const auto slack = [&](Eigen::Index j) { return A.col(j).dot(out.x) - b(j); };
  const auto scale = [&](Eigen::Index j) { return std::abs(b(j)) + A.col(j).norm() * out.x.norm(); };
  for (int iteration = 0; iteration < 10 * static_cast<int>(A.cols() + A.rows()) + 10; ++iteration) {
    Eigen::Index p = -1;  // the most violated constraint
    Scalar worst = 0;
    for (Eigen::Index j = 0; j < A.cols(); ++j) {
      const Scalar s = slack(j);
      if (s < -1e-12 * scale(j) && s < worst) worst = s, p = j;
    }
    if (p < 0) {
      out.feasible = true;
      out.active = static_cast<int>(active.size());
      out.multipliers = VecX::Zero(A.cols());
      for (std::size_t j = 0; j < active.size(); ++j) out.multipliers(active[j]) = u(static_cast<Eigen::Index>(j));
      return out;
    }
    Scalar u_p = 0;  // its multiplier, growing from zero
    while (true) {
      VecX z, r;
      stepDirections(G_inv, A, active, A.col(p), z, r);
      Scalar t1 = kInfinity;  // the step at which an active multiplier reaches zero
      Eigen::Index k = -1;
      for (Eigen::Index j = 0; j < r.size(); ++j)
        if (r(j) > 0 && u(j) / r(j) < t1) t1 = u(j) / r(j), k = j;
      const Scalar zn = z.dot(A.col(p));
      const Scalar t2 = zn > 1e-14 * A.col(p).squaredNorm() * G_inv.norm() ? -slack(p) / zn : kInfinity;  // p met
      const Scalar t = std::min(t1, t2);
      if (t == kInfinity) return out;  // (no step meets p: the constraints admit no point)
      out.x += t2 == kInfinity ? VecX::Zero(out.x.size()) : VecX(t * z);
      u -= t * r;
      u_p += t;
      if (t == t2) {
        active.push_back(p);
        u.conservativeResize(u.size() + 1);
        u(u.size() - 1) = u_p;
        break;
      }
      drop(active, u, k);
    }
  }
  return out;  // (not reached for a well-posed problem: each constraint enters a finite number of times)
}

}  // namespace loopdyn
