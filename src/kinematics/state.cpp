#include "loopdyn/kinematics/state.hpp"

#include "loopdyn/common/check.hpp"
#include "loopdyn/spatial/rotation.hpp"

namespace loopdyn {

State initialState(const Model& model) {
  return State{0, model.initialPositions(), model.initialVelocities(), {}, {}};
}

const BodyMotion& groundMotion() {
  static const BodyMotion ground = [] {
    BodyMotion m;
    m.ground = true;
    return m;
  }();
  return ground;
}

BodyMotion bodyMotion(const Model& model, const VecX& q, const VecX& v, BodyIndex b) {
  BodyMotion m;
  if (b == kGround) {
    m.ground = true;
    return m;
  }
  const bool moving = v.size() != 0;
  if (model.dimension() == 2) {
    const int o = 3 * b;
    m.r << q(o), q(o + 1), 0;
    m.phi = q(o + 2);
    m.R = rotationZ(m.phi);
    if (moving) {
      m.v << v(o), v(o + 1), 0;
      m.w << 0, 0, v(o + 2);
    }
  } else {
    const int qo = 7 * b, vo = 6 * b;
    m.r = q.segment<3>(qo);
    m.R = Quat(q(qo + 3), q(qo + 4), q(qo + 5), q(qo + 6)).normalized().toRotationMatrix();
    if (moving) {
      m.v = v.segment<3>(vo);
      m.w = v.segment<3>(vo + 3);
    }
  }
  return m;
}

void displacePositions(const Model& model, const VecX& q, const VecX& dv, VecX& out) {
  LOOPDYN_CHECK(dv.size() == model.nv(), "dv: expected ", model.nv(), " entries, got ", dv.size());
  out = q;
  if (model.dimension() == 2) {
    out += dv;
    return;
  }
  for (int b = 0; b < model.nb(); ++b) {
    const int qo = 7 * b, vo = 6 * b;
    out.segment<3>(qo) += dv.segment<3>(vo);
    const Quat quat(q(qo + 3), q(qo + 4), q(qo + 5), q(qo + 6));
    const Quat turned = (Quat(expSO3(dv.segment<3>(vo + 3))) * quat).normalized();
    out.segment<4>(qo + 3) << turned.w(), turned.x(), turned.y(), turned.z();
  }
}

void checkStateSize(const Model& model, const State& x) {
  LOOPDYN_CHECK(x.q.size() == model.nq(), "q: expected ", model.nq(), " entries, got ", x.q.size());
  LOOPDYN_CHECK(x.v.size() == model.nv(), "v: expected ", model.nv(), " entries, got ", x.v.size());
}

}  // namespace loopdyn
