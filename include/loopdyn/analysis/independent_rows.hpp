#pragma once
/// The sparse route of the analyses, for large mechanisms whose constraint equations are all
/// independent (chains closed into ladders, trees with local loops): every row of C independent is
/// decided without a dense factorisation, from sigma_min / sigma_max of C_s, read off its sparse
/// Gram matrix G = C_s C_s^T (Lanczos on G and on G^-1 through a sparse LDL^T, linalg/lanczos.hpp),
/// O(nonzeros) a Lanczos step instead of O(m^2 n).
///
/// Why the answers are the dense route's: every diagonal entry of the triangular factor of a QR of
/// C_s^T is an eigenvalue of it, so sigma_min <= |R_kk|, and |R_11| (a column norm) <= sigma_max;
/// hence |R_kk| / |R_11| >= sigma_min / sigma_max for every k and the pivoted QR counts full rank
/// whenever sigma_min / sigma_max is above the rank threshold. The route certifies independence
/// only from kCertifiedRatio, three decades above the rank threshold (the Lanczos ratio can come out
/// above the true one, G's rounding blurs it below about 1.5e-8); below it the dense route decides.
/// With independent rows the redundancy is zero and the null space of C^T is {0}: every reaction,
/// multiplier and transmitted component is unique (analysis/reaction_uniqueness.hpp), and the rank
/// cannot fall below m + h nearby (rank is lower semicontinuous), so it is the generic rank.

#include <vector>

#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/linalg/lanczos.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// sigma_min / sigma_max of C_s from which its rows count as certainly independent.
inline constexpr Scalar kCertifiedRatio = 1e-6;

/// sigma_min / sigma_max of C_s certifies its rows independent for a rank decision at
/// rank_threshold: from kCertifiedRatio, and three decades above the threshold.
inline bool certifiesIndependence(Scalar ratio, Scalar rank_threshold) {
  return ratio >= kCertifiedRatio && ratio >= 1e3 * rank_threshold;
}

/// G = C_s C_s^T of every scaled row of C as evaluated in ws (sparse, both triangles stored).
SparseMatrix scaledGram(const Model& model, const KinematicsWorkspace& ws);

/// sigma_min / sigma_max of the scaled rows `rows` of C as evaluated in ws; 0 where they are
/// dependent to rounding.
Scalar rowsSingularValueRatio(const Model& model, const KinematicsWorkspace& ws, const std::vector<int>& rows);

/// The same for every row of C.
Scalar singularValueRatio(const Model& model, const KinematicsWorkspace& ws);

/// The model is large enough for the sparse route (kSparseRows rows, model/model.hpp); the watch
/// then reads sigma_r / sigma_1 (dynamics/singular_watch.hpp) where the generic rank is the row count.
inline bool sparseRouteSize(const Model& model) { return model.nc() >= kSparseRows; }

/// A mechanism of generic rank `generic_rank` is watched on sigma_r / sigma_1 (the sparse route's
/// quantity), and its regular level (RankReport::generic_ratio) is read on it too.
inline bool watchedBySingularValues(const Model& model, int generic_rank) {
  return sparseRouteSize(model) && generic_rank == model.nc();
}

/// Throws InvalidArgument where `what`, a dense analysis, cannot take the model on (its size
/// beyond kLargestDenseSize: model/model.hpp's denseSizeProblem): the equations the sparse route
/// could not certify independent at the configuration evaluated in ws, with their
/// sigma_min / sigma_max there.
void requireDenseSize(const Model& model, const KinematicsWorkspace& ws, std::string_view what);

}  // namespace loopdyn
