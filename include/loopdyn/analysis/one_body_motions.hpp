#pragma once
/// The admissible motions in which one body moves and every other stands still, said in words.
///
/// v is admissible when C v = 0 (paper 004, eq. (3)); a motion of body b alone has v zero outside
/// b's columns, so it is admissible exactly when C_b v_b = 0, C_b the columns of C on b. The null
/// space of the scaled block C_s,b (an SVD of an (m + h) x 6 matrix, 3 in 2D) holds them all: an
/// S-S link's idle spin about the line through its two balls (the RSSR coupler, each rod of a
/// Delta robot's parallelograms), a body on one spherical joint that nothing else touches, a free
/// body's six motions. Each is a rigid motion of b, (v, w) at its origin r: a turn about the axis
/// through p = r + w x v / |w|^2 along w where w . v = 0, a slide where w = 0, else a screw of
/// pitch w . v / |w|^2; the words name the joints whose points lie on the axis.

#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

struct OneBodyMotion {
  BodyIndex body = kGround;
  VecX scaled;        ///< size nv, zero but on the body's columns: unit size in the scaled velocities
  std::string words;  ///< "coupler spins about the line through joints A and B (every other body at rest)"
};

/// The one-body motions at the evaluated configuration of `kin` (evaluateConstraints first): the
/// null vectors of each body's scaled block whose singular values are at most `threshold` times
/// the largest singular value of any body's block (the rank threshold of the analysis). Mutually
/// orthonormal in the scaled velocities (disjoint bodies, orthonormal within one body).
std::vector<OneBodyMotion> oneBodyMotions(const Model& model, const KinematicsWorkspace& kin, Scalar threshold);

/// The words of one rigid motion of body b at its pose: velocity v of its origin, rate w (world).
std::string rigidMotionWords(const Model& model, const KinematicsWorkspace& kin, BodyIndex b, const Vec3& v,
                             const Vec3& w);

}  // namespace loopdyn
