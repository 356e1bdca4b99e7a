#pragma once
/// Kinematic pair types and the scalar equations each contributes in 2D and 3D.

#include <optional>
#include <span>
#include <string_view>

namespace loopdyn {

enum class JointType {
  Revolute,
  Prismatic,
  Cylindrical,
  Universal,
  Spherical,
  Planar,
  Fixed,
  Distance,   ///< |p2 - p1| = length (one equation)
  KnifeEdge,  ///< Pfaffian: the contact point moves along the edge (paper 001, eq. 30)
};

/// Units of one scalar equation: lengths, or dimensionless angles/direction cosines.
/// Rank decisions scale angular rows by the characteristic length (see analysis/rank_tolerance).
enum class EquationKind { Translational, Angular };

/// One scalar equation of a pair: its suffix in the equation name (`B.x`) and its units.
/// An empty suffix means the equation is named by the pair alone (`W1`, `d1`).
struct EquationSlot {
  std::string_view suffix;
  EquationKind kind;
};

std::string_view jointTypeName(JointType type);
std::optional<JointType> jointTypeFromName(std::string_view name);

/// Whether the type exists in the given dimension (2 or 3).
bool jointTypeAllowed(JointType type, int dimension);

/// Whether the pair constrains velocities only (Pfaffian rows Psi) rather than positions.
bool isNonholonomic(JointType type);

/// The scalar equations the pair contributes, in row order (paper 001, eq. 5 stacks them).
std::span<const EquationSlot> equationSlots(JointType type, int dimension);

/// Whether the type has a natural coordinate a driver can prescribe, per kind of motion.
bool jointHasRotationCoordinate(JointType type);
bool jointHasTranslationCoordinate(JointType type);

}  // namespace loopdyn
