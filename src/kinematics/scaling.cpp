#include "loopdyn/kinematics/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace loopdyn {

Scalar positionResidualFloor(const Model& model, const VecX& q) {
  const Scalar L = model.characteristicLength();
  const int dim = model.dimension();
  Scalar R = L;
  for (int b = 0; b < model.nb(); ++b) R = std::max(R, q.segment(b * model.qPerBody(), dim).cwiseAbs().maxCoeff());
  auto groundMarker = [&](const MarkerFrame& marker) {
    if (marker.body == kGround) R = std::max(R, marker.position.head(dim).cwiseAbs().maxCoeff());
  };
  for (const Joint& joint : model.joints()) groundMarker(joint.first), groundMarker(joint.second);
  for (const Driver& driver : model.drivers()) groundMarker(driver.first), groundMarker(driver.second);
  // each equation: a few terms of size R, each off by up to eps R after rounding; 8 eps per
  // equation covers the sums and the last Newton update, and sqrt(m) the norm over the equations
  constexpr Scalar kRoundingsPerEquation = 8;
  const Scalar m = std::max(1, model.m());
  return kRoundingsPerEquation * std::numeric_limits<Scalar>::epsilon() * std::sqrt(m) * R / L;
}

}  // namespace loopdyn
