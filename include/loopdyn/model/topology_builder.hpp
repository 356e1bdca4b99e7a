#pragma once
/// Building a Topology (topology.hpp) from a model's joints: used by compile(), and by tests
/// that build graphs directly.

#include <optional>
#include <string>
#include <vector>

#include "loopdyn/model/topology.hpp"

namespace loopdyn {

/// One joint as the topology sees it.
struct TopologyJoint {
  JointType type = JointType::Revolute;
  BodyIndex body1 = kGround, body2 = kGround;  ///< a knife edge: body1 only
  std::optional<bool> cut;  ///< the model's request: true out of the spanning tree, false into it
};

/// A request that cannot be met, for compile() to report at the joint's location.
struct TopologyProblem {
  int joint = 0;
  std::string message;
};

/// The spanning tree (breadth first from ground, requests first), the cut joints, relative
/// coordinates and the balanced binary assembly tree. Problems are appended to `problems`; the
/// topology is then still complete (requests that cannot be met are overruled).
Topology buildTopology(int nb, int dimension, const std::vector<TopologyJoint>& joints,
                       const std::vector<std::string>& body_names, std::vector<TopologyProblem>& problems);

}  // namespace loopdyn
