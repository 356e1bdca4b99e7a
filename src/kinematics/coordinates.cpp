#include "loopdyn/kinematics/coordinates.hpp"

#include "loopdyn/common/check.hpp"

namespace loopdyn {

void absolutePositionRates(const Model& model, const State& x, Scalar* qdot) {
  if (model.dimension() == 2) {
    Eigen::Map<VecX>(qdot, model.nq()) = x.v;
    return;
  }
  for (int b = 0; b < model.nb(); ++b) {
    const Vec3 w = x.v.segment<3>(6 * b + 3);
    const Scalar s = x.q(7 * b + 3);
    const Vec3 u = x.q.segment<3>(7 * b + 4);
    Eigen::Map<Eigen::Matrix<Scalar, 7, 1>> out(qdot + 7 * b);
    out.head<3>() = x.v.segment<3>(6 * b);
    out(3) = -0.5 * w.dot(u);
    out.tail<3>() = 0.5 * (s * w + w.cross(u));
  }
}

void AbsoluteCoordinates::toState(Scalar t, Eigen::Ref<const VecX> p, State& x, bool normalize) const {
  x.t = t;
  x.q = p;
  if (normalize && model_.dimension() == 3)
    for (int b = 0; b < model_.nb(); ++b) x.q.segment<4>(7 * b + 3).normalize();
}

void AbsoluteCoordinates::positionsOf(const State& x, Eigen::Ref<VecX> p) const { p = x.q; }

void AbsoluteCoordinates::fromState(State& x, Eigen::Ref<VecX> p) const { p = x.q; }

void AbsoluteCoordinates::rates(const State& x, Scalar* pdot) const { absolutePositionRates(model_, x, pdot); }

std::vector<int> AbsoluteCoordinates::angles() const {
  std::vector<int> out;
  if (model_.dimension() == 2)
    for (int b = 0; b < model_.nb(); ++b) out.push_back(3 * b + 2);
  return out;
}

void JointCoordinates::toState(Scalar t, Eigen::Ref<const VecX> p, State& x, bool normalize) const {
  x.q_r = p;
  if (normalize) tree_.normalize(x.q_r);
  tree_.absolutePositions(x.q_r, t, x);
}

void JointCoordinates::positionsOf(const State& x, Eigen::Ref<VecX> p) const { p = x.q_r; }

void JointCoordinates::fromState(State& x, Eigen::Ref<VecX> p) const {
  const VecX reference = x.q_r;
  const State positions{x.t, x.q, VecX::Zero(tree_.model().nv()), {}, {}};  // (velocities do not matter here)
  VecX v_r;
  tree_.relativeState(positions, x.q_r, v_r, reference.size() == tree_.nq() ? &reference : nullptr);
  p = x.q_r;
}

void JointCoordinates::rates(const State& x, Scalar* pdot) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq() && x.v_r.size() == tree_.nv(),
                "joint coordinates: the state has no joint positions or velocities");
  tree_.positionRates(x.q_r, x.v_r, pdot);
}

std::vector<int> JointCoordinates::angles() const {
  std::vector<int> out;
  for (const auto& link : tree_.links())
    for (int k = 0; k < link.model->nq(); ++k)
      if (link.model->isAngle(k)) out.push_back(link.q_offset + k);
  return out;
}

std::vector<std::string> jointCoordinateNames(const Model& model, char kind) {
  LOOPDYN_CHECK(kind == 'q' || kind == 'v', "joint coordinate names: kind is q or v");
  const Topology& topology = model.topology();
  std::vector<std::string> names(static_cast<std::size_t>(kind == 'q' ? topology.nq : topology.nv));
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const TreeLink& link = topology.links[static_cast<std::size_t>(b)];
    const std::string prefix =
        link.joint < 0 ? model.bodyName(b) + ".free" : model.joints()[static_cast<std::size_t>(link.joint)].name;
    const int offset = kind == 'q' ? link.q_offset : link.v_offset;
    const int count = kind == 'q' ? link.count.nq : link.count.nv;
    for (int k = 0; k < count; ++k)
      names[static_cast<std::size_t>(offset + k)] = prefix + "." + kind + std::to_string(k + 1);
  }
  return names;
}

}  // namespace loopdyn
