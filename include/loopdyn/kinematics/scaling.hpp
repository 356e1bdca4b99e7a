#pragma once
/// The constraint matrix made dimensionless by the model's ConstraintScaling (model/model.hpp),
/// and the floor of the scaled position residual.

#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/constraint_jacobian.hpp"
#include "loopdyn/linalg/lanczos.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// C_s = diag(row) C diag(col): C made dimensionless (its rank and pivots are the model's, in any
/// units).
inline void scaledMatrix(const ConstraintScaling& scaling, const MatX& C, MatX& out) {
  out.noalias() = scaling.row.asDiagonal() * C * scaling.col.asDiagonal();
}

/// C_s^T = diag(col) C^T diag(row): C's scaled transpose (one column per row of C), the matrix
/// every rank decision, tangent basis and least-norm solve reads.
inline void scaledTransposed(const ConstraintScaling& scaling, const MatX& C, MatX& out) {
  out.noalias() = scaling.col.asDiagonal() * C.transpose() * scaling.row.asDiagonal();
}

/// The rows `rows` of C_s (in that order) as a sparse rows x nv matrix, from C's blocks: O(rows),
/// no dense C formed.
SparseMatrix scaledSparseRows(const ConstraintScaling& scaling, const ConstraintJacobian& C, const std::vector<int>& rows);

/// The smallest scaled position residual ||Phi_s|| / L that Newton can reach at positions q in
/// floating point. The equations subtract positions of size R (the largest coordinate of a body
/// centre or ground marker), each of which is stored to within eps R; a 2 mm four-bar 30 m from
/// the origin cannot close better than 1e-15 m, which is 1e-12 of its size. Tolerances on
/// ||Phi_s|| / L are therefore at least this floor (issue 22).
Scalar positionResidualFloor(const Model& model, const VecX& q);

}  // namespace loopdyn
