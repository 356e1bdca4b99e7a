#pragma once
/// The scalar equations of every pair type, written once as jets of marker points and axes.
///
/// Conventions (marker frame k has origin p_k and axes x_k, y_k, z_k in world components,
/// d = p2 - p1):
///   2D revolute    x, y:  p1 - p2 = 0                       (paper 001, appendix form)
///   2D prismatic   y: y1.d = 0;  rz: x1.y2 = 0              (slides along x1)
///   2D fixed       x, y: p1 - p2 = 0;  rz: x1.y2 = 0
///   3D spherical   x, y, z: p1 - p2 = 0
///   3D revolute    spherical + rx: z1.y2 = 0, ry: z1.x2 = 0  (turns about z1)
///   3D cylindrical x: x1.d, y: y1.d, rx, ry                 (slides along and turns about z1)
///   3D prismatic   cylindrical + rz: x1.y2 = 0              (slides along z1)
///   3D universal   spherical + twist: z1.z2 = 0             (cross axes z1 and z2)
///   3D planar      z: z1.d = 0, rx, ry                      (moves in the x1-y1 plane)
///   3D fixed       spherical + rx, ry, rz
///   distance       (d.d - L^2) / (2L) = 0                   (a length; gradient d^T/L)
///   knife edge     Psi v = n.v_K = 0, n = y-axis of the marker, rolls along its x-axis
///                  (paper 001, eq. (30); Gamma as eq. (31) generalized to a moving point)
/// Drivers: coordinate(q) - f(t) = 0 with the coordinate
///   2D joint rotation   (phi2 + a2) - (phi1 + a1), unwrapped (a_k: marker angle on its body)
///   3D joint rotation   atan2(y1.x2, x1.x2), residual wrapped to (-pi, pi]
///   joint translation   x1.d in 2D, z1.d in 3D
///   distance            |d|

#include <span>

#include "loopdyn/kinematics/jet.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Jets of a joint's equations, in row order, for a model of dimension D (planar or spatial
/// jets, jet.hpp); out.size() must equal joint.rows. For nonholonomic pairs, val is 0 and grad is
/// the row of Psi. Without or with rates.
template <bool Rates, int D>
void jointEquations(const Joint& joint, const BodyMotion& m1, const BodyMotion& m2, std::span<BasicJet<Rates, D>> out);

/// Jet of a driver's equation at time t, in a model of dimension D.
template <bool Rates, int D>
BasicJet<Rates, D> driverEquation(const Driver& driver, const BodyMotion& m1, const BodyMotion& m2, Scalar t);

/// The same as spatial jets (12 columns) whatever the model's dimension (planar ones widened):
/// the form the divide-and-conquer formulations read.
template <bool Rates>
void jointEquations(int dimension, const Joint& joint, const BodyMotion& m1, const BodyMotion& m2,
                    std::span<BasicJet<Rates>> out);
template <bool Rates = false>
BasicJet<Rates> driverEquation(const Model& model, const Driver& driver, const BodyMotion& m1, const BodyMotion& m2,
                               Scalar t);

}  // namespace loopdyn
