#pragma once
/// Model: the compiled, immutable mechanism. Built only by compile(const ModelSpec&).
///
/// Coordinates (absolute, one block per moving body b):
///   2D: q_b = (x, y, phi),              v_b = (xdot, ydot, phidot)             nq = nv = 3 nb
///   3D: q_b = (x, y, z, qw, qx, qy, qz), v_b = (v_x, v_y, v_z, w_x, w_y, w_z)   nq = 7 nb, nv = 6 nb
/// In 3D the angular velocity w is in the world frame and the quaternion maps body to world.
/// Constraint rows: holonomic joints in file order, then drivers (together: Phi, m rows), then
/// nonholonomic pairs in file order (Psi, h rows) -- the stacking C = [Phi_q; Psi] of paper 001,
/// eq. (5).

#include <string>
#include <string_view>
#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/model/joint_type.hpp"
#include "loopdyn/model/model_spec.hpp"
#include "loopdyn/model/profile.hpp"
#include "loopdyn/model/topology.hpp"

namespace loopdyn {

/// A marker resolved to its body: where the pair acts.
struct MarkerFrame {
  BodyIndex body = kGround;
  Vec3 position = Vec3::Zero();         ///< in the body frame
  Mat3 orientation = Mat3::Identity();  ///< in the body frame
  /// 2D: the angle of `orientation`, unwrapped as written (driven joint angles count whole turns)
  Scalar angle = 0;
};

struct Body {
  std::string name;
  Scalar mass = 0;
  Mat3 inertia = Mat3::Zero();          ///< about the centre of mass, body frame (2D: (2, 2) only)
  Mat3 inertia_inverse = Mat3::Zero();  ///< its inverse (2D: 1 / I_zz at (2, 2))
  std::vector<std::string> marker_names;
  std::vector<MarkerFrame> markers;
  SourceLocation where;
};

/// A joint or Pfaffian pair, with the rows it owns in C.
struct Joint {
  std::string name;
  JointType type = JointType::Revolute;
  MarkerFrame first, second;  ///< knife edge: first only (second is ground)
  Scalar length = 0;
  int row = 0;   ///< first row in C
  int rows = 0;  ///< number of scalar equations
  SourceLocation where;
};

/// A rheonomic constraint on a joint coordinate or a distance.
struct Driver {
  std::string name;
  DriverTarget target = DriverTarget::JointRotation;
  int joint = -1;  ///< index into Model::joints() for joint targets
  MarkerFrame first, second;
  Profile profile = Profile::constant(0);
  int row = 0;
  SourceLocation where;
};

/// A force element resolved to bodies and markers (evaluated by the dynamics layer).
struct Force {
  ForceSpec spec;
  MarkerFrame first, second;
  int joint = -1;
};

/// Every scalar equation of C: its name (`B.x`, `W1`, `steer`), owner and units.
struct Equation {
  std::string name;
  int pair = 0;  ///< index into Model::pairs()
  EquationKind kind = EquationKind::Translational;
};

/// A kinematic pair in the sense of paper 001: a joint, knife edge or driver, owning rows of C.
struct Pair {
  std::string name;
  std::string type;  ///< "revolute", "knife_edge", "driver", ...
  int row = 0;
  int rows = 0;
  bool nonholonomic = false;
  BodyIndex body1 = kGround, body2 = kGround;
  /// Where the pair acts and its joint frame: the first marker (a joint driver: its joint's).
  MarkerFrame first;
  int joint = -1;   ///< index into Model::joints(), or -1 (a driver)
  int driver = -1;  ///< index into Model::drivers(), or -1 (a joint)
};

/// A set of pairs acting on one common body (see GroupSpec), resolved to indices.
struct Group {
  std::string name;
  std::vector<int> pairs;  ///< indices into Model::pairs()
  BodyIndex body = kGround;
  SourceLocation where;
};

namespace detail {
class ModelCompiler;  // compile()'s stages (src/model/compile.cpp)
}

/// Scaling that makes the constraint matrix dimensionless, so that rank decisions and convergence
/// tests do not depend on the units of length. With L the model's characteristic length, a
/// rotation rate w is measured as the speed L w, so rotational columns are divided by L; angular
/// equations (direction cosines, angles) are multiplied by L so that every residual is a length.
/// Then C_s = diag(row) C diag(col) is dimensionless and unchanged when the model is scaled
/// (kinematics/scaling.hpp forms it). Fixed by the model: computed once, when it is compiled.
struct ConstraintScaling {
  VecX row;  ///< size m + h: 1 for translational equations, L for angular ones
  VecX col;  ///< size nv: 1 for translational velocities, 1/L for angular velocities
};

class Model {
 public:
  int dimension() const { return dimension_; }
  int nb() const { return static_cast<int>(bodies_.size()); }
  /// Position coordinates (3 per body in 2D, 7 in 3D).
  int nq() const { return nb() * qPerBody(); }
  /// Velocity coordinates: the n of the papers (3 per body in 2D, 6 in 3D).
  int nv() const { return nb() * vPerBody(); }
  int qPerBody() const { return dimension_ == 2 ? 3 : 7; }
  int vPerBody() const { return dimension_ == 2 ? 3 : 6; }
  /// Holonomic equations (joints and drivers): rows of Phi.
  int m() const { return m_; }
  /// Nonholonomic (Pfaffian) equations: rows of Psi.
  int h() const { return h_; }
  /// All rows of C.
  int nc() const { return m_ + h_; }

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const Vec3& gravity() const { return gravity_; }
  /// Length used to make angular and translational quantities comparable (rank decisions).
  Scalar characteristicLength() const { return characteristic_length_; }
  /// The rows' and velocity coordinates' scales (ConstraintScaling above).
  const ConstraintScaling& scaling() const { return scaling_; }

  const std::vector<Body>& bodies() const { return bodies_; }
  const std::vector<Joint>& joints() const { return joints_; }
  const std::vector<Driver>& drivers() const { return drivers_; }
  const std::vector<Force>& forces() const { return forces_; }
  const std::vector<Equation>& equations() const { return equations_; }
  const std::vector<Pair>& pairs() const { return pairs_; }
  /// Groups of pairs named in the model file (more can be made with resolveGroup).
  const std::vector<Group>& groups() const { return groups_; }
  /// Spanning tree, cut joints, relative coordinates and the binary assembly tree.
  const Topology& topology() const { return topology_; }

  /// Index of the body with this name; kGround for "ground"; throws InvalidArgument if unknown.
  BodyIndex bodyIndex(const std::string& name) const;
  /// Index into pairs() of the pair with this name; throws InvalidArgument if unknown.
  int pairIndex(const std::string& name) const;
  /// Name of a body index ("ground" for kGround).
  const std::string& bodyName(BodyIndex b) const;

  /// The approximate initial configuration written in the model (size nq).
  const VecX& initialPositions() const { return initial_q_; }
  /// The initial velocities written in the model, zero where none was given (size nv).
  const VecX& initialVelocities() const { return initial_v_; }
  /// Which velocity coordinates the model prescribes (size nv).
  const std::vector<bool>& prescribedVelocities() const { return prescribed_v_; }
  /// Which bodies assembly keeps where the file puts them (`hold: true`; size nb).
  const std::vector<bool>& heldBodies() const { return held_; }
  /// The units the model file declared (the Model's numbers are SI whatever they were).
  const Units& units() const { return units_; }
  /// What the reader found suspicious in the file, "file:line:col: warning: ..." each.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  friend Model compile(const ModelSpec& spec);
  friend class detail::ModelCompiler;
  std::string name_, description_;
  int dimension_ = 2;
  int m_ = 0, h_ = 0;
  Vec3 gravity_ = Vec3::Zero();
  Scalar characteristic_length_ = 1;
  ConstraintScaling scaling_;
  std::vector<Body> bodies_;
  std::vector<Joint> joints_;
  std::vector<Driver> drivers_;
  std::vector<Force> forces_;
  std::vector<Equation> equations_;
  std::vector<Pair> pairs_;
  std::vector<Group> groups_;
  Topology topology_;
  VecX initial_q_, initial_v_;
  std::vector<bool> prescribed_v_;
  std::vector<bool> held_;
  Units units_;
  std::vector<std::string> warnings_;
};

/// Resolves a group's names against the model. On success fills `out` and returns nothing; else
/// returns one message per problem (unknown pair or body, with a spelling hint; a pair that does
/// not act on the body; a pair listed twice; an empty group). Messages name no file location.
std::vector<std::string> resolveGroup(const Model& model, const GroupSpec& spec, Group& out);

/// "NAME=PAIR,PAIR,...@BODY" (`analyze --group`, Python's `groups`) as a GroupSpec; returns what
/// is wrong with the text, empty on success.
std::string parseGroup(const std::string& text, GroupSpec& out);

/// Groups written as parseGroup reads them, resolved on the model and appended to `out`; one
/// message per problem, each starting with its text in quotes ("'KM=K,X@ground': group 'KM':
/// unknown joint or driver 'X' ..."), empty when every group resolved.
std::vector<std::string> resolveGroups(const Model& model, const std::vector<std::string>& texts, std::vector<Group>& out);

/// Largest number of velocity coordinates, and of constraint equations, of a model that the dense
/// routes take on (the formulations that keep dense n x (m + h) or n x n matrices, and the dense
/// analyses a model whose equations the sparse routes cannot certify independent falls back to):
/// dense matrices of 6000 x 6000 take 0.29 GB each and a factorisation some minutes.
inline constexpr int kLargestDenseSize = 6000;

/// "" when `what` (a dense route: "the projection formulation", "the rank analysis") can take the
/// model on; else why not: its size, the memory of one dense n x (m + h) matrix, and `instead`
/// (the options that fit).
std::string denseSizeProblem(const Model& model, std::string_view what, std::string_view instead);

/// From this many constraint equations the analyses, the assembly and the simulation's watch take
/// sparse routes where the equations are independent (analysis/independent_rows.hpp): below it the
/// dense factorisations are as fast and rank-revealing.
inline constexpr int kSparseRows = 256;

/// Checks a spec and builds the immutable Model. Throws ModelError listing every problem found
/// (unknown or duplicate names, a joint on one body twice, non-positive mass, inertia not
/// symmetric positive-definite, a joint type not available in the dimension, ...), each with the
/// file:line:col where it was written. Any size: the dense routes check theirs (denseSizeProblem).
Model compile(const ModelSpec& spec);

}  // namespace loopdyn
