#include "loopdyn/linalg/lanczos.hpp"

#include <algorithm>
#include <cmath>
#include <limits>


namespace loopdyn {

namespace {

/// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal a and off-diagonal b
/// (its leading k x k block) inside [below, above], to `precision` relative, by bisection on Sturm
/// counts (Golub & Van Loan, sect. 8.4.1): the negative pivots of the LDL^T of T - mu I count the
/// eigenvalues below mu. O(k) a bisection step.
Scalar largestTridiagonalEigenvalue(const VecX& a, const VecX& b, Eigen::Index k, Scalar below, Scalar above,
                                    Scalar precision) {
  const auto countBelow = [&](Scalar mu) {
    Eigen::Index count = 0;
    Scalar d = 1;
    for (Eigen::Index i = 0; i < k; ++i) {
      d = a(i) - mu - (i > 0 ? b(i - 1) * b(i - 1) / d : 0);
      if (d == 0) d = -std::numeric_limits<Scalar>::min();  // (mu an eigenvalue of a leading block)
      if (d < 0) ++count;
    }
    return count;
  };
  // the largest eigenvalue lies where the count below mu turns from k - 1 to k
  Scalar lo = below, hi = above;
  const Scalar resolution = std::max(precision, 4 * std::numeric_limits<Scalar>::epsilon());
  while (hi - lo > resolution * std::max(std::abs(lo), std::abs(hi))) {
    const Scalar mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (countBelow(mid) == k ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

Scalar largestEigenvalue(Eigen::Index n, const LinearOperator& A, Scalar tolerance, int max_steps, bool reorthogonalize) {
  if (n == 0) return 0;
  const auto steps = static_cast<Eigen::Index>(std::min<Eigen::Index>(n, max_steps));
  // the Lanczos vectors q_1 .. q_k (all of them to reorthogonalise against, else the last two);
  // room for more is made as the steps need it (a run that converges in a few steps of a large
  // model's watch does not hold max_steps vectors: 7.9 MB on the 2 048-loop ladder)
  MatX Q(n, reorthogonalize ? std::min<Eigen::Index>(steps, 8) : 2);
  const auto column = [&](Eigen::Index k) { return Q.col(reorthogonalize ? k : k % 2); };
  VecX alpha(steps), beta(steps), w(n);
  column(0) = VecX::LinSpaced(n, 1, static_cast<Scalar>(n)).normalized();
  Scalar ritz = 0;
  for (Eigen::Index k = 0; k < steps; ++k) {
    A(column(k), w);
    alpha(k) = column(k).dot(w);
    if (reorthogonalize) {
      // w = A q_k - alpha_k q_k - beta_(k-1) q_(k-1), then against every q_j again (full
      // reorthogonalisation, twice: rounding would otherwise bring back converged directions)
      for (int pass = 0; pass < 2; ++pass) w.noalias() -= Q.leftCols(k + 1) * (Q.leftCols(k + 1).transpose() * w);
    } else {
      // the three-term recurrence alone: orthogonality is lost as Ritz values converge, which
      // repeats them but keeps the extreme one (Paige; Golub & Van Loan, sect. 10.3)
      w -= alpha(k) * column(k);
      if (k > 0) w -= beta(k - 1) * column(k - 1);
    }
    beta(k) = w.norm();
    // the largest eigenvalue of T_k (k + 1 square, tridiagonal: alpha on the diagonal, beta beside),
    // between the last one (Cauchy's interlacing) and max(last, alpha_k) + |beta_(k-1)| (Weyl:
    // T_k differs from diag(T_(k-1), alpha_k) by a coupling of norm |beta_(k-1)|)
    const Scalar coupling = k > 0 ? std::abs(beta(k - 1)) : 0;
    const Scalar last = k > 0 ? ritz : alpha(0);
    // (to a thousandth of the tolerance the convergence test reads)
    const Scalar next = largestTridiagonalEigenvalue(alpha, beta, k + 1, std::min(last, alpha(k)),
                                                     std::max(last, alpha(k)) + coupling, 1e-3 * tolerance);
    const bool converged = k > 0 && std::abs(next - ritz) <= tolerance * std::abs(next);
    ritz = next;
    // (an exhausted Krylov space: A's restriction to it is exact)
    if (converged || k + 1 == steps || beta(k) <= 1e-14 * std::max<Scalar>(std::abs(ritz), 1e-300)) break;
    if (reorthogonalize && k + 1 == Q.cols()) Q.conservativeResize(Eigen::NoChange, std::min(steps, 2 * Q.cols()));
    column(k + 1) = w / beta(k);
  }
  return ritz;
}

namespace {

// (to 1e-7 a step: G's largest eigenvalues cluster on a ladder, where 1e-12 took all 80 steps)
constexpr Scalar kGramTolerance = 1e-7;

}  // namespace

Scalar GramEigenvalues::largest(const SparseMatrix& G) const {
  // (without reorthogonalisation: O(nnz) a step)
  return largestEigenvalue(G.rows(), [&](const VecX& v, VecX& y) { y.noalias() = G * v; }, kGramTolerance, 80, false);
}

Scalar GramEigenvalues::smallest(const SparseMatrix& G) {
  const Eigen::Index n = G.rows();
  if (n == 0) return 0;
  // the order and the symbolic factor depend on the pattern alone
  const bool same_pattern = static_cast<Eigen::Index>(outer_.size()) == n + 1 &&
                            static_cast<Eigen::Index>(inner_.size()) == G.nonZeros() &&
                            std::equal(outer_.begin(), outer_.end(), G.outerIndexPtr()) &&
                            std::equal(inner_.begin(), inner_.end(), G.innerIndexPtr());
  if (!same_pattern) {
    ldlt_.analyzePattern(G);
    outer_.assign(G.outerIndexPtr(), G.outerIndexPtr() + n + 1);
    inner_.assign(G.innerIndexPtr(), G.innerIndexPtr() + G.nonZeros());
  }
  ldlt_.factorize(G);
  // where G is singular to rounding the factor has a pivot at rounding level or below
  if (ldlt_.info() != Eigen::Success || !(ldlt_.vectorD().minCoeff() > 0)) return 0;
  const Scalar inverse_smallest =
      largestEigenvalue(n, [&](const VecX& v, VecX& y) { y = ldlt_.solve(v); }, kGramTolerance);
  if (!(inverse_smallest > 0) || !std::isfinite(inverse_smallest)) return 0;
  return 1 / inverse_smallest;
}

Scalar gramSingularValueRatio(const SparseMatrix& G) {
  if (G.rows() == 0) return 1;
  GramEigenvalues eigenvalues;
  const Scalar largest = eigenvalues.largest(G);
  if (!(largest > 0)) return 0;
  const Scalar smallest = eigenvalues.smallest(G);
  return smallest > 0 ? std::sqrt(smallest / largest) : 0;
}

}  // namespace loopdyn
