#include "loopdyn/dynamics/formulations/relative_partitioning.hpp"

#include <algorithm>
#include <sstream>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/analysis/projective_criterion.hpp"
#include "loopdyn/dynamics/tree_dynamics.hpp"

namespace loopdyn {

RelativePartitioningFormulation::RelativePartitioningFormulation(const Model& model, int rank, Scalar switch_ratio)
    : JointCoordinateFormulation(model),
      r_(rank - (model.nc() - static_cast<int>(jointSpaceConstraintRows(model).size()))),
      k_(tree_.nv() - r_),
      switch_ratio_(switch_ratio),
      names_(jointCoordinateNames(model, 'v')),
      equations_(model, tree_) {
  LOOPDYN_CHECK(r_ >= 0 && r_ <= tree_.nv(), "partitioning in joint coordinates: rank ", rank, " leaves ", r_,
                " for the constraints outside the spanning tree, out of range 0 .. ", tree_.nv());
  LOOPDYN_CHECK(switch_ratio >= 0 && switch_ratio < 1, "partitioning: switch ratio ", switch_ratio,
                " must be in [0, 1)");
  const ConstraintScaling scaling = constraintScaling(model);
  row_.resize(static_cast<Eigen::Index>(equations_.rows.size()));
  for (std::size_t i = 0; i < equations_.rows.size(); ++i) row_(static_cast<Eigen::Index>(i)) = scaling.row(equations_.rows[i]);
}

std::vector<int> RelativePartitioningFormulation::eliminatedEquations() const {
  std::vector<int> out;
  for (std::size_t i = 0; i < equations_.rows.size(); ++i)
    if (!std::binary_search(partition_.rows.begin(), partition_.rows.end(), static_cast<int>(i)))
      out.push_back(equations_.rows[i]);
  return out;
}

Partition RelativePartitioningFormulation::choosePartition(const Model& model, DynamicsWorkspace& ws,
                                                           const State& x) const {
  JointSpaceEquations& e = equations_;
  evaluateConstraints(model, ws.kin, x);
  e.evaluateConstraints(model, tree_, ws, x);
  MatX M_r;
  compositeRigidBodyMassMatrix(model, tree_, ws.kin.motion, e.axes, M_r);
  const ProjectiveCriterion criterion = projectiveCriterion(M_r, e.C, ConstraintScaling{row_, e.col}, r_);
  Partition p;
  p.independent = criterion.best_set;
  std::sort(p.independent.begin(), p.independent.end());
  for (int i = 0; i < tree_.nv(); ++i)
    if (!std::binary_search(p.independent.begin(), p.independent.end(), i)) p.dependent.push_back(i);
  p.quality = criterion.set_sigma_min;
  // the rows: the first r pivots of the QR of the scaled C_r^T
  e.scaledTransposed(ws.scaling, tangent_.At);
  tangent_.computeFromAt(r_);
  p.rows.assign(tangent_.K.begin(), tangent_.K.begin() + r_);
  std::sort(p.rows.begin(), p.rows.end());
  return p;
}

std::string RelativePartitioningFormulation::evaluateWith(const Partition& p, const Model& model,
                                                          DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                                                          Eigen::Ref<VecX> du, bool multipliers) const {
  JointSpaceEquations& e = equations_;
  tree_.absolutePositions(x.q_r, x.t, x);
  x.v.setZero(model.nv());
  evaluateConstraints(model, ws.kin, x);  // C and b: positions and time only
  e.evaluateConstraints(model, tree_, ws, x);
  if (x.v_r.size() != tree_.nv()) x.v_r.setZero(tree_.nv());
  if (!partitioned_.velocities(e.C, e.b, row_, e.col, p, u, x.v_r))
    return "the dependent joint velocities cannot be solved for: C_KD is singular (reciprocal condition " +
           std::to_string(partitioned_.rcond()) + ") with the independent coordinates " + coordinateSet(names_, p.independent) +
           " (at a singular configuration of the mechanism every set is singular: --method projection passes it)";
  tree_.absoluteState(x.q_r, x.v_r, x.t, x);
  e.evaluate(model, tree_, ws, x, baumgarte);
  if (!partitioned_.accelerations(e.M, e.Q, e.gamma, row_, e.col, p, ws.a_r, du))
    return "the reduced mass matrix D M_r D^T is not positive definite: the independent coordinates " +
           coordinateSet(names_, p.independent) + " are (nearly) a singular choice here (C_KD reciprocal condition " +
           std::to_string(partitioned_.rcond()) + ")";
  tree_.absoluteAccelerations(x.q_r, x.v_r, ws.a_r, ws.a);  // A = J a_r + Jdot v_r
  power_ = (e.M * ws.a_r - e.Q).dot(x.v_r);
  if (multipliers && ws.a.allFinite()) {
    // the rows of the partition carry the joint-space constraint forces (the others none), the
    // tree joints what the bodies' equations leave
    e.constraintMultipliers(ws.scaling, ws.a_r, &p.rows, mu_);
    e.treeMultipliers(model, ws, mu_);
  }
  return {};
}

std::string RelativePartitioningFormulation::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                                      Eigen::Ref<const VecX> u, Eigen::Ref<VecX> du,
                                                      const Evaluation& how) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), name(), " in joint coordinates: the state has no joint coordinates");
  if (how.project) {
    // onto Phi = 0 (absolute Newton steps keep the tree joints), then the joint coordinates there
    tree_.absolutePositions(x.q_r, x.t, x);
    x.v.setZero(model.nv());
    if (std::string problem = projectPositions(model, ws, x); !problem.empty()) return problem;
    if (std::string problem = jointState(tree_, x); !problem.empty()) return problem;
  }
  return evaluateWith(partition_, model, ws, x, u, du, how.multipliers);
}

Scalar RelativePartitioningFormulation::constraintPower(const DynamicsWorkspace&, const State&) const { return power_; }

std::string RelativePartitioningFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                     bool multipliers) const {
  const Partition p = choosePartition(model, ws, x);
  const VecX u = x.v_r(p.independent);
  VecX du(k_);
  State xs = x;
  return evaluateWith(p, model, ws, xs, u, du, multipliers);
}

std::string RelativePartitioningFormulation::start(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                   Eigen::Ref<VecX> u) {
  switches_.clear();
  if (const Scalar ratio = SingularWatch(r_ + (model.nc() - static_cast<int>(equations_.rows.size())), ratio_scale).start(model, ws, x);
      ratio < kSingularRatio) {
    std::ostringstream os;
    os << "the initial configuration is singular (|R_rr| / |R_11| = " << ratio
       << "): no set of independent coordinates exists there; start from a regular configuration or use "
          "--method projection (which finds the branch the motion takes) or lagrange";
    return os.str();
  }
  State xs = x;
  checkStateSize(model, xs);
  if (std::string problem = jointState(tree_, xs); !problem.empty()) return problem;
  partition_ = choosePartition(model, ws, xs);
  best_quality_ = partition_.quality;
  u = xs.v_r(partition_.independent);
  return {};
}

Formulation::StepOutcome RelativePartitioningFormulation::afterStep(const Model& model, DynamicsWorkspace& ws,
                                                                    const Step&, const State& x,
                                                                    Eigen::Ref<VecX> u) {
  // (the simulation's watch stops the run at a singular configuration, which partitioning cannot
  // pass: passesSingularConfigurations())
  if (switch_ratio_ == 0 || k_ == 0) return {};
  State xs = x;
  VecX du(k_);
  if (!evaluateWith(partition_, model, ws, xs, u, du, false).empty()) return {};  // the next step reports it
  const Scalar quality = currentQuality(partition_, equations_.M, partitioned_.Md());
  const Scalar condition = partitioned_.rcond();
  const std::optional<CoordinateSwitch> s = switchPartition(
      x.t, quality, condition, switch_ratio_, partition_, best_quality_, [&] { return choosePartition(model, ws, xs); },
      switches_);
  if (!s) return {};
  u = xs.v_r(partition_.independent);  // the same velocities, in the new coordinates
  return {true, switchEvent(*s, switch_ratio_, condition, names_), {}};
}

}  // namespace loopdyn
