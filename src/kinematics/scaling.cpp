#include "loopdyn/kinematics/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace loopdyn {

SparseMatrix scaledSparseRows(const ConstraintScaling& scaling, const ConstraintJacobian& C, const std::vector<int>& rows) {
  const int width = C.bodyColumns();
  std::vector<Eigen::Triplet<Scalar>> entries;
  entries.reserve(rows.size() * static_cast<std::size_t>(2 * width));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (int slot = 0; slot < 2; ++slot)
      if (const BodyIndex b = C.body(rows[i], slot); b != kGround)
        for (int k = 0; k < width; ++k) {
          const Eigen::Index column = static_cast<Eigen::Index>(b) * width + k;
          entries.emplace_back(static_cast<Eigen::Index>(i), column,
                               scaling.row(rows[i]) * C.block(rows[i], slot)(k) * scaling.col(column));
        }
  SparseMatrix out(static_cast<Eigen::Index>(rows.size()), C.cols());
  out.setFromTriplets(entries.begin(), entries.end());  // (sums a pair's two blocks on one body)
  return out;
}

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
