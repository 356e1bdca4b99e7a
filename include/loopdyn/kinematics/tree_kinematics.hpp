#pragma once
/// Relative (joint) coordinates on a model's spanning tree (Model::topology(), issue 15), and the
/// map between them and the absolute coordinates of the bodies.
///
/// Joint coordinates q_r (size topology.nq) and velocities v_r (size topology.nv), each tree link
/// (a tree joint, or a floating body's free joint) at its offsets. Body poses follow from ground
/// outwards, parent before child (topology.order); body velocities V = J(q_r) v_r are built the
/// same way, never forming J. A tree joint may have its first marker on the child (the joint is
/// then traversed backwards: X_12 inverted, its twist subtracted).

#include <vector>

#include "loopdyn/kinematics/joint_models.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

class TreeKinematics {
 public:
  explicit TreeKinematics(const Model& model);

  int nq() const { return nq_; }
  int nv() const { return nv_; }
  const Model& model() const { return model_; }
  /// The joint model of body b's link to its parent.
  const JointModel& joint(BodyIndex b) const { return links_[static_cast<std::size_t>(b)].model; }

  /// Absolute state x (Model layout: positions, and velocities V = J v_r) from joint coordinates.
  /// Every tree joint's equations then hold exactly (up to rounding). 2D body angles add the
  /// joints' angles to the unwrapped marker angles, so no whole turn is lost; 3D body quaternions
  /// take the sign nearest to those x held, if any (the same rotation; continuous over samples).
  void absoluteState(const VecX& q_r, const VecX& v_r, Scalar t, State& x) const;
  /// The positions alone (x.t, x.q; x.v untouched).
  void absolutePositions(const VecX& q_r, Scalar t, State& x) const;

  /// The joint model of every link, for loops over joint coordinates.
  struct LinkCoordinates {
    BodyIndex body;
    int joint;  ///< index into Model::joints(); -1: a floating body's free joint
    const JointModel* model;
    int q_offset, v_offset;
  };
  std::vector<LinkCoordinates> links() const;

  /// Joint coordinates of an absolute state whose tree joints' equations hold (an assembled
  /// state): q_r from the relative poses, v_r from the relative twists (least squares: exact when
  /// the tree joints' velocity equations hold). Angles within pi of `reference` (nullptr: none;
  /// 2D revolute and planar angles are exact differences of the unwrapped body and marker angles).
  /// Throws InvalidArgument when a link's relative pose is not one its joint model reaches (the
  /// state violates the joint, or its markers are, e.g., antiparallel where the model assumes
  /// parallel axes: the joint's equations admit both).
  void relativeState(const State& x, VecX& q_r, VecX& v_r, const VecX* reference = nullptr) const;

  /// The joint velocities v_r of x's body velocities at x's joint coordinates q_r (the velocity
  /// half of relativeState: exact when the tree joints' velocity equations hold).
  void jointVelocities(const State& x, const VecX& q_r, VecX& v_r) const;
  /// The same for the joints of bodies [first, last) alone, from the bodies' motions (with their
  /// velocities) at joint coordinates q_r; v_r sized nv(), the others' entries untouched:
  /// independent ranges, for passes shared out among threads.
  void jointVelocities(const VecX& q_r, const std::vector<BodyMotion>& motion, VecX& v_r, BodyIndex first,
                       BodyIndex last) const;

  /// Body accelerations A = J a_r + Jdot v_r (Model's velocity layout: the centre of mass's
  /// acceleration and the angular acceleration, world frame) for joint accelerations a_r.
  void absoluteAccelerations(const VecX& q_r, const VecX& v_r, const VecX& a_r, VecX& A) const;

  /// Joint accelerations a_r from the bodies' accelerations A (Model's velocity layout) at joint
  /// coordinates q_r moving with v_r: each joint's relative twist rate in its first marker's axes,
  /// less the part that is not S a (JointModel::biasTwist), through S^T (S has orthonormal
  /// columns). Exact when A satisfies the tree joints' acceleration equations. motion: the bodies'
  /// motions there (bodyMotion of each body, e.g. KinematicsWorkspace::motion).
  void jointAccelerations(const VecX& q_r, const VecX& v_r, const std::vector<BodyMotion>& motion, const VecX& A,
                          VecX& a_r) const;
  /// The same for the joints of bodies [first, last) alone (a_r sized nv(); the others' entries
  /// untouched): independent ranges, for passes shared out among threads.
  void jointAccelerations(const VecX& q_r, const VecX& v_r, const std::vector<BodyMotion>& motion, const VecX& A,
                          VecX& a_r, BodyIndex first, BodyIndex last) const;

  /// J (model.nv() x nv()): the body velocities per unit joint velocity, column by column. Dense,
  /// O(n^2): a baseline and a test reference, not for large trees.
  void jacobian(const VecX& q_r, MatX& J) const;

  /// A tree joint as world spatial columns: S (6 x nv) maps the joint's velocities to the child's
  /// twist relative to the parent, [v_0; omega] about the world origin (with the child's sign:
  /// -1 for a joint traversed backwards), S_dot its rate along the motion; and what the
  /// Hamiltonian DCA's velocity level needs: the joint's own S in frame-1 axes, frame 1's axes R1
  /// in the world, frame 2's origin o2.
  struct LinkAxes {
    Eigen::Matrix<Scalar, 6, Eigen::Dynamic, Eigen::ColMajor, 6, 6> S, S_dot;
    MotionSubspace S_local;
    Mat3 R1 = Mat3::Identity();
    Vec3 o2 = Vec3::Zero();
    Scalar sign = 1;
  };
  /// Body b's joint axes at q_r and the bodies' motion; with v_r given (the joint velocities of
  /// that motion) also S_dot.
  void linkAxes(BodyIndex b, const VecX& q_r, const VecX* v_r, const std::vector<BodyMotion>& motion,
                LinkAxes& a) const;

  /// Buffers of jacobianTimes, kept by the caller (no allocation once sized).
  struct JacobianTimesScratch {
    std::vector<LinkAxes> axes;
    std::vector<Vec6> xi, xi_dot;
  };
  /// J W and dJ/dt W (model.nv() x W.cols() each; W: nv() x k) at q_r moving with v_r: the body
  /// velocities for joint velocities W's columns and their rate along the motion (exact: the
  /// links' S and S_dot accumulated from ground outwards). `motion`: the bodies' motion at (q_r,
  /// v_r). O(n k), J not formed.
  void jacobianTimes(const VecX& q_r, const VecX& v_r, const std::vector<BodyMotion>& motion,
                     Eigen::Ref<const MatX> W, MatX& JW, MatX& JdotW, JacobianTimesScratch& scratch) const;

  /// dq_r/dt from v_r.
  void positionRates(const VecX& q_r, const VecX& v_r, VecX& qdot) const;
  /// The same into qdot[0 .. nq) (no allocation: the simulation's right-hand side).
  void positionRates(const VecX& q_r, const VecX& v_r, Scalar* qdot) const;
  /// Makes the joints' quaternions in q_r unit (JointModel::normalize).
  void normalize(VecX& q_r) const;
  /// q_r (+) dt v_r, joint by joint (JointModel::integrate).
  void integrate(const VecX& q_r, const VecX& v_r, Scalar dt, VecX& out) const;

 private:
  /// jointAccelerations of a planar model, in plane arithmetic.
  void planarJointAccelerations(const VecX& q_r, const std::vector<BodyMotion>& motion, const VecX& A, VecX& a_r,
                                BodyIndex first, BodyIndex last) const;

  struct Link {
    BodyIndex body = kGround, parent = kGround;
    int joint = -1;  ///< index into Model::joints(); -1: a free joint
    JointModel model = JointModel::free(2);
    MarkerFrame first, second;  ///< the joint's markers (a free joint: ground's and the body's origin)
    bool reversed = false;      ///< the child carries the first marker
    int q_offset = 0, v_offset = 0;
  };

  /// One link's frames in world axes during a pass (tree_kinematics.cpp).
  struct LinkFrames;
  /// The child's pose from its parent's and the joint's coordinates q; fills f's positions.
  void linkPose(const Link& link, const BodyMotion& parent, const Scalar* q, LinkFrames& f, BodyMotion& child) const;
  /// The child's velocities from its parent's and the relative twist S v; fills f's velocities.
  static void linkVelocity(const Link& link, const BodyMotion& parent, const Vec6& twist, LinkFrames& f,
                           BodyMotion& child);
  /// The child's acceleration [a; alpha]: the time derivative of the two above, with the relative
  /// twist's derivative twist_dot = S a + Sdot v.
  static Vec6 linkAcceleration(const Link& link, const BodyMotion& parent, const Vec6& A_parent, const Vec6& twist,
                               const Vec6& twist_dot, const LinkFrames& f, const BodyMotion& child);

  /// Ground outwards: body motions (and accelerations [a; alpha] when `a_r` is given; without
  /// v_r the positions alone, the bodies at rest).
  void pass(const VecX& q_r, const VecX* v_r, const VecX* a_r, std::vector<BodyMotion>& motion,
            std::vector<Vec6>* acceleration) const;

  const Model& model_;
  std::vector<Link> links_;  ///< per body
  int nq_ = 0, nv_ = 0;
};

}  // namespace loopdyn
