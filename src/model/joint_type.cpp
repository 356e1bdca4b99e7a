#include "loopdyn/model/joint_type.hpp"

#include <array>
#include <utility>

namespace loopdyn {

namespace {
constexpr EquationKind T = EquationKind::Translational;
constexpr EquationKind A = EquationKind::Angular;

// 2D: positions in world components (x, y); rz = relative rotation; y = offset across the axis
constexpr std::array<EquationSlot, 2> kRevolute2{{{"x", T}, {"y", T}}};
constexpr std::array<EquationSlot, 2> kPrismatic2{{{"y", T}, {"rz", A}}};
constexpr std::array<EquationSlot, 3> kFixed2{{{"x", T}, {"y", T}, {"rz", A}}};
// 3D: point coincidence in world components; rx, ry, rz block rotations about the marker-1 axes;
// x, y of prismatic/cylindrical/planar are offsets in the marker-1 frame
constexpr std::array<EquationSlot, 5> kRevolute3{{{"x", T}, {"y", T}, {"z", T}, {"rx", A}, {"ry", A}}};
constexpr std::array<EquationSlot, 5> kPrismatic3{{{"x", T}, {"y", T}, {"rx", A}, {"ry", A}, {"rz", A}}};
constexpr std::array<EquationSlot, 4> kCylindrical3{{{"x", T}, {"y", T}, {"rx", A}, {"ry", A}}};
constexpr std::array<EquationSlot, 4> kUniversal3{{{"x", T}, {"y", T}, {"z", T}, {"twist", A}}};
constexpr std::array<EquationSlot, 3> kSpherical3{{{"x", T}, {"y", T}, {"z", T}}};
constexpr std::array<EquationSlot, 3> kPlanar3{{{"z", T}, {"rx", A}, {"ry", A}}};
constexpr std::array<EquationSlot, 6> kFixed3{{{"x", T}, {"y", T}, {"z", T}, {"rx", A}, {"ry", A}, {"rz", A}}};
constexpr std::array<EquationSlot, 1> kSingle{{{"", T}}};

constexpr std::array<std::pair<JointType, std::string_view>, 9> kNames{{
    {JointType::Revolute, "revolute"},
    {JointType::Prismatic, "prismatic"},
    {JointType::Cylindrical, "cylindrical"},
    {JointType::Universal, "universal"},
    {JointType::Spherical, "spherical"},
    {JointType::Planar, "planar"},
    {JointType::Fixed, "fixed"},
    {JointType::Distance, "distance"},
    {JointType::KnifeEdge, "knife_edge"},
}};
}  // namespace

std::string_view jointTypeName(JointType type) {
  for (const auto& [t, name] : kNames)
    if (t == type) return name;
  return "?";
}

std::optional<JointType> jointTypeFromName(std::string_view name) {
  for (const auto& [t, n] : kNames)
    if (n == name) return t;
  if (name == "translational") return JointType::Prismatic;  // paper 001's word
  return std::nullopt;
}

bool jointTypeAllowed(JointType type, int dimension) {
  switch (type) {
    case JointType::Revolute:
    case JointType::Prismatic:
    case JointType::Fixed:
    case JointType::Distance:
      return true;
    case JointType::KnifeEdge:
      return dimension == 2;
    case JointType::Cylindrical:
    case JointType::Universal:
    case JointType::Spherical:
    case JointType::Planar:
      return dimension == 3;
  }
  return false;
}

bool isNonholonomic(JointType type) { return type == JointType::KnifeEdge; }

std::span<const EquationSlot> equationSlots(JointType type, int dimension) {
  if (dimension == 2) {
    switch (type) {
      case JointType::Revolute: return kRevolute2;
      case JointType::Prismatic: return kPrismatic2;
      case JointType::Fixed: return kFixed2;
      case JointType::Distance:
      case JointType::KnifeEdge: return kSingle;
      default: return {};
    }
  }
  switch (type) {
    case JointType::Revolute: return kRevolute3;
    case JointType::Prismatic: return kPrismatic3;
    case JointType::Cylindrical: return kCylindrical3;
    case JointType::Universal: return kUniversal3;
    case JointType::Spherical: return kSpherical3;
    case JointType::Planar: return kPlanar3;
    case JointType::Fixed: return kFixed3;
    case JointType::Distance: return kSingle;
    default: return {};
  }
}

bool jointHasRotationCoordinate(JointType type) {
  return type == JointType::Revolute || type == JointType::Cylindrical;
}

bool jointHasTranslationCoordinate(JointType type) {
  return type == JointType::Prismatic || type == JointType::Cylindrical;
}

}  // namespace loopdyn
