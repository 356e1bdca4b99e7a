#include "loopdyn/dynamics/dca/hdca.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <limits>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/constraint_equations.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"

namespace loopdyn {

namespace {

/// Body b's entries of a Model-layout vector as [linear; angular] (2D: x, y and z only).
Vec6 bodyVector(const Model& model, const VecX& X, BodyIndex b) {
  Vec6 out = Vec6::Zero();
  if (model.dimension() == 2)
    out << X(3 * b), X(3 * b + 1), 0, 0, 0, X(3 * b + 2);
  else
    out = X.segment<6>(6 * b);
  return out;
}

void setBodyVector(const Model& model, BodyIndex b, const Vec6& w, VecX& X) {
  if (model.dimension() == 2)
    X.segment<3>(3 * b) << w(0), w(1), w(5);
  else
    X.segment<6>(6 * b) = w;
}

/// The jets (Jet or RateJet) of connection (joint or driver) between m1 and m2: its rows.
template <bool R>
int connectionJets(const Model& model, int joint, int driver, const BodyMotion& m1, const BodyMotion& m2, Scalar t,
                   std::array<BasicJet<R>, 6>& jets) {
  if (joint >= 0) {
    const Joint& j = model.joints()[static_cast<std::size_t>(joint)];
    jointEquations(model.dimension(), j, m1, m2, std::span<BasicJet<R>>(jets.data(), static_cast<std::size_t>(j.rows)));
    return j.rows;
  }
  jets[0] = driverEquation<R>(model, model.drivers()[static_cast<std::size_t>(driver)], m1, m2, t);
  return 1;
}

}  // namespace

Eigen::Matrix<Scalar, 12, 1> constraintRateTransposed(const Model& model, int joint, int driver, const BodyMotion& m1,
                                                      const BodyMotion& m2, Scalar t, const Scalar* sigma) {
  Eigen::Matrix<Scalar, 12, 1> out = Eigen::Matrix<Scalar, 12, 1>::Zero();
  if (joint >= 0 && model.joints()[static_cast<std::size_t>(joint)].type == JointType::KnifeEdge) {
    // the row n . v_K (n = the marker's y axis, v_K = v + w x a, a = the contact point's arm) of
    // direction W = (v_W, w_W), differentiated along the motion V: n' = w_V x n, a' = w_V x a,
    //   (w_V x n) . (v_W + w_W x a) + n . (w_W x (w_V x a))
    const MarkerFrame& marker = model.joints()[static_cast<std::size_t>(joint)].first;
    const Vec3 n = m1.R * marker.orientation.col(1), arm = m1.R * marker.position;
    const Vec3 n_dot = m1.w.cross(n);
    out.head<3>() = sigma[0] * n_dot;
    out.segment<3>(3) = sigma[0] * (arm.cross(n_dot) + m1.w.cross(arm).cross(n));
    return out;
  }
  if (joint >= 0) {
    const Joint& j = model.joints()[static_cast<std::size_t>(joint)];
    const bool planar = model.dimension() == 2;
    if ((planar && j.type == JointType::Revolute) || (!planar && j.type == JointType::Spherical)) {
      // rows p1 - p2 alone (constraint_equations.hpp): applied to W, v_W1 + w_W1 x a1 - (v_W2 +
      // w_W2 x a2) with the markers' arms a_k, whose rate along V is w_Vk x a_k; so sigma^T Cdot
      // W = w_W1 . ((w_V1 x a1) x sigma) - w_W2 . ((w_V2 x a2) x sigma), no force
      Vec3 s = Vec3::Zero();
      s.head(j.rows) = Eigen::Map<const VecX>(sigma, j.rows);
      if (!m1.ground) out.segment<3>(3) = m1.w.cross(m1.R * j.first.position).cross(s);
      if (!m2.ground) out.segment<3>(9) = -m2.w.cross(m2.R * j.second.position).cross(s);
      return out;
    }
  }
  // the rows' rate jets: grad_rate is d(C's row)/dt along the motion (kinematics/jet.hpp)
  std::array<RateJet, 6> jets;
  const int rows = connectionJets(model, joint, driver, m1, m2, t, jets);
  for (int r = 0; r < rows; ++r) out += sigma[r] * jets[static_cast<std::size_t>(r)].grad_rate.transpose();
  if (model.dimension() == 2) {  // (a planar body has no wx, wy columns)
    out.segment<2>(3).setZero();
    out.segment<2>(9).setZero();
  }
  return out;
}

HamiltonianDca::HamiltonianDca(const Model& model, const TreeKinematics& tree)
    : tree_(tree), dca_(model), scaling_(model.scaling()) {
  const Topology& topology = model.topology();
  const auto nb = static_cast<std::size_t>(model.nb());
  links_.resize(nb);
  axes_.resize(nb);
  motion_.resize(nb);
  momentum_.resize(nb);
  load_.resize(nb);
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const TreeLink& tl = topology.links[static_cast<std::size_t>(b)];
    Link& link = links_[static_cast<std::size_t>(b)];
    link.child = b;
    link.parent = tl.parent;
    link.model = &tree.joint(b);
    link.q_offset = tl.q_offset;
    link.v_offset = tl.v_offset;
  }
  // the joints below each body (those whose parent it is), for the impulses' gather
  child_start_.assign(nb + 1, 0);
  for (BodyIndex b = 0; b < model.nb(); ++b)
    if (links_[static_cast<std::size_t>(b)].parent != kGround) ++child_start_[static_cast<std::size_t>(links_[static_cast<std::size_t>(b)].parent) + 1];
  for (std::size_t b = 0; b < nb; ++b) child_start_[b + 1] += child_start_[b];
  children_.resize(static_cast<std::size_t>(child_start_[nb]));
  std::vector<int> filled(child_start_.begin(), child_start_.end() - 1);
  for (BodyIndex b = 0; b < model.nb(); ++b)
    if (const BodyIndex parent = links_[static_cast<std::size_t>(b)].parent; parent != kGround)
      children_[static_cast<std::size_t>(filled[static_cast<std::size_t>(parent)]++)] = b;
  const auto& connections = dca_.connections();
  cut_terms_.clear();
  for (std::size_t i = 0; i < connections.size(); ++i) {
    const DivideAndConquer::Connection& c = connections[i];
    if (c.driver >= 0 || topology.roles[static_cast<std::size_t>(c.joint)] != JointRole::Tree)
      cut_.push_back(static_cast<int>(i));
  }
  cut_terms_.resize(cut_.size());
}

void HamiltonianDca::linkAxes(const State& x, const std::vector<BodyMotion>& motion, bool rates) {
  dca_.forEachBody([&](BodyIndex b) {
    tree_.linkAxes(b, x.q_r, rates ? &x.v_r : nullptr, motion, axes_[static_cast<std::size_t>(b)]);
  });
}

void HamiltonianDca::subtreeSums(const Model& model, std::vector<Vec6>& own) const {
  const std::vector<BodyIndex>& order = model.topology().order;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const BodyIndex parent = links_[static_cast<std::size_t>(*it)].parent;
    if (parent != kGround) own[static_cast<std::size_t>(parent)] += own[static_cast<std::size_t>(*it)];
  }
}

namespace {

/// [f; n] with n about c, as a spatial vector about the world origin: [f; n + c x f].
Vec6 aboutOrigin(const Vec6& w, const Vec3& c) {
  Vec6 out = w;
  out.tail<3>() += c.cross(w.head<3>());
  return out;
}

}  // namespace

void HamiltonianDca::momenta(const Model& model, const State& x, const VecX& sigma, VecX& p) {
  for (BodyIndex b = 0; b < model.nb(); ++b) motion_[static_cast<std::size_t>(b)] = bodyMotion(model, x.q, x.v, b);
  linkAxes(x, motion_, false);
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const BodyMotion& m = motion_[static_cast<std::size_t>(b)];
    const Body& body = model.bodies()[static_cast<std::size_t>(b)];
    momentum_[static_cast<std::size_t>(b)] << body.mass * m.v, worldInertia(model, body, m) * m.w;
  }
  if (sigma.size() > 0) {
    std::array<Jet, 6> jets;
    for (const int ci : cut_) {
      const DivideAndConquer::Connection& c = dca_.connections()[static_cast<std::size_t>(ci)];
      const int rows = connectionJets(model, c.joint, c.driver, motionOf(motion_, c.bodies[0]),
                                      motionOf(motion_, c.bodies[1]), x.t, jets);
      for (int r = 0; r < rows; ++r)
        for (int slot = 0; slot < 2; ++slot)
          if (c.bodies[static_cast<std::size_t>(slot)] != kGround)
            momentum_[static_cast<std::size_t>(c.bodies[static_cast<std::size_t>(slot)])] +=
                sigma(c.row + r) * jets[static_cast<std::size_t>(r)].grad.segment<6>(6 * slot).transpose();
    }
  }
  for (BodyIndex b = 0; b < model.nb(); ++b)
    momentum_[static_cast<std::size_t>(b)] =
        aboutOrigin(momentum_[static_cast<std::size_t>(b)], motion_[static_cast<std::size_t>(b)].r);
  subtreeSums(model, momentum_);
  p.resize(tree_.nv());
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const Link& link = links_[static_cast<std::size_t>(b)];
    p.segment(link.v_offset, link.model->nv()) =
        axes_[static_cast<std::size_t>(b)].S.transpose() * momentum_[static_cast<std::size_t>(b)];
  }
}

int HamiltonianDca::velocities(const Model& model, State& x, Eigen::Ref<const VecX> p, VecX& sigma) {
  tree_.absolutePositions(x.q_r, x.t, x);
  x.v.setZero(model.nv());
  dca_.forEachBody([&](BodyIndex b) { motion_[static_cast<std::size_t>(b)] = bodyMotion(model, x.q, x.v, b); });
  linkAxes(x, motion_, false);
  // body impulses with J^T P = p: per joint the wrench S p_k at frame 2's origin (frame-1 axes,
  // turned to world axes here), on the child with the joint's sign and opposite on the parent
  dca_.forEachBody([&](BodyIndex b) {
    const Link& link = links_[static_cast<std::size_t>(b)];
    const LinkAxes& a = axes_[static_cast<std::size_t>(b)];
    const Vec6 local = a.S_local * p.segment(link.v_offset, link.model->nv());
    load_[static_cast<std::size_t>(b)] << a.R1 * local.head<3>(), a.R1 * local.tail<3>();
  });
  // each body's impulse gathered from its own joint's wrench and its child joints' (body by body
  // among the threads: each writes its own entries)
  P_.resize(model.nv());
  dca_.forEachBody([&](BodyIndex on) {
    Vec6 total = Vec6::Zero();
    const auto add = [&](BodyIndex joint, Scalar sign) {
      const LinkAxes& a = axes_[static_cast<std::size_t>(joint)];
      const Vec6& wrench = load_[static_cast<std::size_t>(joint)];
      const Scalar s = sign * a.sign;
      total.head<3>() += s * wrench.head<3>();
      total.tail<3>() += s * (wrench.tail<3>() + (a.o2 - motion_[static_cast<std::size_t>(on)].r).cross(wrench.head<3>()));
    };
    add(on, 1);
    for (int k = child_start_[static_cast<std::size_t>(on)]; k < child_start_[static_cast<std::size_t>(on) + 1]; ++k)
      add(children_[static_cast<std::size_t>(k)], -1);
    setBodyVector(model, on, total, P_);
  });
  const int dependent = dca_.solveVelocities(model, motion_, P_, x.t, scaling_, V_, sigma);
  // (V satisfies the tree joints' velocity equations to rounding, as every other row: u is exact)
  x.v = V_;
  x.v_r.resize(tree_.nv());
  dca_.forEachBody([&](BodyIndex b) {
    motion_[static_cast<std::size_t>(b)] = bodyMotion(model, x.q, x.v, b);
  });
  dca_.forEachBody([&](BodyIndex b) { tree_.jointVelocities(x.q_r, motion_, x.v_r, b, b + 1); });
  return dependent;
}

void HamiltonianDca::momentumRates(const Model& model, const State& x, const std::vector<BodyMotion>& motion,
                                   const VecX& F, const VecX& sigma, Eigen::Ref<VecX> pdot) {
  linkAxes(x, motion, true);
  dca_.forEachBody([&](BodyIndex b) {
    const BodyMotion& m = motion[static_cast<std::size_t>(b)];
    const Body& body = model.bodies()[static_cast<std::size_t>(b)];
    const Mat3 I = worldInertia(model, body, m);
    momentum_[static_cast<std::size_t>(b)] << body.mass * m.v, I * m.w;
    Vec6& load = load_[static_cast<std::size_t>(b)];
    load = bodyVector(model, F, b);
    if (model.dimension() == 3) load.tail<3>() += m.w.cross(I * m.w);  // d/dt (M V) holds the gyroscopic term
  });
  // the impulses of the rows outside the tree: C_cut^T sigma in the momenta, Cdot_cut^T sigma in
  // the loads (per connection in parallel, then added to the bodies in order)
  dca_.parallelFor(static_cast<int>(cut_.size()), kCutGrain, [&](int i) {
    const DivideAndConquer::Connection& c = dca_.connections()[static_cast<std::size_t>(cut_[static_cast<std::size_t>(i)])];
    const BodyMotion& m1 = motionOf(motion, c.bodies[0]);
    const BodyMotion& m2 = motionOf(motion, c.bodies[1]);
    std::array<Jet, 6> jets;
    const int rows = connectionJets(model, c.joint, c.driver, m1, m2, x.t, jets);
    CutTerms& terms = cut_terms_[static_cast<std::size_t>(i)];
    terms.impulse.setZero();
    for (int r = 0; r < rows; ++r) terms.impulse += sigma(c.row + r) * jets[static_cast<std::size_t>(r)].grad.transpose();
    terms.rate = constraintRateTransposed(model, c.joint, c.driver, m1, m2, x.t, sigma.data() + c.row);
  });
  for (std::size_t i = 0; i < cut_.size(); ++i) {
    const DivideAndConquer::Connection& c = dca_.connections()[static_cast<std::size_t>(cut_[i])];
    for (int slot = 0; slot < 2; ++slot) {
      const BodyIndex b = c.bodies[static_cast<std::size_t>(slot)];
      if (b == kGround) continue;
      momentum_[static_cast<std::size_t>(b)] += cut_terms_[i].impulse.segment<6>(6 * slot);
      load_[static_cast<std::size_t>(b)] += cut_terms_[i].rate.segment<6>(6 * slot);
    }
  }
  // about the world origin: d/dt (c x l) = cdot x l + c x ldot
  dca_.forEachBody([&](BodyIndex b) {
    const BodyMotion& m = motion[static_cast<std::size_t>(b)];
    Vec6& Pi = momentum_[static_cast<std::size_t>(b)];
    Vec6& W = load_[static_cast<std::size_t>(b)];
    W = aboutOrigin(W, m.r);
    W.tail<3>() += m.v.cross(Pi.head<3>());
    Pi = aboutOrigin(Pi, m.r);
  });
  subtreeSums(model, momentum_);
  subtreeSums(model, load_);
  dca_.forEachBody([&](BodyIndex b) {
    const Link& link = links_[static_cast<std::size_t>(b)];
    const LinkAxes& a = axes_[static_cast<std::size_t>(b)];
    pdot.segment(link.v_offset, link.model->nv()) =
        a.S_dot.transpose() * momentum_[static_cast<std::size_t>(b)] + a.S.transpose() * load_[static_cast<std::size_t>(b)];
  });
}

HdcaFormulation::HdcaFormulation(const Model& model, int threads)
    : JointCoordinateFormulation(model), balls_(model, tree_), threads_(threads), driven_(!model.drivers().empty()) {}

std::unique_ptr<FormulationData> HdcaFormulation::makeData(const Model& model) const {
  auto data = std::make_unique<Data>(model, tree_);
  data->equations = coordinateEquations(model, true);
  data->hdca.setThreads(threads_);
  return data;
}

namespace {

/// Principal inertias further apart than this make hdca costly even with the ball joints'
/// momenta carried in their children's axes (ball_momenta.hpp). The spatial parallelogram (2 s,
/// rtol 1e-8, dopri5) with its nine rods' ratio at 1e-2 / 1e-3 / 1e-4 / 1e-5 / 1e-6 / 1.5e-7:
/// hdca 252 / 252 / 247 / 690 / 6 052 / 40 899 steps where dca takes 279 / 289 / 283 / 282 / 278 /
/// 284 (with the momenta in the parents' axes: 1 838 / 4 643 / - / - / - / over 120 s). Only
/// bodies whose tree joint turns them about every axis (spherical, floating): a universal joint's
/// two axes may miss the thin one.
constexpr Scalar kThinBodyRatio = 1.5e-5;

}  // namespace

std::vector<RunWarning> HdcaFormulation::costWarnings(const Model& model) const {
  if (model.dimension() != 3) return {};
  const Body* thinnest = nullptr;
  Scalar least = 1;
  Vec3 inertias = Vec3::Zero();
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const int joint = model.topology().links[static_cast<std::size_t>(b)].joint;
    if (joint >= 0 && model.joints()[static_cast<std::size_t>(joint)].type != JointType::Spherical) continue;
    const Body& body = model.bodies()[static_cast<std::size_t>(b)];
    const Vec3 principal = Eigen::SelfAdjointEigenSolver<Mat3>(body.inertia, Eigen::EigenvaluesOnly).eigenvalues();
    if (principal(2) > 0 && principal(0) / principal(2) < least) {
      least = principal(0) / principal(2);
      thinnest = &body;
      inertias = principal;
    }
  }
  if (!thinnest || least >= kThinBodyRatio) return {};
  RunWarning warning;
  warning.kind = RunWarning::Kind::ThinBody;
  warning.name = thinnest->name;
  warning.value = inertias(0);
  warning.bound = inertias(2);
  return {warning};
}

Problem HdcaFormulation::begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const {
  Data& d = dataAs<Data>(model, ws);
  d.hdca.assembly().followGenericRank(d.settings.generic_rank < 0 ? -1 : model.nc() - d.settings.generic_rank);
  State xs = x;
  checkStateSize(model, xs);
  if (Problem problem = jointState(tree_, xs); !problem.empty()) return problem;
  tree_.absoluteState(xs.q_r, xs.v_r, xs.t, xs);
  VecX p;
  d.hdca.momenta(model, xs, VecX(), p);
  balls_.carried(xs.q_r, p, u);
  return {};
}

Problem HdcaFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                                      Eigen::Ref<VecX> du, const Evaluation& how) const {
  Data& d = dataAs<Data>(model, ws);
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), name(), ": the state has no joint coordinates");
  if (d.joint_velocities) return JointCoordinateFormulation::evaluate(model, ws, x, u, du, how);
  if (how.project) {
    tree_.absolutePositions(x.q_r, x.t, x);
    x.v.setZero(model.nv());
    if (Problem problem = projectPositions(model, ws, x); !problem.empty()) return problem;
    if (Problem problem = jointState(tree_, x); !problem.empty()) return problem;
  }
  // (one entry into the task arena for all the passes: each entry wakes the workers)
  ws.F.resize(model.nv());
  ws.F_nc.resize(model.nv());
  balls_.joint(x.q_r, u, d.p);
  d.hdca.assembly().execute([&] {
    d.hdca.velocities(model, x, d.p, d.sigma);
    // the bodies' motions (the velocity level's, formed at x.q and x.v) and loads, each on the
    // thread whose share of the tree holds the body (as the DCA's forward dynamics, dca.cpp)
    d.hdca.assembly().forEachBody([&](BodyIndex b) {
      ws.kin.motion[static_cast<std::size_t>(b)] = d.hdca.motions()[static_cast<std::size_t>(b)];
      bodyForces(model, ws.kin.motion, b, ws.F, ws.F_nc);
    });
    d.hdca.assembly().forceElementForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
    d.hdca.momentumRates(model, x, ws.kin.motion, ws.F, d.sigma, du);
  });
  balls_.rates(x.q_r, x.v_r, d.p, du, d.pdot);
  if (how.multipliers || driven_) {
    // the reactions (and the drivers' power lambda^T b) from the acceleration level at this state
    evaluateConstraints(model, ws.kin, x);
    accelerations(model, d, ws, x);
    return {};
  }
  // the accelerations are not computed here; the simulation's finiteness check reads them
  // (NaN on the bodies whose velocities are not finite, or on all when only pdot is not)
  ws.a.setZero(model.nv());
  if (!du.allFinite() || !x.v.allFinite()) {
    constexpr Scalar nan = std::numeric_limits<Scalar>::quiet_NaN();
    for (Eigen::Index k = 0; k < ws.a.size(); ++k)
      if (!std::isfinite(x.v(k)) || x.v.allFinite()) ws.a(k) = nan;
  }
  return {};
}

Formulation::StepOutcome HdcaFormulation::afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step,
                                                    const State& x, Eigen::Ref<VecX> u) const {
  if (dataAs<Data>(model, ws).joint_velocities) return JointCoordinateFormulation::afterStep(model, ws, step, x, u);
  return {};
}

Problem HdcaFormulation::evaluationModeChanged(const Model& model, DynamicsWorkspace& ws, const State& x, bool project,
                                               Eigen::Ref<VecX> u) const {
  Data& d = dataAs<Data>(model, ws);
  if (project == d.joint_velocities) return {};
  State xs = x;
  if (project) {
    balls_.joint(xs.q_r, u, d.p);
    d.hdca.velocities(model, xs, d.p, d.sigma);
    u = xs.v_r;
  } else {
    xs.v_r = u;
    tree_.absoluteState(xs.q_r, xs.v_r, xs.t, xs);
    VecX p;
    d.hdca.momenta(model, xs, VecX(), p);  // sigma = 0: M_r u
    balls_.carried(xs.q_r, p, u);
  }
  d.joint_velocities = project;
  return {};
}

Scalar HdcaFormulation::constraintPower(const DynamicsWorkspace& ws, const State& x) const {
  return driven_ ? Formulation::constraintPower(ws, x) : 0;
}

void HdcaFormulation::accelerations(const Model& model, Data& d, DynamicsWorkspace& ws, const State& x) const {
  static const VecX no_shift;
  forwardDynamicsByDca(d.hdca.assembly(), tree_, model, ws, x, no_shift);
}

Problem HdcaFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, const Evaluation&) const {
  evaluateConstraints(model, ws.kin, x);
  accelerations(model, dataAs<Data>(model, ws), ws, x);
  return {};
}

}  // namespace loopdyn
