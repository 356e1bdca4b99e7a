#pragma once
/// The projective criterion for choosing independent coordinates (paper 003, sect. 3).
///
/// In the configuration space with the kinetic-energy metric M, the unit vector k_i along the
/// velocity coordinate v_i (|k_i|^2 = M^-1(i,i), eq. (19)) splits into its projections on the
/// tangent subspace (admissible motions, null C) and on the orthogonal, constrained subspace
/// (range M^-1 C^T). Their squared cosines
///   cos^2 alpha_i = (k_i*(d))^T M_d^-1 k_i*(d) / M^-1(i,i),   M_d = D M D^T     (eq. (23a))
///   cos^2 beta_i  = (k_i*(c))^T M_c^+  k_i*(c) / M^-1(i,i),   M_c = C M^-1 C^T  (eq. (23b))
/// add up to 1. The larger cos^2 alpha_i, the better v_i serves as an independent coordinate;
/// cos^2 alpha_i = 0 makes it a singular choice. Both are independent of the tangent basis D
/// (here T = D^T from the QR factorisation of C^T) and of redundant rows of C (pseudo-inverse).
///
/// Choosing a SET of k = n - rank C coordinates: the tangent projections are the columns of
/// W = (T^T M T)^-1/2 T^T diag(M^-1(i,i))^-1/2 (k x n, |W e_i|^2 = cos^2 alpha_i). QR with
/// column pivoting of W takes first the coordinate of largest cos^2 alpha, then each time the one
/// whose projection has the largest part not yet spanned by those chosen. A set S is a regular
/// choice exactly when the columns W_S are independent (then C_D, the dependent columns of C, is
/// invertible), and since rank W = k, pivoting finds k independent columns whenever such a set
/// exists: the chosen set is never singular where a regular one exists. The pivots |R_jj| tell
/// how far from singular it is (the product of their squares is det(W_S)^2, the squared volume
/// of the chosen projections).

#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/scaling.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

struct ProjectiveCriterion {
  int rank = 0;                    ///< rank C (holonomic and nonholonomic rows)
  std::vector<Scalar> cos2_alpha;  ///< per velocity coordinate, eq. (23a)
  std::vector<Scalar> cos2_beta;   ///< per velocity coordinate, eq. (23b)
  std::vector<int> best_set;       ///< k = n - rank velocity coordinates, in the order chosen
  std::vector<Scalar> set_pivots;  ///< |R_jj| of the pivoted QR of W, one per chosen coordinate
  Scalar set_sigma_min = 1;        ///< sigma_min(W_S) of the best set (1 when k = 0)
};

/// The criterion at state x (positions only matter). `M` is the mass matrix at x. `rank`: the rank
/// of C to use (the generic rank on a motion), or < 0 to decide it at x with kRankThreshold.
ProjectiveCriterion projectiveCriterion(const Model& model, KinematicsWorkspace& ws, const MatX& M, const State& x,
                                        int rank = -1);

/// The criterion for any coordinates: mass matrix M (n x n), constraint matrix C (rows x n) and
/// the scaling that makes C dimensionless for the rank decision (row: per equation, col: per
/// coordinate; all ones when C already is). For relative coordinates, e.g. paper 003's four-bar.
ProjectiveCriterion projectiveCriterion(const MatX& M, const MatX& C, const ConstraintScaling& scaling, int rank = -1);

/// Names of the velocity coordinates: `<body>.x .y .phi` (2D), `<body>.x .y .z .rx .ry .rz` (3D,
/// rotations about the world axes).
std::vector<std::string> velocityCoordinateNames(const Model& model);

}  // namespace loopdyn
