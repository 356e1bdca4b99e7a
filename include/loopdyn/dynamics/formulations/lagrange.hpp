#pragma once
/// Lagrange's equations by Gauss's principle (formulation.hpp's header; paper 001, eq. (11)), in
/// either coordinates (coordinate_equations.hpp):
///   M w' + C^T mu = F,   C w' = Gamma,
/// every row kept, redundant ones allowed: the accelerations are unique, the multipliers the
/// least (scaled) norm ones where they are not.
///   absolute  the kinetic Gram matrix G = C_r M^-1 C_r^T over the block-diagonal M^-1
///             (kinetic_gram.hpp); the reported multipliers lambda_s = (C_s^T)^+ diag(col)
///             C^T lambda by a complete orthogonal decomposition where G is not regular and well
///             conditioned (that choice decides every non-unique reaction).
///   joint     the spanning tree's joint coordinates, with the equations of the joints outside the
///             tree (cut joints, distance joints, knife edges) and of the drivers kept as
///             constraints: M_r by composite rigid bodies, Q_r by the Newton-Euler backward pass,
///             C_r = C_cut J (joint_space_equations.hpp); mu least norm on the square-root factor
///             L^-1 C_r^T (M_r = L L^T), whose conditioning is C_r's. Every row's multiplier then
///             follows from the bodies' equations F - M A = C^T lambda (A = J a_r + Jdot v_r) with
///             the least-norm choice of the absolute formulation: the tree joints' reactions,
///             which joint coordinates eliminate, are reported as in absolute coordinates -- the
///             unique ones are the same, and so are the non-unique ones (docs/uniqueness.md).
/// Dense in joint coordinates (O(n^3)): the baseline of the recursive methods (dca.hpp).

#include "loopdyn/dynamics/formulations/velocity_formulation.hpp"

namespace loopdyn {

class LagrangeFormulation final : public VelocityFormulation {
 public:
  /// relative: in joint coordinates.
  explicit LagrangeFormulation(const Model& model, bool relative = false) : VelocityFormulation(model, relative) {}
  std::string_view name() const override { return "lagrange"; }
  /// mu^T b of the rows kept (the tree joints do no work).
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;
  /// The last evaluation's multipliers of the rows kept as constraints (CoordinateEquations::rows).
  const VecX& rowsLeftMultipliers(const DynamicsWorkspace& ws) const { return dataAs<Data>(ws).mu; }

  struct Data : VelocityFormulation::Data {
    VecX mu;  ///< multipliers of the rows kept
  };

 protected:
  std::unique_ptr<FormulationData> makeData(const Model& model) const override;
  Problem solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, const Evaluation& how) const override;
};

}  // namespace loopdyn
