#pragma once
/// Scaling that makes the constraint matrix dimensionless, so that rank decisions and
/// convergence tests do not depend on the units of length.
///
/// With L the model's characteristic length, a rotation rate w is measured as the speed L w, so
/// rotational columns are divided by L; angular equations (direction cosines, angles) are
/// multiplied by L so that every residual is a length. Then C_s = diag(row) C diag(col) is
/// dimensionless and unchanged when the model is scaled.

#include "loopdyn/common/types.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

struct ConstraintScaling {
  VecX row;  ///< size m + h: 1 for translational equations, L for angular ones
  VecX col;  ///< size nv: 1 for translational velocities, 1/L for angular velocities
};

ConstraintScaling constraintScaling(const Model& model);

/// The smallest scaled position residual ||Phi_s|| / L that Newton can reach at positions q in
/// floating point. The equations subtract positions of size R (the largest coordinate of a body
/// centre or ground marker), each of which is stored to within eps R; a 2 mm four-bar 30 m from
/// the origin cannot close better than 1e-15 m, which is 1e-12 of its size. Tolerances on
/// ||Phi_s|| / L are therefore at least this floor (issue 22).
Scalar positionResidualFloor(const Model& model, const VecX& q);

}  // namespace loopdyn
