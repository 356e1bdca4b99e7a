#pragma once
/// Error weights for joint coordinates that ask of a run what an absolute run at the same
/// tolerances asks (issue 46: the same --rtol, the same accuracy, whatever the integrator carries).
///
/// An absolute run weighs each body coordinate c by w_c = 1 / (atol + rtol min(|c|, cap)) and keeps
/// the weighted RMS of the local error below 1 (ode/integrator.hpp). An error e_j in one joint
/// coordinate moves every body of the link's subtree: with the link's world axis S_j = [s_v; s_w]
/// (about the world origin, TreeKinematics::LinkAxes), body b's centre c_b by s_v + s_w x c_b and
/// its orientation by s_w. Its weight is the absolute norm of what it moves,
///
///   w_j^2 = (N_r / N_a) S_j^T Q_j S_j,   Q_j = sum over the subtree of B_b^T D_b B_b,
///   B_b = [I, -[c_b]x; 0, I],   D_b = diag(the body's squared weights),
///
/// over the N_r components a joint-coordinate run carries instead of an absolute run's N_a (cross
/// terms between joints neglected: a diagonal norm). Q is accumulated from the leaves inwards, so a
/// call costs O(n). The same sums weigh the joint velocities, with D_b from the body velocities'
/// weights.
///
/// A link whose coordinates are not its velocities (a quaternion among them: spherical and 3D
/// free joints) gives each of its entries twice its columns' largest weight (a turn dphi changes a
/// unit quaternion by dphi / 2); a 3D body's quaternion counts as one weight per axis of turn,
/// (the sum of its four squared weights) / 16.

#include <vector>

#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"

namespace loopdyn {

class JointErrorWeights {
 public:
  /// Weights for runs at tolerances rtol, atol that carry `carried` components in all (joint
  /// coordinates, velocities, and whatever else) where an absolute run would carry `absolute`.
  JointErrorWeights(const TreeKinematics& tree, Scalar rtol, Scalar atol, int carried, int absolute);

  /// At x with joint coordinates q_r (consistent; motion: each body's motion at x): the weights of
  /// the joint coordinates (wq, size nq) and, unless null, of the joint velocities (wv, size nv).
  void compute(const State& x, const VecX& q_r, const std::vector<BodyMotion>& motion, Scalar* wq, Scalar* wv);

 private:
  using Mat6 = Eigen::Matrix<Scalar, 6, 6>;
  /// The body's squared weights of its position and velocity coordinates as quadratic forms in a
  /// twist about the world origin (B_b^T D_b B_b).
  void bodyForms(const State& x, const BodyMotion& m, BodyIndex b, Mat6& position, Mat6& velocity) const;

  const TreeKinematics& tree_;
  Scalar rtol_, atol_, ratio_;
  std::vector<Mat6> position_, velocity_;  ///< per body: the subtree sums
  TreeKinematics::LinkAxes axes_;
};

}  // namespace loopdyn
