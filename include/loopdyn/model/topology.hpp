#pragma once
/// Topology before numbers (issue 15): the joint graph of a model, a spanning tree rooted at ground
/// with the joints that close its loops cut, the joint coordinates of relative (joint) coordinates,
/// and a balanced binary assembly tree with handles for the divide-and-conquer formulations
/// (paper 000, sect. 2 and Fig. 1b; paper 002, Fig. 3).
///
/// Absolute coordinates are the special case in which every body hangs on a free joint from ground
/// and every physical joint is cut; the spanning tree is what relative coordinates add.

#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/model/joint_type.hpp"

namespace loopdyn {

/// What a joint is in the spanning tree.
enum class JointRole {
  Tree,        ///< connects a body to its parent; its coordinates are generalized coordinates
  Cut,         ///< a tree-capable joint that closes a loop: its equations stay constraints
  Constraint,  ///< never a tree joint (distance, knife edge): always a constraint
};

/// Whether a joint type can connect a body to its parent in a spanning tree: it has a motion
/// subspace of its own (distance joints and knife edges do not).
bool jointCanBeTreeJoint(JointType type);

/// Coordinates of a joint in relative coordinates: position coordinates (a spherical or free 3D
/// joint stores a unit quaternion: 4 for 3 freedoms) and velocity coordinates (its freedoms).
struct JointCoordinateCount {
  int nq = 0;
  int nv = 0;
};

/// The coordinates of a tree joint of `type` in `dimension`; free: the joint of a floating body.
JointCoordinateCount jointCoordinateCount(JointType type, int dimension);
JointCoordinateCount freeJointCoordinateCount(int dimension);

/// How a body hangs in the spanning tree.
struct TreeLink {
  int joint = -1;             ///< index into Model::joints(); -1: a free joint from ground (floating)
  BodyIndex parent = kGround;
  int depth = 1;              ///< number of joints between the body and ground
  int q_offset = 0, v_offset = 0;  ///< the link's joint coordinates in relative coordinates
  JointCoordinateCount count;
};

/// A joint endpoint through which a subassembly interacts with the rest of the mechanism
/// (paper 000: "a handle is an interface with the world").
struct Handle {
  int joint = 0;  ///< index into Model::joints()
  int side = 0;   ///< 0: the joint's first marker, 1: its second
};

/// A node of the binary assembly tree: a body (leaf) or the subassembly of two nodes.
struct AssemblyNode {
  BodyIndex body = kGround;     ///< leaf: its body; kGround for a subassembly
  int first = -1, second = -1;  ///< subassembly: its two children (indices into nodes)
  int parent = -1;              ///< -1 for the root (the complete assembly)
  int size = 1;                 ///< bodies in it
  /// Joints assembled here: between a body of `first` and one of `second`. More than one is a
  /// multijoint connection (paper 000, Fig. 4); none happens when the two are joined only through
  /// ground, which the root's ground connection handles.
  std::vector<int> joints;
  /// Its handles: endpoints inside it of joints assembled above it or at the ground connection.
  std::vector<Handle> handles;
};

/// The topology of a compiled model (Model::topology()).
struct Topology {
  std::vector<JointRole> roles;    ///< per joint of Model::joints()
  std::vector<TreeLink> links;     ///< per body
  std::vector<BodyIndex> order;    ///< bodies with every parent before its children
  std::vector<int> cut_joints;     ///< roles Cut and Constraint, in file order
  int nq = 0, nv = 0;              ///< relative coordinates: sums of the links' counts
  /// Independent loops of the joint graph (ground, bodies, and the joints between two of them):
  /// joints - bodies + components not attached to ground (its cyclomatic number).
  int loops = 0;

  std::vector<AssemblyNode> nodes;  ///< leaves and subassemblies; nodes[root] is the whole mechanism
  int root = -1;
  /// Joints between the complete assembly and ground, assembled after the root (paper 000,
  /// Fig. 5: the multijoint connection to ground), knife edges included.
  std::vector<int> ground_joints;

  /// Number of floating bodies (on free joints from ground).
  int floatingBodies() const;
  /// Height of the assembly tree: 1 for a single body.
  int assemblyHeight() const;
};

}  // namespace loopdyn
