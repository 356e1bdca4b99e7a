#include "loopdyn/linalg/lanczos.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

namespace loopdyn {

Scalar largestEigenvalue(Eigen::Index n, const LinearOperator& A, Scalar tolerance, int max_steps) {
  if (n == 0) return 0;
  const auto steps = static_cast<Eigen::Index>(std::min<Eigen::Index>(n, max_steps));
  MatX Q(n, steps);  // the Lanczos vectors q_1 .. q_k
  VecX alpha(steps), beta(steps), w(n);
  Q.col(0) = VecX::LinSpaced(n, 1, static_cast<Scalar>(n)).normalized();
  Scalar ritz = 0;
  for (Eigen::Index k = 0; k < steps; ++k) {
    A(Q.col(k), w);
    alpha(k) = Q.col(k).dot(w);
    // w = A q_k - alpha_k q_k - beta_(k-1) q_(k-1), then against every q_j again (full
    // reorthogonalisation, twice: rounding would otherwise bring back converged directions)
    for (int pass = 0; pass < 2; ++pass) w.noalias() -= Q.leftCols(k + 1) * (Q.leftCols(k + 1).transpose() * w);
    beta(k) = w.norm();
    // the largest eigenvalue of T_k (k + 1 square, tridiagonal: alpha on the diagonal, beta beside)
    MatX T = MatX::Zero(k + 1, k + 1);
    for (Eigen::Index i = 0; i <= k; ++i) {
      T(i, i) = alpha(i);
      if (i < k) T(i, i + 1) = T(i + 1, i) = beta(i);
    }
    const Scalar next = Eigen::SelfAdjointEigenSolver<MatX>(T, Eigen::EigenvaluesOnly).eigenvalues()(k);
    const bool converged = k > 0 && std::abs(next - ritz) <= tolerance * std::abs(next);
    ritz = next;
    // (an exhausted Krylov space: A's restriction to it is exact)
    if (converged || k + 1 == steps || beta(k) <= 1e-14 * std::max<Scalar>(std::abs(ritz), 1e-300)) break;
    Q.col(k + 1) = w / beta(k);
  }
  return ritz;
}

}  // namespace loopdyn
