#pragma once
/// The velocity constraint matrix C = [Phi_q; Psi] (paper 001, eq. (5)) stored by rows: each row
/// comes from one joint or driver and acts on that pair's two bodies alone, so it holds two blocks
/// of a body's velocity columns (3 in 2D, 6 in 3D: at most 12 nonzeros a row), and the bodies they
/// belong to. Evaluation, the kinetic Gram matrix, C v, C^T w and the singularity watch work on the
/// blocks, O(rows); the dense (m + h) x nv matrix is formed only when asked for (`dense`: the
/// rank-revealing factorisations of the analyses and of the dense formulations), once per
/// evaluation.

#include <array>
#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

class ConstraintJacobian {
 public:
  ConstraintJacobian() = default;
  /// The rows of model's joints and drivers, on their pairs' bodies (entries zero until written).
  explicit ConstraintJacobian(const Model& model);

  Eigen::Index rows() const { return static_cast<Eigen::Index>(bodies_.size()); }
  Eigen::Index cols() const { return cols_; }
  /// Velocity columns of one body: 3 (planar) or 6.
  int bodyColumns() const { return width_; }

  /// The body of a row's block `slot` (0: the pair's first body, 1: its second); kGround: none
  /// (a row on ground, or a pair with both markers on one body, whose entries are all in slot 0).
  BodyIndex body(Eigen::Index row, int slot) const { return bodies_[static_cast<std::size_t>(row)][static_cast<std::size_t>(slot)]; }
  /// A row's entries on the columns of body(row, slot).
  Eigen::Map<const VecX> block(Eigen::Index row, int slot) const {
    return Eigen::Map<const VecX>(values_.data() + offset(row, slot), width_);
  }
  /// The same, to be written (the dense form is formed anew when next asked for).
  Scalar* writableBlock(Eigen::Index row, int slot) {
    dense_current_ = false;
    return values_.data() + offset(row, slot);
  }
  /// A row's entries on body b's columns: its block there, or zeros where the row does not act on b.
  Eigen::Map<const VecX> onBody(Eigen::Index row, BodyIndex b) const {
    static constexpr Scalar kZeros[6] = {};
    if (b != kGround)
      for (int slot = 0; slot < 2; ++slot)
        if (body(row, slot) == b) return block(row, slot);
    return Eigen::Map<const VecX>(kZeros, width_);
  }

  /// C_row v.
  Scalar rowTimes(Eigen::Index row, Eigen::Ref<const VecX> v) const {
    Scalar sum = 0;
    for (int slot = 0; slot < 2; ++slot)
      if (const BodyIndex b = body(row, slot); b != kGround) {
        const Scalar* c = values_.data() + offset(row, slot);
        const Scalar* vb = v.data() + static_cast<Eigen::Index>(b) * width_;
        for (int k = 0; k < width_; ++k) sum += c[k] * vb[k];
      }
    return sum;
  }
  /// out += C_row X (X: cols x k, out: k entries).
  template <class Out>
  void addRowTimes(Eigen::Index row, const MatX& X, Out&& out) const {
    for (int slot = 0; slot < 2; ++slot)
      if (const BodyIndex b = body(row, slot); b != kGround)
        out.noalias() += block(row, slot).transpose() * X.middleRows(static_cast<Eigen::Index>(b) * width_, width_);
  }
  /// out = C v.
  void times(Eigen::Ref<const VecX> v, Eigen::Ref<VecX> out) const;
  /// out += C^T w.
  void addTransposedTimes(Eigen::Ref<const VecX> w, Eigen::Ref<VecX> out) const;

  /// C as a dense (rows x cols) matrix, formed from the blocks at the first call after they changed.
  const MatX& dense() const;

 private:
  std::size_t offset(Eigen::Index row, int slot) const {
    return static_cast<std::size_t>((2 * row + slot) * width_);
  }
  Eigen::Index cols_ = 0;
  int width_ = 0;
  std::vector<std::array<BodyIndex, 2>> bodies_;
  std::vector<Scalar> values_;  ///< row r's block s at (2 r + s) * width_
  mutable MatX dense_;          ///< (keeps its zeros between formations: only the blocks change)
  mutable bool dense_current_ = false;
};

}  // namespace loopdyn
