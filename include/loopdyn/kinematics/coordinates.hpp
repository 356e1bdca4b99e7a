#pragma once
/// The positions an integrator carries (issue 15): the bodies' absolute coordinates (Model's
/// layout) or joint coordinates on the spanning tree (tree_kinematics.hpp). Everything physical --
/// constraints, mass, forces, energies, reactions -- is evaluated on the absolute State that these
/// maps produce; they are the only place a simulation reads or writes its integrated positions.
///
/// With joint coordinates the tree joints hold exactly by construction and only the cut joints',
/// distance joints', knife edges' and drivers' equations remain constraints.

#include <memory>
#include <vector>

#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"

namespace loopdyn {

class Coordinates {
 public:
  virtual ~Coordinates() = default;
  /// True for joint coordinates.
  virtual bool relative() const = 0;
  /// The spanning tree joint coordinates are taken on (nullptr for absolute coordinates).
  virtual const TreeKinematics* tree() const = 0;
  /// Number of integrated positions.
  virtual int size() const = 0;
  /// x.t and the absolute positions x.q from integrated positions p (joint coordinates: also
  /// x.q_r = p), with p's quaternions normalised when `normalize` (x.q's quaternions are unit
  /// either way for joint coordinates). x.v is left alone.
  virtual void toState(Scalar t, Eigen::Ref<const VecX> p, State& x, bool normalize) const = 0;
  /// The integrated positions a state made by toState came from (x.q or x.q_r).
  virtual void positionsOf(const State& x, Eigen::Ref<VecX> p) const = 0;
  /// The integrated positions of x. Joint coordinates are re-derived from x.q (which a projection
  /// may have moved; its tree joints must hold) with angles near x.q_r when x has them, and x.q_r
  /// is updated. Throws InvalidArgument where no joint coordinates give x.q.
  virtual void fromState(State& x, Eigen::Ref<VecX> p) const = 0;
  /// dp/dt: from the body velocities x.v, or from the joint velocities x.v_r.
  virtual void rates(const State& x, Scalar* pdot) const = 0;
  /// Entries of p that are angles (unbounded: an integrator measures their error relative to at
  /// most pi, ode/integrator.hpp).
  virtual std::vector<int> angles() const = 0;
};

class AbsoluteCoordinates final : public Coordinates {
 public:
  explicit AbsoluteCoordinates(const Model& model) : model_(model) {}
  bool relative() const override { return false; }
  const TreeKinematics* tree() const override { return nullptr; }
  int size() const override { return model_.nq(); }
  void toState(Scalar t, Eigen::Ref<const VecX> p, State& x, bool normalize) const override;
  void positionsOf(const State& x, Eigen::Ref<VecX> p) const override;
  void fromState(State& x, Eigen::Ref<VecX> p) const override;
  void rates(const State& x, Scalar* pdot) const override;
  std::vector<int> angles() const override;

 private:
  const Model& model_;
};

class JointCoordinates final : public Coordinates {
 public:
  explicit JointCoordinates(const Model& model) : tree_(model) {}
  bool relative() const override { return true; }
  int size() const override { return tree_.nq(); }
  void toState(Scalar t, Eigen::Ref<const VecX> p, State& x, bool normalize) const override;
  void positionsOf(const State& x, Eigen::Ref<VecX> p) const override;
  void fromState(State& x, Eigen::Ref<VecX> p) const override;
  void rates(const State& x, Scalar* pdot) const override;
  std::vector<int> angles() const override;
  const TreeKinematics* tree() const override { return &tree_; }

 private:
  TreeKinematics tree_;
};

/// qdot from v in absolute coordinates: 2D the same; 3D rdot = v and the quaternion's rate
/// 1/2 (0, w) * q (w in world axes).
void absolutePositionRates(const Model& model, const State& x, Scalar* qdot);

/// The names of the joint coordinates and velocities, in their order: JOINT.q1 ..., JOINT.v1 ...
/// (a floating body's free joint: BODY.free.q1 ...).
std::vector<std::string> jointCoordinateNames(const Model& model, char kind);

}  // namespace loopdyn
