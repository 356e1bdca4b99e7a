#pragma once
/// What the formulations share whose integrator carries the velocity coordinates themselves,
/// u = w (coordinate_equations.hpp): lagrange and elimination in either coordinates, the DCA and
/// the HDCA in joint coordinates.
///
/// In absolute coordinates u = v and the simulation projects the velocities itself
/// (carriesVelocities). In joint coordinates (issue 15) the integrator carries the spanning tree's
/// joint coordinates q_r and velocities u = v_r, so the tree joints hold exactly; the absolute
/// state follows from them by the tree pass. Projections onto the remaining constraints are done
/// on the absolute state (formulation.hpp: least change in the kinetic metric, which for
/// velocities that satisfy the tree joints is the least change in M_r = J^T M J) and mapped back
/// to joint coordinates, exact because the tree joints then hold.
///
/// A subclass supplies solveAt: the dynamics at a consistent state.

#include <memory>
#include <string>

#include "loopdyn/dynamics/coordinate_equations.hpp"
#include "loopdyn/dynamics/formulation.hpp"

namespace loopdyn {

class VelocityFormulation : public Formulation {
 public:
  /// relative: in joint coordinates.
  VelocityFormulation(const Model& model, bool relative) : layout_(coordinateLayout(model, relative)) {}

  /// A run's data: the equations over the carried coordinates, with their buffers.
  struct Data : FormulationData {
    std::unique_ptr<CoordinateEquations> equations;
  };

  std::unique_ptr<Coordinates> coordinates(const Model& model) const override {
    return carriedCoordinates(model, layout_.relative);
  }
  /// At an absolute state x (in joint coordinates its joint coordinates derived from it), with the
  /// multipliers.
  Problem solve(const Model& model, DynamicsWorkspace& ws, const State& x) const override;
  int velocityStateSize(const Model&) const override { return layout_.size; }
  bool carriesVelocities() const override { return !layout_.relative; }
  bool carriesJointVelocities(const FormulationData&) const override { return layout_.relative; }
  /// x holds the carried positions; fills w = u in x, x's body velocities, and through solveAt
  /// ws.a (the bodies' accelerations), du = w', ws.kin, ws.F.
  Problem evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                   Eigen::Ref<VecX> du, const Evaluation& how) const override;
  /// w = u in x and x's body velocities (the tree pass in joint coordinates), without the
  /// dynamics. A subclass whose u is not w (the HDCA's momenta) overrides this back to the whole
  /// evaluation.
  Problem velocities(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                     Eigen::Ref<VecX> du) const override;
  /// After the simulation projected the positions, in joint coordinates: the joint velocities
  /// projected onto the constraints there (in absolute coordinates the simulation projects v).
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) const override;

  const CoordinateLayout& layout() const { return layout_; }
  /// The equations in the run data ws holds (made there when it holds none of this formulation's).
  CoordinateEquations& equations(const Model& model, DynamicsWorkspace& ws) const {
    return *dataAs<Data>(model, ws).equations;
  }
  const CoordinateEquations& equations(const DynamicsWorkspace& ws) const { return *dataAs<Data>(ws).equations; }

 protected:
  /// u = w of the assembled state x.
  Problem begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const override;
  std::unique_ptr<FormulationData> makeData(const Model& model) const override { return makeDataAs<Data>(model); }
  /// A run's data of type D (derived from Data), its equations made.
  template <class D>
  std::unique_ptr<D> makeDataAs(const Model& model) const {
    auto data = std::make_unique<D>();
    data->equations = coordinateEquations(model, layout_.relative);
    return data;
  }
  /// The dynamics at x (its carried and absolute positions and velocities consistent): ws.kin
  /// evaluated at x, ws.F, ws.F_nc, ws.a and w' (CoordinateEquations::accelerations), and
  /// ws.lambda for every row of C when how.multipliers. how.project: x was just projected onto the
  /// constraints (projectState), which leaves ws.kin, ws.inverse_mass and ws.gram_all at x.
  /// Returns "" or what went wrong.
  virtual Problem solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, const Evaluation& how) const = 0;

  CoordinateLayout layout_;
};

}  // namespace loopdyn
