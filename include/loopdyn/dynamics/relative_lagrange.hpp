#pragma once
/// Lagrange's equations in relative coordinates (issue 15): the spanning tree's joint coordinates,
/// with the equations of the joints outside the tree (cut joints, distance joints, knife edges) and
/// of the drivers kept as constraints:
///   M_r a + C_r^T mu = Q_r,   C_r a = gamma_r,
/// where M_r = J^T M J, Q_r = J^T (F - M Jdot v), C_r = C_cut J and gamma_r = Gamma_cut - C_cut Jdot v
/// (tree_dynamics.hpp for the tree part; C_cut, Gamma_cut: the absolute rows of those pairs). The
/// multipliers mu are the least-norm ones (C_r M_r^-1 C_r^T mu = ..., redundant rows allowed).
/// Every joint's reaction then follows from the bodies' equations F - M A = C^T lambda over all
/// rows (least norm), so the reactions of tree joints, which relative coordinates eliminate, are
/// reported as in absolute coordinates; the unique ones are the same, the non-unique ones are one
/// choice of many (docs/uniqueness.md).
///
/// Dense with an explicit J: the baseline of the recursive methods to come.

#include "loopdyn/kinematics/tree_kinematics.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

struct RelativeDynamics {
  VecX a_r;     ///< joint accelerations (size topology.nv)
  VecX A;       ///< body accelerations, the absolute velocity layout
  VecX lambda;  ///< multipliers of every row of C, absolute row order
  int rank = 0;  ///< rank of C_r (the constraints left in relative coordinates)
};

/// At (t, q_r, v_r). Rank decisions relative to the largest pivot, as kRankThreshold.
RelativeDynamics relativeLagrange(const Model& model, const TreeKinematics& tree, Scalar t, const VecX& q_r,
                                  const VecX& v_r);

}  // namespace loopdyn
