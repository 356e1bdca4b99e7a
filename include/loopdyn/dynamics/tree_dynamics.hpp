#pragma once
/// Forward dynamics of an open tree in relative coordinates (issue 15: the baseline that the
/// recursive methods of the DCA issues replace).
///
/// The absolute Newton-Euler equations M A = F + (joint reactions), with the body accelerations of
/// the tree A = J a_r + Jdot v_r (TreeKinematics), projected onto the tree's motions:
///   J^T M J a_r = J^T (F - M Jdot v_r)
/// (Kane's equations: the ideal joint reactions do no work on the motions the joints allow and
/// drop out). M and F are those of the absolute formulations (gravity, springs, dampers, loads,
/// joint efforts, gyroscopic terms). Dense, with an explicit J: O(n^2) memory, O(n^3) time.

#include "loopdyn/kinematics/tree_kinematics.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Joint accelerations a_r at (t, q_r, v_r). Throws InvalidArgument for a model that is not an
/// open tree (cut joints, distance joints, knife edges or drivers: not handled here yet).
void treeForwardDynamics(const Model& model, const TreeKinematics& tree, Scalar t, const VecX& q_r, const VecX& v_r,
                         VecX& a_r);

}  // namespace loopdyn
