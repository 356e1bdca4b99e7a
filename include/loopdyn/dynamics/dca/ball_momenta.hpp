#pragma once
/// The momenta the HDCA's integrator carries in place of a ball joint's canonical momentum (issue
/// 46): each ball joint's (spherical, 3D free) angular momentum in its child's axes, less the
/// angular momenta the ball joints hanging from that child carry.
///
/// A ball joint k's canonical momentum p_k is its subtree's angular momentum about the joint
/// point, P_k, in the axes of its first marker (hdca.hpp). Integrated as it is, a thin body's spin
/// is read from it through the body's inertia in those axes, R I R^T, so that an error of the
/// body's orientation moves its spin by that error times I_max / I_min; and when the body carries
/// others, its own spin is a small difference of the subtree's large momentum. Both are removed
/// by carrying
///   u_k = s_k R_k^T (P_k - sum over the ball children c of P_c),
/// R_k the world axes of k's marker on its child, s_k = 1 (or -1 for a joint traversed backwards,
/// whose first marker is on the child: p_k = -R_k^T P_k). What is left is the child's own angular
/// momentum about the joint point and the children's linear momenta's moments about it -- for a
/// rod whose joints lie on its axis, nothing along the axis. The children counted are those whose
/// first marker is on k's child, where P_c = R_1c p_c and R_k^T R_1c = M_k^T M_1c is a constant of
/// the body (M: the markers' orientations in it); the map is linear in p, triangular over the tree:
///   forward k:  u_k = R_12^T p_k - sum_c B_kc p_c,   p_k = R_12 (u_k + sum_c B_kc p_c),
///   backwards:  u_k = p_k + sum_c B_kc p_c,          p_k = u_k - sum_c B_kc p_c,
/// B_kc = M_k^T M_1c, R_12 the joint's rotation (JointModel::pose). Its rate follows from
/// d/dt (R_12^T p) = R_12^T (pdot - omega x p), omega the joint's rates in frame 1.

#include <utility>
#include <vector>

#include "loopdyn/kinematics/tree_kinematics.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

class BallMomenta {
 public:
  BallMomenta(const Model& model, const TreeKinematics& tree);

  /// u of the joints' momenta p at joint positions q_r (entries of other joints: p's).
  void carried(const VecX& q_r, const VecX& p, Eigen::Ref<VecX> u) const;
  /// p of the carried u (the inverse).
  void joint(const VecX& q_r, Eigen::Ref<const VecX> u, VecX& p) const;
  /// du of pdot at joint positions and rates q_r, v_r and momenta p (in place: du holds pdot;
  /// pdot: scratch).
  void rates(const VecX& q_r, const VecX& v_r, const VecX& p, Eigen::Ref<VecX> du, VecX& pdot) const;

 private:
  struct Ball {
    const JointModel* model = nullptr;
    int q = 0, w = 0;        ///< the joint's q offset, omega's index in v
    bool reversed = false;   ///< the first marker on the child
    std::vector<std::pair<int, Mat3>> children;  ///< (index in balls_, B_kc)
  };
  Mat3 rotation(const Ball& k, const VecX& q_r) const { return k.model->pose(q_r.data() + k.q).R; }

  std::vector<Ball> balls_;  ///< parents before children
};

}  // namespace loopdyn
