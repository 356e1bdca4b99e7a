#pragma once
/// The divide-and-conquer formulations' base (dca.hpp, hdca.hpp): a VelocityFormulation in joint
/// coordinates, with the spanning tree's kinematics at hand.

#include "loopdyn/dynamics/formulations/velocity_formulation.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"

namespace loopdyn {

class JointCoordinateFormulation : public VelocityFormulation {
 public:
  explicit JointCoordinateFormulation(const Model& model) : VelocityFormulation(model, true), tree_(model) {}

  const TreeKinematics& tree() const { return tree_; }

 protected:
  TreeKinematics tree_;  ///< (its run data's equations keep their own: the description's is const)
};

}  // namespace loopdyn
