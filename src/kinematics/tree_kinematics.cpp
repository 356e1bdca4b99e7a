#include "loopdyn/kinematics/tree_kinematics.hpp"

#include "loopdyn/common/check.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {

TreeKinematics::TreeKinematics(const Model& model)
    : model_(model), nq_(model.topology().nq), nv_(model.topology().nv) {
  const Topology& t = model.topology();
  links_.resize(static_cast<std::size_t>(model.nb()));
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const TreeLink& tl = t.links[static_cast<std::size_t>(b)];
    Link& link = links_[static_cast<std::size_t>(b)];
    link.body = b;
    link.parent = tl.parent;
    link.q_offset = tl.q_offset;
    link.v_offset = tl.v_offset;
    if (tl.joint < 0) {
      // a floating body: a free joint from ground's origin to the body's origin
      link.model = JointModel::free(model.dimension());
      link.second.body = b;
      continue;
    }
    const Joint& joint = model.joints()[static_cast<std::size_t>(tl.joint)];
    link.joint = tl.joint;
    link.model = JointModel(joint.type, model.dimension());
    link.first = joint.first;
    link.second = joint.second;
    link.reversed = joint.first.body == b;
  }
}

namespace {

/// A marker frame in the world: origin, axes, and the origin's velocity.
struct WorldFrame {
  Vec3 o;
  Mat3 R;
  Vec3 o_dot;
};

WorldFrame worldFrame(const BodyMotion& m, const MarkerFrame& marker) {
  const Vec3 arm = m.R * marker.position;
  return {m.r + arm, m.R * marker.orientation, m.v + m.w.cross(arm)};
}

/// The relative twist of frame 2 in frame-1 axes (p = R_1^T (o_2 - o_1)): [pdot; omega].
Vec6 relativeTwist(const BodyMotion& m1, const WorldFrame& F1, const BodyMotion& m2, const WorldFrame& F2) {
  Vec6 twist;
  twist.head<3>() = F1.R.transpose() * (F2.o_dot - F1.o_dot - m1.w.cross(F2.o - F1.o));
  twist.tail<3>() = F1.R.transpose() * (m2.w - m1.w);
  return twist;
}

/// Body b's motion into x. A quaternion takes the sign nearest to the one x held (`continued`):
/// both signs give the same rotation, and a sequence of states (samples) stays continuous.
void store(const Model& model, BodyIndex b, const BodyMotion& m, State& x, bool continued, bool velocities) {
  if (model.dimension() == 2) {
    const int o = 3 * b;
    x.q.segment<3>(o) << m.r.x(), m.r.y(), m.phi;
    if (velocities) x.v.segment<3>(o) << m.v.x(), m.v.y(), m.w.z();
    return;
  }
  const int qo = 7 * b, vo = 6 * b;
  Eigen::Matrix<Scalar, 4, 1> quat;
  const Quat rotation(m.R);
  quat << rotation.w(), rotation.x(), rotation.y(), rotation.z();
  if (continued && quat.dot(x.q.segment<4>(qo + 3)) < 0) quat = -quat;
  x.q.segment<3>(qo) = m.r;
  x.q.segment<4>(qo + 3) = quat;
  if (!velocities) return;
  x.v.segment<3>(vo) = m.v;
  x.v.segment<3>(vo + 3) = m.w;
}

}  // namespace

struct TreeKinematics::LinkFrames {
  RelativePose X;            ///< the joint's pose X_12
  Vec3 arm_parent, P_o;      ///< the parent's marker: its offset from the parent's origin, its origin
  Mat3 P_R;                  ///< and its axes
  Vec3 arm, o;               ///< the joint's offset in world axes (to frame 2, or back to frame 1); the child's marker origin
  Mat3 R_child_marker;       ///< the child's marker axes
  WorldFrame P;              ///< the parent's marker frame with its origin's velocity
};

void TreeKinematics::linkPose(const Link& link, const BodyMotion& parent, const Scalar* q, LinkFrames& f,
                              BodyMotion& child) const {
  f.X = link.model.pose(q);
  const MarkerFrame& on_parent = link.reversed ? link.second : link.first;
  const MarkerFrame& on_child = link.reversed ? link.first : link.second;
  // positions: the parent's marker frame P, the child's marker frame (origin o)
  f.arm_parent = parent.R * on_parent.position;
  f.P_o = parent.r + f.arm_parent;
  f.P_R = parent.R * on_parent.orientation;
  if (!link.reversed) {
    // the parent carries frame 1: frame 2 = frame 1 * X_12
    f.R_child_marker = f.P_R * f.X.R;
    f.arm = f.P_R * f.X.p;
    f.o = f.P_o + f.arm;
  } else {
    // the parent carries frame 2: frame 1 = frame 2 * X_12^-1
    f.R_child_marker = f.P_R * f.X.R.transpose();
    f.arm = f.R_child_marker * f.X.p;
    f.o = f.P_o - f.arm;
  }
  if (model_.dimension() == 2) {
    // angles add, with the markers' unwrapped angles: the whole turns written in the file stay
    const int k = link.model.planarAngleIndex();
    const Scalar turn = k < 0 ? 0 : q[k];
    child.phi = parent.phi + on_parent.angle + (link.reversed ? -turn : turn) - on_child.angle;
    child.R = rotationZ(child.phi);
  } else {
    child.R = f.R_child_marker * on_child.orientation.transpose();
  }
  child.r = f.o - child.R * on_child.position;
}

void TreeKinematics::linkVelocity(const Link& link, const BodyMotion& parent, const Vec6& twist, LinkFrames& f,
                                  BodyMotion& child) {
  f.P = WorldFrame{f.P_o, f.P_R, parent.v + parent.w.cross(f.arm_parent)};
  Vec3 o_dot;
  if (!link.reversed) {
    child.w = parent.w + f.P.R * twist.tail<3>();
    o_dot = f.P.o_dot + parent.w.cross(f.arm) + f.P.R * twist.head<3>();
  } else {
    // omega_1 = omega_2 - R_1 omega_rel
    child.w = parent.w - f.R_child_marker * twist.tail<3>();
    o_dot = f.P.o_dot - child.w.cross(f.arm) - f.R_child_marker * twist.head<3>();
  }
  child.v = o_dot + child.w.cross(child.r - f.o);
}

Vec6 TreeKinematics::linkAcceleration(const Link& link, const BodyMotion& parent, const Vec6& A_parent,
                                      const Vec6& twist, const Vec6& twist_dot, const LinkFrames& f,
                                      const BodyMotion& child) {
  const Vec3 a_parent = A_parent.head<3>(), alpha_parent = A_parent.tail<3>();
  const Vec3 d_parent = f.P.o - parent.r;  // parent's origin to its marker
  const Vec3 o_ddot_parent = a_parent + alpha_parent.cross(d_parent) + parent.w.cross(parent.w.cross(d_parent));
  Vec3 alpha, o_ddot;
  if (!link.reversed) {
    const Vec3 u = f.P.R * f.X.p, p_dot = f.P.R * twist.head<3>(), w_rel = f.P.R * twist.tail<3>();
    alpha = alpha_parent + parent.w.cross(w_rel) + f.P.R * twist_dot.tail<3>();
    o_ddot = o_ddot_parent + alpha_parent.cross(u) + parent.w.cross(parent.w.cross(u) + p_dot) +
             parent.w.cross(p_dot) + f.P.R * twist_dot.head<3>();
  } else {
    const Mat3& R1 = f.R_child_marker;  // frame 1 turns with the child
    const Vec3 u = R1 * f.X.p, p_dot = R1 * twist.head<3>(), w_rel = R1 * twist.tail<3>();
    alpha = alpha_parent - (child.w.cross(w_rel) + R1 * twist_dot.tail<3>());
    o_ddot = o_ddot_parent - (alpha.cross(u) + child.w.cross(child.w.cross(u) + p_dot)) -
             (child.w.cross(p_dot) + R1 * twist_dot.head<3>());
  }
  const Vec3 d_child = child.r - f.o;
  Vec6 A;
  A << o_ddot + alpha.cross(d_child) + child.w.cross(child.w.cross(d_child)), alpha;
  return A;
}

void TreeKinematics::pass(const VecX& q_r, const VecX* v_r, const VecX* a_r, std::vector<BodyMotion>& motion,
                          std::vector<Vec6>* acceleration) const {
  LOOPDYN_CHECK(q_r.size() == nq_ && (!v_r || v_r->size() == nv_), "relative state: expected ", nq_, " + ", nv_,
                " entries, got ", q_r.size(), " + ", v_r ? v_r->size() : nv_);
  LOOPDYN_ASSERT(v_r || !a_r);
  LOOPDYN_CHECK(a_r == nullptr || a_r->size() == nv_, "joint accelerations: expected ", nv_, " entries");
  motion.resize(links_.size());
  if (acceleration) acceleration->assign(links_.size(), Vec6::Zero());
  const BodyMotion ground;
  const Vec6 at_rest = Vec6::Zero();
  LinkFrames f;
  for (BodyIndex b : model_.topology().order) {
    const Link& link = links_[static_cast<std::size_t>(b)];
    const BodyMotion& parent = link.parent == kGround ? ground : motion[static_cast<std::size_t>(link.parent)];
    const Scalar* q = q_r.data() + link.q_offset;
    BodyMotion& child = motion[static_cast<std::size_t>(b)];
    linkPose(link, parent, q, f, child);
    if (!v_r) {  // (positions only: at rest)
      child.w.setZero();
      child.v.setZero();
      continue;
    }
    // velocities: the relative twist S v, and the origins' velocities
    const auto v = v_r->segment(link.v_offset, link.model.nv());
    const MotionSubspace S = link.model.motionSubspace(q);
    const Vec6 twist = S * v;
    linkVelocity(link, parent, twist, f, child);
    if (!acceleration) continue;
    const Vec6& A_parent = link.parent == kGround ? at_rest : (*acceleration)[static_cast<std::size_t>(link.parent)];
    const Vec6 twist_dot = S * a_r->segment(link.v_offset, link.model.nv()) + link.model.biasTwist(q, v.data());
    (*acceleration)[static_cast<std::size_t>(b)] = linkAcceleration(link, parent, A_parent, twist, twist_dot, f, child);
  }
}

namespace {

/// The bodies' motions of one tree pass: scratch per thread, so that a pass allocates nothing once
/// it has run for the largest model (the right-hand sides that call it must not allocate).
std::vector<BodyMotion>& passScratch() {
  thread_local std::vector<BodyMotion> motion;
  return motion;
}

}  // namespace

void TreeKinematics::absoluteState(const VecX& q_r, const VecX& v_r, Scalar t, State& x) const {
  std::vector<BodyMotion>& motion = passScratch();
  pass(q_r, &v_r, nullptr, motion, nullptr);
  x.t = t;
  const bool continued = x.q.size() == model_.nq();
  x.q.resize(model_.nq());
  x.v.resize(model_.nv());
  for (BodyIndex b = 0; b < model_.nb(); ++b) store(model_, b, motion[static_cast<std::size_t>(b)], x, continued, true);
}

void TreeKinematics::absolutePositions(const VecX& q_r, Scalar t, State& x) const {
  std::vector<BodyMotion>& motion = passScratch();
  pass(q_r, nullptr, nullptr, motion, nullptr);
  x.t = t;
  const bool continued = x.q.size() == model_.nq();
  x.q.resize(model_.nq());
  for (BodyIndex b = 0; b < model_.nb(); ++b) store(model_, b, motion[static_cast<std::size_t>(b)], x, continued, false);
}

std::vector<TreeKinematics::LinkCoordinates> TreeKinematics::links() const {
  std::vector<LinkCoordinates> out;
  for (const Link& link : links_) out.push_back({link.body, link.joint, &link.model, link.q_offset, link.v_offset});
  return out;
}

void TreeKinematics::absoluteAccelerations(const VecX& q_r, const VecX& v_r, const VecX& a_r, VecX& A) const {
  std::vector<BodyMotion> motion;
  std::vector<Vec6> acceleration;
  pass(q_r, &v_r, &a_r, motion, &acceleration);
  A.resize(model_.nv());
  for (BodyIndex b = 0; b < model_.nb(); ++b) {
    const Vec6& Ab = acceleration[static_cast<std::size_t>(b)];
    if (model_.dimension() == 2)
      A.segment<3>(3 * b) << Ab(0), Ab(1), Ab(5);
    else
      A.segment<6>(6 * b) = Ab;
  }
}

namespace {

/// A marker's origin in the world with its velocity and acceleration, at the body's motion m and
/// acceleration (a, alpha).
struct MovingPoint {
  Vec3 o, o_dot, o_ddot;
};

MovingPoint movingPoint(const BodyMotion& m, const Vec3& a, const Vec3& alpha, const MarkerFrame& marker) {
  const Vec3 arm = m.R * marker.position;
  return {m.r + arm, m.v + m.w.cross(arm), a + alpha.cross(arm) + m.w.cross(m.w.cross(arm))};
}

}  // namespace

void TreeKinematics::jointAccelerations(const VecX& q_r, const VecX& v_r, const std::vector<BodyMotion>& motion,
                                        const VecX& A, VecX& a_r) const {
  LOOPDYN_CHECK(q_r.size() == nq_ && v_r.size() == nv_ && A.size() == model_.nv() &&
                    static_cast<int>(motion.size()) == model_.nb(),
                "joint accelerations: the joint coordinates, A or the motions have the wrong size");
  a_r.resize(nv_);
  jointAccelerations(q_r, v_r, motion, A, a_r, 0, model_.nb());
}

void TreeKinematics::jointAccelerations(const VecX& q_r, const VecX& v_r, const std::vector<BodyMotion>& motion,
                                        const VecX& A, VecX& a_r, BodyIndex first, BodyIndex last) const {
  LOOPDYN_ASSERT(a_r.size() == nv_ && first >= 0 && last <= model_.nb());
  const auto accelerationOf = [&](BodyIndex b, Vec3& a, Vec3& alpha) {
    a.setZero();
    alpha.setZero();
    if (b == kGround) return;
    if (model_.dimension() == 2) {
      a << A(3 * b), A(3 * b + 1), 0;
      alpha << 0, 0, A(3 * b + 2);
    } else {
      a = A.segment<3>(6 * b);
      alpha = A.segment<3>(6 * b + 3);
    }
  };
  if (model_.dimension() == 2) {
    planarJointAccelerations(q_r, motion, A, a_r, first, last);
    return;
  }
  for (BodyIndex b = first; b < last; ++b) {
    const Link& link = links_[static_cast<std::size_t>(b)];
    Vec3 a1, alpha1, a2, alpha2;
    accelerationOf(link.first.body, a1, alpha1);
    accelerationOf(link.second.body, a2, alpha2);
    const BodyMotion& m1 = motionOf(motion, link.first.body);
    const BodyMotion& m2 = motionOf(motion, link.second.body);
    const MovingPoint p1 = movingPoint(m1, a1, alpha1, link.first);
    const MovingPoint p2 = movingPoint(m2, a2, alpha2, link.second);
    // the relative twist in frame-1 axes, [R1^T y; R1^T (w2 - w1)] with y = rdot - w1 x r (r = o2 - o1),
    // and its rate [R1^T (ydot - w1 x y); R1^T (alpha2 - alpha1 - w1 x (w2 - w1))]
    const Vec3 r = p2.o - p1.o, r_dot = p2.o_dot - p1.o_dot, r_ddot = p2.o_ddot - p1.o_ddot;
    const Vec3 y = r_dot - m1.w.cross(r);
    const Vec3 y_dot = r_ddot - alpha1.cross(r) - m1.w.cross(r_dot);
    const Mat3 R1 = m1.R * link.first.orientation;
    Vec6 rate;
    rate.head<3>() = R1.transpose() * (y_dot - m1.w.cross(y));
    rate.tail<3>() = R1.transpose() * (alpha2 - alpha1 - m1.w.cross(m2.w - m1.w));
    const Scalar* q = q_r.data() + link.q_offset;
    const Scalar* v = v_r.data() + link.v_offset;
    rate -= link.model.biasTwist(q, v);
    // S^T (S has orthonormal columns), column by column at fixed size
    const MotionSubspace S = link.model.motionSubspace(q);
    for (Eigen::Index j = 0; j < S.cols(); ++j) a_r(link.v_offset + j) = S.col(j).dot(rate);
  }
}

void TreeKinematics::planarJointAccelerations(const VecX& q_r, const std::vector<BodyMotion>& motion, const VecX& A,
                                              VecX& a_r, BodyIndex first, BodyIndex last) const {
  // the spatial loop's arithmetic on the in-plane entries: every angular velocity is along z, so
  // w x u is w perp(u) and w1 x (w2 - w1) vanishes
  const auto perp = [](const Vec2& u) { return Vec2(-u.y(), u.x()); };
  struct PlanarPoint {
    Vec2 o, o_dot, o_ddot;
    Scalar alpha = 0;
  };
  const auto pointOf = [&](BodyIndex body, const BodyMotion& m, const MarkerFrame& marker) {
    PlanarPoint p;
    Vec2 a = Vec2::Zero();
    if (body != kGround) {
      a << A(3 * body), A(3 * body + 1);
      p.alpha = A(3 * body + 2);
    }
    const Vec2 arm = m.R.topLeftCorner<2, 2>() * marker.position.head<2>();
    const Scalar w = m.w.z();
    p.o = m.r.head<2>() + arm;
    p.o_dot = m.v.head<2>() + w * perp(arm);
    p.o_ddot = a + p.alpha * perp(arm) - (w * w) * arm;
    return p;
  };
  for (BodyIndex b = first; b < last; ++b) {
    const Link& link = links_[static_cast<std::size_t>(b)];
    const BodyMotion& m1 = motionOf(motion, link.first.body);
    const PlanarPoint p1 = pointOf(link.first.body, m1, link.first);
    const PlanarPoint p2 = pointOf(link.second.body, motionOf(motion, link.second.body), link.second);
    const Scalar w1 = m1.w.z();
    const Vec2 r = p2.o - p1.o, r_dot = p2.o_dot - p1.o_dot, r_ddot = p2.o_ddot - p1.o_ddot;
    const Vec2 y = r_dot - w1 * perp(r);
    const Vec2 y_dot = r_ddot - p1.alpha * perp(r) - w1 * perp(r_dot);
    const Mat2 R1 = m1.R.topLeftCorner<2, 2>() * link.first.orientation.topLeftCorner<2, 2>();
    Vec6 rate = Vec6::Zero();
    rate.head<2>() = R1.transpose() * (y_dot - w1 * perp(y));
    rate(5) = p2.alpha - p1.alpha;
    const Scalar* q = q_r.data() + link.q_offset;
    const MotionSubspace S = link.model.motionSubspace(q);
    for (Eigen::Index j = 0; j < S.cols(); ++j) a_r(link.v_offset + j) = S.col(j).dot(rate);
  }
}

void TreeKinematics::jacobian(const VecX& q_r, MatX& J) const {
  J.resize(model_.nv(), nv_);
  VecX unit = VecX::Zero(nv_);
  State x;
  for (int k = 0; k < nv_; ++k) {
    unit(k) = 1;
    absoluteState(q_r, unit, 0, x);
    J.col(k) = x.v;
    unit(k) = 0;
  }
}

void TreeKinematics::linkAxes(BodyIndex b, const VecX& q_r, const VecX* v_r, const std::vector<BodyMotion>& motion,
                              LinkAxes& a) const {
  const Link& link = links_[static_cast<std::size_t>(b)];
  // frame 1 (on the parent, or on the child for a joint traversed backwards) and frame 2's origin
  const BodyMotion& m1 = motionOf(motion, link.first.body);
  const Vec3 arm1 = m1.R * link.first.position;
  a.R1 = m1.R * link.first.orientation;
  const Scalar* q = q_r.data() + link.q_offset;
  const Vec3 p = a.R1 * link.model.pose(q).p;
  a.o2 = m1.r + arm1 + p;
  a.S_local = link.model.motionSubspace(q);
  a.sign = link.reversed ? -1 : 1;  // backwards: the child moves by -S u
  const int nv = link.model.nv();
  a.S.resize(6, nv);
  MotionSubspace S_rate;
  Vec3 o2_dot = Vec3::Zero();
  if (v_r) {
    const Scalar* u = v_r->data() + link.v_offset;
    S_rate = link.model.motionSubspaceRate(q, u);
    const Vec6 twist = a.S_local * Eigen::Map<const VecX>(u, nv);
    o2_dot = m1.v + m1.w.cross(arm1) + m1.w.cross(p) + a.R1 * twist.head<3>();
    a.S_dot.resize(6, nv);
  }
  // the column of u_j: frame 2 moves by R1 S_j relative to frame 1, at o2; about the world
  // origin [s_v + o2 x s_w; s_w], and its rate with R1' = [w1 x] R1 and o2's velocity
  for (int j = 0; j < nv; ++j) {
    const Vec3 s_v = a.R1 * a.S_local.col(j).head<3>(), s_w = a.R1 * a.S_local.col(j).tail<3>();
    a.S.col(j) << a.sign * (s_v + a.o2.cross(s_w)), a.sign * s_w;
    if (!v_r) continue;
    const Vec3 s_w_dot = m1.w.cross(s_w) + a.R1 * S_rate.col(j).tail<3>();
    const Vec3 s_v_dot = m1.w.cross(s_v) + a.R1 * S_rate.col(j).head<3>();
    a.S_dot.col(j) << a.sign * (s_v_dot + o2_dot.cross(s_w) + a.o2.cross(s_w_dot)), a.sign * s_w_dot;
  }
}

void TreeKinematics::jacobianTimes(const VecX& q_r, const VecX& v_r, const std::vector<BodyMotion>& motion,
                                   Eigen::Ref<const MatX> W, MatX& JW, MatX& JdotW,
                                   JacobianTimesScratch& scratch) const {
  const auto k = W.cols();
  const int nvb = model_.vPerBody();
  JW.resize(model_.nv(), k);
  JdotW.resize(model_.nv(), k);
  std::vector<LinkAxes>& axes = scratch.axes;
  axes.resize(links_.size());
  for (BodyIndex b = 0; b < model_.nb(); ++b) linkAxes(b, q_r, &v_r, motion, axes[static_cast<std::size_t>(b)]);
  // each body's twist about the world origin, xi = sum of S u over the joints from ground to it,
  // and its rate; the body's columns: the velocity of its origin r, xi_v + xi_w x r, and xi_w,
  // whose rate adds xi_w x r' (r' = the origin's velocity in `motion`)
  std::vector<Vec6>& xi = scratch.xi;
  std::vector<Vec6>& xi_dot = scratch.xi_dot;
  xi.resize(links_.size());
  xi_dot.resize(links_.size());
  for (Eigen::Index c = 0; c < k; ++c) {
    for (const BodyIndex b : model_.topology().order) {
      const Link& link = links_[static_cast<std::size_t>(b)];
      const LinkAxes& a = axes[static_cast<std::size_t>(b)];
      const auto u = W.col(c).segment(link.v_offset, link.model.nv());
      Vec6& x = xi[static_cast<std::size_t>(b)];
      Vec6& x_dot = xi_dot[static_cast<std::size_t>(b)];
      x = a.S * u;
      x_dot = a.S_dot * u;
      if (link.parent != kGround) {
        x += xi[static_cast<std::size_t>(link.parent)];
        x_dot += xi_dot[static_cast<std::size_t>(link.parent)];
      }
      const BodyMotion& m = motion[static_cast<std::size_t>(b)];
      const Vec3 v = x.head<3>() + x.tail<3>().cross(m.r);
      const Vec3 v_dot = x_dot.head<3>() + x_dot.tail<3>().cross(m.r) + x.tail<3>().cross(m.v);
      const Eigen::Index o = static_cast<Eigen::Index>(b) * nvb;
      if (nvb == 3) {
        JW.col(c).segment<3>(o) << v.x(), v.y(), x(5);
        JdotW.col(c).segment<3>(o) << v_dot.x(), v_dot.y(), x_dot(5);
      } else {
        JW.col(c).segment<6>(o) << v, x.tail<3>();
        JdotW.col(c).segment<6>(o) << v_dot, x_dot.tail<3>();
      }
    }
  }
}

void TreeKinematics::relativeState(const State& x, VecX& q_r, VecX& v_r, const VecX* reference) const {
  checkStateSize(model_, x);
  LOOPDYN_CHECK(reference == nullptr || reference->size() == nq_, "reference: expected ", nq_, " entries");
  q_r.resize(nq_);
  v_r.resize(nv_);
  for (const Link& link : links_) {
    const BodyMotion m1 = bodyMotion(model_, x.q, x.v, link.first.body);
    const BodyMotion m2 = bodyMotion(model_, x.q, x.v, link.second.body);
    const WorldFrame F1 = worldFrame(m1, link.first), F2 = worldFrame(m2, link.second);
    RelativePose X;
    X.R = F1.R.transpose() * F2.R;
    X.p = F1.R.transpose() * (F2.o - F1.o);
    Scalar near[7] = {0, 0, 0, 0, 0, 0, 0};
    const bool referenced = reference != nullptr || model_.dimension() == 2;
    if (reference) std::copy_n(reference->data() + link.q_offset, link.model.nq(), near);
    if (const int k = link.model.planarAngleIndex(); model_.dimension() == 2 && k >= 0)
      near[k] = (m2.phi + link.second.angle) - (m1.phi + link.first.angle);  // exact, unwrapped
    link.model.coordinates(X, q_r.data() + link.q_offset, referenced ? near : nullptr);
    // the joint's equations allow poses its model does not reach (a revolute joint's z-axes
    // antiparallel instead of parallel, a fixed joint turned half a turn): say so, never guess
    const RelativePose back = link.model.pose(q_r.data() + link.q_offset);
    const Scalar L = model_.characteristicLength();
    if ((back.R - X.R).norm() > 1e-6 || (back.p - X.p).norm() > 1e-6 * L)
      throw InvalidArgument(detail::concat(
          "body '", model_.bodyName(link.body), "': its tree joint",
          link.joint < 0 ? std::string() : " '" + model_.joints()[static_cast<std::size_t>(link.joint)].name + "'",
          " is at a pose its joint model does not reach (off by ", (back.R - X.R).norm(), " in rotation, ",
          (back.p - X.p).norm(), " m in position): the state violates the joint, or its markers are not in the "
          "model's reference orientation (a revolute joint's z-axes antiparallel instead of parallel: the joint's "
          "equations admit both)"));
    link.model.velocities(q_r.data() + link.q_offset, relativeTwist(m1, F1, m2, F2), v_r.data() + link.v_offset);
  }
}

void TreeKinematics::jointVelocities(const State& x, const VecX& q_r, VecX& v_r) const {
  LOOPDYN_CHECK(q_r.size() == nq_, "joint velocities: the joint coordinates have the wrong size");
  v_r.resize(nv_);
  for (const Link& link : links_) {
    const BodyMotion m1 = bodyMotion(model_, x.q, x.v, link.first.body);
    const BodyMotion m2 = bodyMotion(model_, x.q, x.v, link.second.body);
    const WorldFrame F1 = worldFrame(m1, link.first), F2 = worldFrame(m2, link.second);
    link.model.velocities(q_r.data() + link.q_offset, relativeTwist(m1, F1, m2, F2), v_r.data() + link.v_offset);
  }
}

void TreeKinematics::jointVelocities(const VecX& q_r, const std::vector<BodyMotion>& motion, VecX& v_r,
                                     BodyIndex first, BodyIndex last) const {
  LOOPDYN_ASSERT(v_r.size() == nv_ && first >= 0 && last <= model_.nb());
  for (BodyIndex b = first; b < last; ++b) {
    const Link& link = links_[static_cast<std::size_t>(b)];
    const BodyMotion& m1 = motionOf(motion, link.first.body);
    const BodyMotion& m2 = motionOf(motion, link.second.body);
    const WorldFrame F1 = worldFrame(m1, link.first), F2 = worldFrame(m2, link.second);
    link.model.velocities(q_r.data() + link.q_offset, relativeTwist(m1, F1, m2, F2), v_r.data() + link.v_offset);
  }
}

void TreeKinematics::positionRates(const VecX& q_r, const VecX& v_r, VecX& qdot) const {
  qdot.resize(nq_);
  positionRates(q_r, v_r, qdot.data());
}

void TreeKinematics::positionRates(const VecX& q_r, const VecX& v_r, Scalar* qdot) const {
  for (const Link& link : links_)
    link.model.positionRates(q_r.data() + link.q_offset, v_r.data() + link.v_offset, qdot + link.q_offset);
}

void TreeKinematics::normalize(VecX& q_r) const {
  for (const Link& link : links_) link.model.normalize(q_r.data() + link.q_offset);
}

void TreeKinematics::integrate(const VecX& q_r, const VecX& v_r, Scalar dt, VecX& out) const {
  out.resize(nq_);
  for (const Link& link : links_)
    link.model.integrate(q_r.data() + link.q_offset, v_r.data() + link.v_offset, dt, out.data() + link.q_offset);
}

}  // namespace loopdyn
