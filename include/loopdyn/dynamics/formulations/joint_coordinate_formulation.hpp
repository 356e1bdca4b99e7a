#pragma once
/// The divide-and-conquer formulations' base (dca.hpp, hdca.hpp): a VelocityFormulation in joint
/// coordinates, with the spanning tree's kinematics at hand.

#include "loopdyn/dynamics/formulations/velocity_formulation.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"

namespace loopdyn {

class JointCoordinateFormulation : public VelocityFormulation {
 public:
  explicit JointCoordinateFormulation(const Model& model)
      : VelocityFormulation(std::make_unique<JointCoordinateEquations>(model)),
        tree_(static_cast<const JointCoordinateEquations&>(*equations_).tree()) {}

  const TreeKinematics& tree() const { return tree_; }

 protected:
  const TreeKinematics& tree_;
};

}  // namespace loopdyn
