#pragma once
/// ModelSpec: the editable description of a mechanism, as read from a model file or built in
/// code. compile() checks it and turns it into an immutable Model. Every item remembers where it
/// was written so that errors can name file, line and column.

#include <optional>
#include <string>
#include <vector>

#include "loopdyn/common/errors.hpp"
#include "loopdyn/common/types.hpp"
#include "loopdyn/model/joint_type.hpp"
#include "loopdyn/model/profile.hpp"
#include "loopdyn/model/units.hpp"

namespace loopdyn {

/// A named body-fixed point and frame. In 2D only position.x/y and the rotation about z count.
struct MarkerSpec {
  std::string name;
  Vec3 position = Vec3::Zero();           ///< in the body frame
  Mat3 orientation = Mat3::Identity();    ///< marker axes in the body frame
  SourceLocation where;
  /// 2D: the angle of `orientation` as written, whole turns included (0 when built from a matrix)
  Scalar angle = 0;
};

/// What is wrong with a body's mass ("mass must be positive, got -1"), empty when it is positive
/// and finite. The reader asks at the value, so that a file's every problem is reported at once;
/// compile() asks again for specs built in code.
std::string massProblem(Scalar mass);
/// What is wrong with a body's inertia: in 2D I_zz must be positive, in 3D the tensor symmetric
/// positive-definite; empty when it is.
std::string inertiaProblem(const Mat3& inertia, int dimension);

/// A rigid body. The body frame origin is the centre of mass.
struct BodySpec {
  std::string name;
  Scalar mass = 0;
  Mat3 inertia = Mat3::Zero();  ///< about the centre of mass, body frame; 2D uses (2,2) only
  Vec3 position = Vec3::Zero();         ///< initial (approximate) position, world frame
  Mat3 orientation = Mat3::Identity();  ///< initial (approximate) orientation, body -> world
  std::optional<Vec3> linear_velocity;   ///< prescribed initial velocity of the centre of mass
  std::optional<Vec3> angular_velocity;  ///< prescribed initial angular velocity, world frame
  std::vector<MarkerSpec> markers;
  SourceLocation where;
  /// 2D: the angle of `orientation` as written, whole turns included (0 when built from a matrix)
  Scalar angle = 0;
  /// Kept where the file puts it while the model is assembled (`hold: true`)
  bool hold = false;
};

/// "body.marker" as written in a joint, driver or force.
struct MarkerRef {
  std::string body;
  std::string marker;
  SourceLocation where;
  std::string str() const { return body + "." + marker; }
};

/// A kinematic pair between two markers (a knife edge uses `first` only: it acts against ground).
struct JointSpec {
  std::string name;
  JointType type = JointType::Revolute;
  MarkerRef first, second;
  Scalar length = 0;  ///< distance joints only
  SourceLocation where;
  /// `cut: true` keeps the joint out of the spanning tree (it closes a loop), `cut: false` forces
  /// it into the tree; unset: the breadth-first choice (model/topology.hpp).
  std::optional<bool> cut;
};

/// What a driver prescribes.
enum class DriverTarget {
  JointRotation,     ///< the angle of a revolute or cylindrical joint
  JointTranslation,  ///< the displacement of a prismatic or cylindrical joint
  Distance,          ///< the distance between two markers
};

/// A rheonomic constraint coordinate(q) - f(t) = 0.
struct DriverSpec {
  std::string name;
  DriverTarget target = DriverTarget::JointRotation;
  std::string joint;       ///< JointRotation / JointTranslation
  MarkerRef first, second; ///< Distance
  Profile profile = Profile::constant(0);
  SourceLocation where;
};

enum class ForceType {
  SpringDamper,  ///< point to point: k (|d| - free_length) + c d|d|/dt along d
  BodyLoad,      ///< force at a marker and torque on its body, world frame, times a profile
  JointEffort,   ///< torque (revolute) or force (prismatic) in a joint, given by a profile
};

/// A force element. Parsed and validated now; evaluated by the dynamics layer.
struct ForceSpec {
  std::string name;
  ForceType type = ForceType::SpringDamper;
  MarkerRef first, second;  ///< spring-damper ends; BodyLoad uses first
  Scalar stiffness = 0, damping = 0, free_length = 0;
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  Profile profile = Profile::constant(1);  ///< BodyLoad scale factor; JointEffort value
  std::string joint;
  SourceLocation where;
};

/// A named set of pairs acting on one common body, whose resultant reaction on that body is
/// tested for uniqueness as one element (e.g. the total load a set of bearings puts on the frame).
struct GroupSpec {
  std::string name;
  std::vector<std::string> pairs;  ///< joint, knife-edge or driver names
  std::string body;                ///< the common body ("ground" for the frame)
  SourceLocation where;
};

/// A whole mechanism. `dimension` is 2 (planar) or 3 (spatial); SI units throughout.
struct ModelSpec {
  std::string name;
  std::string description;
  int dimension = 2;
  Vec3 gravity = Vec3::Zero();
  Scalar characteristic_length = 0;  ///< 0: derived from the markers (see compile())
  std::vector<MarkerSpec> ground_markers;
  std::vector<BodySpec> bodies;
  std::vector<JointSpec> joints;
  std::vector<DriverSpec> drivers;
  std::vector<ForceSpec> forces;
  std::vector<GroupSpec> groups;
  SourceLocation where;          ///< the file itself
  SourceLocation gravity_where;  ///< where gravity was written (unknown when it was not)
  Units units;                   ///< the units the file declared (its numbers are SI here already)
  std::vector<Diagnostic> warnings;  ///< what looks wrong but is not an error (an angle in degrees, ...)
};

}  // namespace loopdyn
