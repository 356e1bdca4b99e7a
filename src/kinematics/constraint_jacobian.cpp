#include "loopdyn/kinematics/constraint_jacobian.hpp"

namespace loopdyn {

ConstraintJacobian::ConstraintJacobian(const Model& model)
    : cols_(model.nv()),
      width_(model.vPerBody()),
      bodies_(static_cast<std::size_t>(model.nc()), {kGround, kGround}),
      values_(static_cast<std::size_t>(2 * model.nc() * model.vPerBody()), 0) {
  const auto place = [&](int row, BodyIndex first, BodyIndex second) {
    bodies_[static_cast<std::size_t>(row)] = {first, second == first ? kGround : second};
  };
  for (const Joint& joint : model.joints())
    for (int k = 0; k < joint.rows; ++k) place(joint.row + k, joint.first.body, joint.second.body);
  for (const Driver& driver : model.drivers()) place(driver.row, driver.first.body, driver.second.body);
}

void ConstraintJacobian::times(Eigen::Ref<const VecX> v, Eigen::Ref<VecX> out) const {
  for (Eigen::Index row = 0; row < rows(); ++row) out(row) = rowTimes(row, v);
}

void ConstraintJacobian::addTransposedTimes(Eigen::Ref<const VecX> w, Eigen::Ref<VecX> out) const {
  for (Eigen::Index row = 0; row < rows(); ++row)
    for (int slot = 0; slot < 2; ++slot)
      if (const BodyIndex b = body(row, slot); b != kGround) out.segment(b * width_, width_) += w(row) * block(row, slot);
}

const MatX& ConstraintJacobian::dense() const {
  if (dense_current_) return dense_;
  if (dense_.rows() != rows() || dense_.cols() != cols_) dense_.setZero(rows(), cols_);
  const Eigen::Index stride = dense_.outerStride();
  for (Eigen::Index row = 0; row < rows(); ++row)
    for (int slot = 0; slot < 2; ++slot)
      if (const BodyIndex b = body(row, slot); b != kGround) {
        const Scalar* c = values_.data() + offset(row, slot);
        Scalar* out = &dense_(row, static_cast<Eigen::Index>(b) * width_);
        for (int k = 0; k < width_; ++k) out[k * stride] = c[k];
      }
  dense_current_ = true;
  return dense_;
}

}  // namespace loopdyn
