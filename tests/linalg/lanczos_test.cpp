// The Lanczos process for the largest eigenvalue (linalg/lanczos.hpp) against Eigen's dense
// symmetric eigen-solver, on matrices of known spectrum Q diag(lambda) Q^T (Q random orthogonal):
// geometric (condition 1e8), a ladder-like spectrum (k^2), and a cluster at the top; and through a Cholesky
// factor for the smallest eigenvalue. Tolerances: 1e-10 relative where the top is separated (the
// stopping test is 1e-12 between steps); within the cluster's own spread where it is not; for the
// smallest, 1e-10 relative plus 1e-14 of the largest: the matrix formed from its spectrum holds
// the small eigenvalues only to about n eps |A| (Weyl; measured errors up to 2e-10 at condition
// 1e8, none near the bound).

#include "loopdyn/linalg/lanczos.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>

namespace loopdyn {
namespace {

MatX withSpectrum(const VecX& lambda, std::mt19937& rng) {
  std::normal_distribution<Scalar> normal;
  MatX X(lambda.size(), lambda.size());
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = normal(rng);
  const MatX Q = Eigen::HouseholderQR<MatX>(X).householderQ();
  return Q * lambda.asDiagonal() * Q.transpose();
}

TEST(Lanczos, FindsTheLargestAndThroughAFactorTheSmallestEigenvalue) {
  std::mt19937 rng(10);
  for (const Eigen::Index n : {1, 3, 40, 300}) {
    VecX separated(n), squares(n), cluster(n);
    for (Eigen::Index k = 0; k < n; ++k) {
      separated(k) = std::pow(1e8, static_cast<Scalar>(k) / static_cast<Scalar>(n));  // (condition 1e8)
      squares(k) = static_cast<Scalar>((k + 1) * (k + 1));
      cluster(k) = k + 10 >= n ? 100 * (1 + 1e-7 * static_cast<Scalar>(k)) : 1 + static_cast<Scalar>(k) / static_cast<Scalar>(n);
    }
    for (const VecX* spectrum : {&separated, &squares, &cluster}) {
      const MatX A = withSpectrum(*spectrum, rng);
      const Scalar top = spectrum->maxCoeff(), bottom = spectrum->minCoeff();
      const Scalar spread = spectrum == &cluster && n > 10 ? 1e-5 : 1e-10;
      const Scalar largest = largestEigenvalue(n, [&](const VecX& x, VecX& y) { y.noalias() = A * x; });
      EXPECT_LE(largest, top * (1 + 1e-12)) << "n " << n;
      EXPECT_GT(largest, top * (1 - spread)) << "n " << n;
      // the smallest: the largest of A^-1, through A's Cholesky factor
      const Eigen::LLT<MatX> llt(A);
      const Scalar inverse = largestEigenvalue(n, [&](const VecX& x, VecX& y) { y = llt.solve(x); });
      EXPECT_NEAR(1 / inverse, bottom, 1e-10 * bottom + 1e-14 * top) << "n " << n;
    }
  }
}

// A diagonal matrix: the fixed start (1, 2, 3, 4) has a part along each axis, so the Krylov space
// is exhausted after four steps and T_4 has A's eigenvalues; an empty operator has none.
TEST(Lanczos, AnExhaustedKrylovSpaceIsExact) {
  const Eigen::Index n = 4;
  MatX A = MatX::Zero(n, n);
  A.diagonal() << 2, 3, 5, 7;
  EXPECT_NEAR(largestEigenvalue(n, [&](const VecX& x, VecX& y) { y.noalias() = A * x; }), 7, 1e-13);
  EXPECT_EQ(largestEigenvalue(0, [&](const VecX&, VecX&) {}), 0);
}

// GramEigenvalues keeps G's symbolic factor for its pattern: a second matrix of the same pattern
// and then one of another pattern (a fill the first lacks) get their own smallest eigenvalue, as
// a fresh reader and the dense solver give them (to the stopping test's 1e-7: these spectra
// cluster at both ends); a singular G gives 0 or a rounding-level value.
TEST(Lanczos, TheGramReaderFollowsItsMatricesAcrossPatterns) {
  const auto tridiagonal = [](Eigen::Index n, Scalar diagonal, Scalar beside, bool corner) {
    std::vector<Eigen::Triplet<Scalar>> entries;
    for (Eigen::Index i = 0; i < n; ++i) {
      entries.emplace_back(i, i, diagonal);
      if (i + 1 < n) entries.emplace_back(i, i + 1, beside), entries.emplace_back(i + 1, i, beside);
    }
    if (corner) entries.emplace_back(0, n - 1, beside), entries.emplace_back(n - 1, 0, beside);
    SparseMatrix G(n, n);
    G.setFromTriplets(entries.begin(), entries.end());
    return G;
  };
  GramEigenvalues reader;
  for (const SparseMatrix& G : {tridiagonal(50, 3, -1, false), tridiagonal(50, 2.5, -1, false),
                                tridiagonal(50, 3, -1, true), tridiagonal(50, 2, -1, true)}) {
    const Eigen::SelfAdjointEigenSolver<MatX> dense{MatX(G)};
    const Scalar smallest = dense.eigenvalues()(0), largest = dense.eigenvalues()(49);
    if (smallest < 1e-12) {
      // (the periodic Laplacian: constant vectors in its null space)
      EXPECT_LE(reader.smallest(G), 1e-14 * largest);
      continue;
    }
    EXPECT_NEAR(reader.smallest(G), smallest, 1e-7 * smallest);
    EXPECT_NEAR(reader.largest(G), largest, 1e-5 * largest);
    EXPECT_DOUBLE_EQ(std::sqrt(reader.smallest(G) / reader.largest(G)), gramSingularValueRatio(G));
  }
}

}  // namespace
}  // namespace loopdyn
