#pragma once
/// Evaluation of the whole constraint set in absolute coordinates:
///   Phi(q, t)          holonomic residuals (m)                        paper 001, eq. (1)
///   C = [Phi_q; Psi]   velocity constraint matrix (m + h) x n         paper 001, eq. (5)
///   b = [Phi_t; 0]     so that C v + b = 0                            paper 001, eq. (4)
///   Gamma              so that C a = Gamma                            paper 001, eqs. (8)-(9)

#include <vector>

#include "loopdyn/common/types.hpp"
#include "loopdyn/kinematics/constraint_jacobian.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Buffers for constraint evaluation, sized once for a model. One per thread.
struct KinematicsWorkspace {
  explicit KinematicsWorkspace(const Model& model);

  VecX Phi;    ///< m
  ConstraintJacobian C;  ///< (m + h) x nv, by rows (constraint_jacobian.hpp)
  VecX b;      ///< m + h
  VecX Gamma;  ///< m + h
  /// dC/dt along the motion, the same pattern: sized and filled by evaluateConstraintsAndRates
  /// only (empty until then: most workspaces never need it, and a large model's takes 0.7 MB
  /// per 4 000 bodies)
  ConstraintJacobian C_rate;
  std::vector<BodyMotion> motion;  ///< per body, at the last evaluated state
};

/// Fills ws.Phi, ws.C, ws.b and ws.Gamma at state x (Gamma and b use x.v and x.t).
/// Throws InvalidArgument on wrong state sizes.
void evaluateConstraints(const Model& model, KinematicsWorkspace& ws, const State& x);

/// The same, and ws.C_rate = dC/dt as the positions move with x.v (world-fixed body velocities;
/// C does not depend on t explicitly), from the equations' rate jets (jet.hpp): the exact rate
/// the projection's continuation needs (paper 004), where it was a central difference of two
/// shifted evaluations.
void evaluateConstraintsAndRates(const Model& model, KinematicsWorkspace& ws, const State& x);

/// Residual norm of each pair's position equations (Pfaffian pairs: of C v + b), in the
/// units of the scaled constraint (lengths). Size: model.pairs().size(). Uses ws as evaluated.
std::vector<Scalar> pairResiduals(const Model& model, const KinematicsWorkspace& ws, const State& x);

}  // namespace loopdyn
