#pragma once
/// Forward dynamics of an open tree in relative coordinates (issue 15: the baseline that the
/// recursive methods of the DCA issues replace).
///
/// The absolute Newton-Euler equations M A = F + (joint reactions), with the body accelerations of
/// the tree A = J a_r + Jdot v_r (TreeKinematics), projected onto the tree's motions:
///   J^T M J a_r = J^T (F - M Jdot v_r)
/// (Kane's equations: the ideal joint reactions do no work on the motions the joints allow and
/// drop out). M and F are those of the absolute formulations (gravity, springs, dampers, loads,
/// joint efforts, gyroscopic terms). J^T M J by composite rigid bodies and J^T w by the
/// Newton-Euler backward pass (below), from the links' world axes (TreeKinematics::linkAxes): J
/// is not formed.

#include "loopdyn/kinematics/tree_kinematics.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// The links' world axes at q_r and the bodies' motion, per body (TreeKinematics::linkAxes without
/// rates): what the two algorithms below read.
void worldLinkAxes(const TreeKinematics& tree, const VecX& q_r, const std::vector<BodyMotion>& motion,
                   std::vector<TreeKinematics::LinkAxes>& axes);

/// The composite-rigid-body algorithm (Featherstone 2008, sect. 6.2) for M_r = J^T M J, in
/// world-frame spatial vectors about the world origin. A link's axes s_k (6 x nv_k, [v_O; omega]:
/// the twist of its body per unit joint velocity about the origin: J's columns at the link's own
/// body, moved from the centre of mass to the origin) are axes[body].S; a body's spatial inertia
/// about the origin is
///   I_b = [m 1, -m [c]; m [c], I_w - m [c][c]]   (c: centre of mass, I_w: world inertia)
/// and the composite inertia of a subtree the sum of its bodies' (no transforms: one frame for
/// all). Then M_r(j, i) = s_j^T I^c_i s_i for every j on the path from link i to ground (zero off
/// it): O(n d) for depth d, instead of the O(n^2 nv) product. `motion`: the bodies' poses.
void compositeRigidBodyMassMatrix(const Model& model, const TreeKinematics& tree, const std::vector<BodyMotion>& motion,
                                  const std::vector<TreeKinematics::LinkAxes>& axes, MatX& M_r);

/// The recursive Newton-Euler algorithm's backward pass for Q_r = J^T w: each body's wrench w_b
/// (Model's velocity layout: force at the centre of mass, torque), as a spatial force about the
/// world origin [f; n + c x f], summed over the subtrees (children before parents), and Q_k =
/// s_k^T (the subtree's sum) for each link's axes s_k: O(n). With w = F - M Jdot v_r these are
/// the joint-space forces of Kane's equations (the bias of the RNEA's forward pass included).
void subtreeJointForces(const Model& model, const TreeKinematics& tree, const std::vector<BodyMotion>& motion,
                        const std::vector<TreeKinematics::LinkAxes>& axes, const VecX& w, VecX& Q_r);

/// Joint accelerations a_r at (t, q_r, v_r). Throws InvalidArgument for a model that is not an
/// open tree (cut joints, distance joints, knife edges or drivers: not handled here yet).
void treeForwardDynamics(const Model& model, const TreeKinematics& tree, Scalar t, const VecX& q_r, const VecX& v_r,
                         VecX& a_r);

}  // namespace loopdyn
