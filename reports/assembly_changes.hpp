#pragma once
// What assembly changed of what the model file says (issue 19): the bodies it moved and the
// prescribed velocities it had to change. A user must see these before trusting the rest: both
// `analyze` and `simulate` print them.

#include <string>
#include <vector>

#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::reports {

/// A body that assembly moved away from the pose written in the model file.
struct BodyMove {
  BodyIndex body = 0;
  Scalar distance = 0;  ///< of its centre, m
  Scalar turn = 0;      ///< rad (2D: signed, whole turns included)
  Vec3 position;        ///< where it is now
};

/// The bodies assembly moved by more than 1e-9 of the model's size (or 1e-9 rad).
std::vector<BodyMove> assemblyMoves(const Model& model, const State& assembled);

/// A body whose prescribed velocities assembly had to change.
struct VelocityChange {
  BodyIndex body = 0;
  VecX given, used;
};

std::vector<VelocityChange> velocityChanges(const Model& model, const State& assembled);

/// "(1, 2.5)": a vector in three significant digits.
std::string vectorText(const VecX& v);

/// One line per change ("moved crank by 0.00175 m and -0.00351 rad from the file's pose, to
/// (0.252, 0.432)", "velocity of crank1: given (...), used (...) (the constraints allow no
/// other)"), none when assembly kept the file's state.
std::vector<std::string> assemblyChangeLines(const Model& model, const State& assembled);

}  // namespace loopdyn::reports
