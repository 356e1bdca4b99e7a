#include "loopdyn/dynamics/coordinate_equations.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include "loopdyn/analysis/constraint_rank.hpp"

#include "loopdyn/analysis/projective_criterion.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/tree_dynamics.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

namespace {

/// Gauss's principle at the evaluated state (kinetic_gram.hpp) on the rows `gram` is over (factorised
/// at ws.kin's configuration): ws.a, and in ws.lambda the multipliers of those rows (one solution
/// of G lambda_s = r, not the least-norm one; zero on the other rows).
void gaussAccelerations(const Model& model, DynamicsWorkspace& ws, const State& x, const Baumgarte& baumgarte,
                        const KineticGram& gram) {
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  stabilizedGamma(model, ws, x, baumgarte);
  // lambda_s = G^+ (C_r M^-1 F - Gamma_r); a = M^-1 F - M^-1 C_r^T lambda_s
  const std::vector<int>& rows = gram.selectedRows();
  ws.a = ws.F;
  ws.inverse_mass.apply(model, ws.a);
  gram.rowsTimes(ws.a, ws.w);
  for (std::size_t k = 0; k < rows.size(); ++k)
    ws.w(static_cast<Eigen::Index>(k)) -= ws.scaling.row(rows[k]) * ws.Gamma(rows[k]);
  gram.solveInPlace(ws.w);
  gram.subtractInverseMassRowsTransposedTimes(ws.w, ws.a);
  ws.lambda.setZero(model.nc());
  for (std::size_t k = 0; k < rows.size(); ++k)
    ws.lambda(rows[k]) = ws.scaling.row(rows[k]) * ws.w(static_cast<Eigen::Index>(k));
}

/// Where G's last pivot is at least this fraction of its first, the multipliers from its LDL^T are
/// unique and accurate (relative error near rounding / 1e-6 = 2e-10, while the tests compare
/// reactions to 1e-8): no separate least-norm solve. Below it (next to a singular configuration,
/// or redundant rows) the complete orthogonal decomposition of C_s^T, whose error grows with
/// cond(C_s) rather than cond(G) = cond(C_s)^2, decides.
constexpr Scalar kUniqueGramRatio = 1e-6;

/// Constraints, inverse mass and the Gram matrix of all rows at x.
void factorizeAt(const Model& model, DynamicsWorkspace& ws, const State& x) {
  evaluateConstraints(model, ws.kin, x);
  ws.inverse_mass.update(model, ws.kin.motion);
  ws.gram_all.compute(model, ws.kin, ws.scaling, ws.inverse_mass, model.nc());
}

/// The rows a Gram matrix is over are independent where it has full rank and its pivot ratio is
/// above kDependentPivot squared (kept_rows.hpp's test on Cholesky's diagonal, on LDL^T's pivots).
bool independentRows(const KineticGram& gram) {
  return gram.rank() == gram.rows() && gram.pivotRatio() > kDependentPivot * kDependentPivot;
}

}  // namespace

Problem jointState(const TreeKinematics& tree, State& x) {
  try {
    const VecX reference = x.q_r;
    tree.relativeState(x, x.q_r, x.v_r, reference.size() == tree.nq() ? &reference : nullptr);
  } catch (const InvalidArgument& e) {
    Problem problem = Problem::of(Problem::Kind::NoJointCoordinates);
    problem.detail = e.what();
    return problem;
  }
  return {};
}

CoordinateLayout coordinateLayout(const Model& model, bool relative) {
  CoordinateLayout layout;
  layout.relative = relative;
  if (relative) {
    layout.size = TreeKinematics(model).nv();
    layout.rows = jointSpaceConstraintRows(model);
  } else {
    layout.size = model.nv();
    for (int row = 0; row < model.nc(); ++row) layout.rows.push_back(row);
  }
  const ConstraintScaling& scaling = model.scaling();
  layout.row.resize(static_cast<Eigen::Index>(layout.rows.size()));
  for (std::size_t i = 0; i < layout.rows.size(); ++i)
    layout.row(static_cast<Eigen::Index>(i)) = scaling.row(layout.rows[i]);
  return layout;
}

std::unique_ptr<Coordinates> carriedCoordinates(const Model& model, bool relative) {
  if (relative) return std::make_unique<JointCoordinates>(model);
  return std::make_unique<AbsoluteCoordinates>(model);
}

std::vector<std::string> velocityNames(const Model& model, bool relative) {
  return relative ? jointCoordinateNames(model, 'v') : velocityCoordinateNames(model);
}

void CoordinateEquations::evaluateConstraints(const Model& model, DynamicsWorkspace& ws, const State& x) {
  loopdyn::evaluateConstraints(model, ws.kin, x);
  constraintsFromKinematics(model, ws, x);
}

// ---- absolute coordinates ----

BodyCoordinateEquations::BodyCoordinateEquations(const Model& model)
    : CoordinateEquations(coordinateLayout(model, false)) {}

Problem BodyCoordinateEquations::projectPositions(const Model& model, DynamicsWorkspace& ws, State& x) const {
  return loopdyn::projectPositions(model, ws, x);
}

void BodyCoordinateEquations::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                       const Baumgarte& baumgarte, bool rates) {
  if (rates)
    evaluateConstraintsAndRates(model, ws.kin, x);
  else
    loopdyn::evaluateConstraints(model, ws.kin, x);
  loopdyn::massMatrix(model, ws.kin.motion, ws.M);
  appliedForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
  stabilizedGamma(model, ws, x, baumgarte);
}

void BodyCoordinateEquations::rateTimes(const Model&, DynamicsWorkspace& ws, const State&, const MatX& TS,
                                        MatX& AdotT) {
  // A' T~ = diag(row) C' T~, C' of the evaluation
  LOOPDYN_ASSERT(ws.kin.C_rate.rows() == ws.kin.C.rows());  // (evaluated with rates)
  AdotT.resize(ws.kin.C_rate.rows(), TS.cols());
  for (Eigen::Index j = 0; j < AdotT.cols(); ++j)
    for (Eigen::Index i = 0; i < AdotT.rows(); ++i) AdotT(i, j) = row()(i) * ws.kin.C_rate.rowTimes(i, TS.col(j));
}

void BodyCoordinateEquations::leastNormMultipliers(const Model& model, DynamicsWorkspace& ws) {
  force_.noalias() = ws.M * ws.a;
  force_ = ws.F - force_;
  loopdyn::leastNormMultipliers(model, ws, force_);
}

Problem BodyCoordinateEquations::gaussAllRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                  const RunSettings& settings, bool factorized, VecX& mu) {
  if (!factorized) factorizeAt(model, ws, x);
  gaussAccelerations(model, ws, x, settings.baumgarte, ws.gram_all);
  mu = ws.lambda;
  return {};
}

void BodyCoordinateEquations::gaussMultipliers(const Model& model, DynamicsWorkspace& ws) {
  // (where G is regular and well conditioned the solution is unique, and Gauss's is it)
  if (ws.gram_all.rank() == ws.gram_all.rows() && ws.gram_all.pivotRatio() >= kUniqueGramRatio) return;
  // C^T lambda = C_r^T lambda_s, the same for every solution: its least-norm representative
  ws.r.setZero(model.nv());
  ws.kin.C.addTransposedTimes(ws.lambda, ws.r);
  loopdyn::leastNormMultipliers(model, ws, ws.r);
}

Problem BodyCoordinateEquations::prepareKeptRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                     const Baumgarte&) {
  loopdyn::evaluateConstraints(model, ws.kin, x);
  ws.inverse_mass.update(model, ws.kin.motion);
  return {};
}

bool BodyCoordinateEquations::gaussOnRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                                          const Baumgarte& baumgarte, const std::vector<int>& kept, VecX& mu) {
  // G_K = C_K M^-1 C_K^T, where the rows are independent (kinetic_gram.hpp)
  gram_kept_.compute(model, ws.kin, ws.scaling, ws.inverse_mass, kept);
  if (!independentRows(gram_kept_)) return false;
  gaussAccelerations(model, ws, x, baumgarte, gram_kept_);
  mu = ws.lambda;
  return true;
}

const MatX& BodyCoordinateEquations::metricScaledTransposed(const Model& model, DynamicsWorkspace& ws) {
  loopdyn::massMatrix(model, ws.kin.motion, ws.M);
  const Eigen::LLT<MatX> mass_llt(ws.M);
  At_ = ws.kin.C.dense().transpose() * ws.scaling.row.asDiagonal();
  if (At_.size() > 0) mass_llt.matrixL().solveInPlace(At_);  // (empty: no constraint rows)
  return At_;
}

void BodyCoordinateEquations::massMatrix(const Model& model, DynamicsWorkspace& ws, MatX& M) const {
  loopdyn::massMatrix(model, ws.kin.motion, M);
}

void BodyCoordinateEquations::multipliers(const Model&, DynamicsWorkspace& ws, const VecX& mu) const {
  ws.lambda = mu;
}

void BodyCoordinateEquations::scaledTransposed(const DynamicsWorkspace& ws, MatX& At) const {
  loopdyn::scaledTransposed(ws.scaling, ws.kin.C.dense(), At);
}

// ---- relative (joint) coordinates ----

JointCoordinateEquations::JointCoordinateEquations(const Model& model)
    : CoordinateEquations(coordinateLayout(model, true)), tree_(model), equations_(model, tree_), kin_rates_(model) {}

Problem JointCoordinateEquations::carry(State& x) const { return jointState(tree_, x); }

void JointCoordinateEquations::toPositions(const Model& model, State& x) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), "joint coordinates: the state has none");
  tree_.absolutePositions(x.q_r, x.t, x);
  x.v.setZero(model.nv());
  if (x.v_r.size() != tree_.nv()) x.v_r.setZero(tree_.nv());
}

void JointCoordinateEquations::bodyVelocities(State& x) const {
  LOOPDYN_CHECK(x.q_r.size() == tree_.nq(), "joint coordinates: the state has none");
  tree_.absoluteState(x.q_r, x.v_r, x.t, x);
}

Problem JointCoordinateEquations::projectPositions(const Model& model, DynamicsWorkspace& ws, State& x) const {
  // onto Phi = 0 (absolute Newton steps keep the tree joints), then the joint coordinates there
  toPositions(model, x);
  if (Problem problem = loopdyn::projectPositions(model, ws, x); !problem.empty()) return problem;
  return jointState(tree_, x);
}

void JointCoordinateEquations::constraintsFromKinematics(const Model& model, DynamicsWorkspace& ws, const State& x) {
  equations_.evaluateConstraints(model, tree_, ws, x);
}

void JointCoordinateEquations::evaluate(const Model& model, DynamicsWorkspace& ws, State& x,
                                        const Baumgarte& baumgarte, bool) {
  bodyVelocities(x);
  equations_.evaluate(model, tree_, ws, x, baumgarte);
}

void JointCoordinateEquations::rateTimes(const Model& model, DynamicsWorkspace& ws, const State& x, const MatX& TS,
                                         MatX& AdotT) {
  // A' T~ = diag(row) (C' J + C J') T~ along the motion: C' from the equations' rate jets, J' from
  // the tree joints' axes and their rates -- exact, where it was a central difference of two
  // shifted evaluations
  const auto k = static_cast<Eigen::Index>(rows().size());
  evaluateConstraintsAndRates(model, kin_rates_, x);
  tree_.jacobianTimes(x.q_r, x.v_r, kin_rates_.motion, TS, JT_, JdotT_, jacobian_scratch_);
  AdotT.resize(k, TS.cols());
  for (Eigen::Index i = 0; i < k; ++i) {
    const int row = rows()[static_cast<std::size_t>(i)];
    AdotT.row(i).setZero();
    kin_rates_.C_rate.addRowTimes(row, JT_, AdotT.row(i));
    kin_rates_.C.addRowTimes(row, JdotT_, AdotT.row(i));
    AdotT.row(i) *= ws.scaling.row(row);
  }
}

void JointCoordinateEquations::leastNormMultipliers(const Model& model, DynamicsWorkspace& ws) {
  // the joint-space constraint forces on the rows kept (least norm where redundant), the tree
  // joints what the bodies' equations leave
  equations_.constraintMultipliers(ws.scaling, ws.a_r, nullptr, mu_);
  equations_.treeMultipliers(model, ws, mu_);
}

MatX JointCoordinateEquations::basisFromBodies(const DynamicsWorkspace& ws, const State& x, const MatX& T) const {
  // the joint velocities of V = diag(col) T by least squares, made orthonormal (the closest
  // basis: its polar factor)
  if (T.cols() == 0) return MatX(tree_.nv(), 0);  // (Eigen's products of empty matrices are undefined)
  const MatX V = ws.scaling.col.asDiagonal() * T;
  MatX J;  // (dense, once at a singular start)
  tree_.jacobian(x.q_r, J);
  const MatX basis = equations_.col.cwiseInverse().asDiagonal() * J.colPivHouseholderQr().solve(V);
  const Eigen::SelfAdjointEigenSolver<MatX> gram(basis.transpose() * basis);
  return basis * gram.operatorInverseSqrt();
}

Problem JointCoordinateEquations::gaussAllRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                   const RunSettings& settings, bool, VecX& mu) {
  JointSpaceEquations& e = equations_;
  e.evaluate(model, tree_, ws, x, settings.baumgarte);
  // the tree: M_r a = Q_r without constraints (tree_dynamics.hpp)
  mass_llt_.compute(e.M);
  if (mass_llt_.info() != Eigen::Success) return Problem::of(Problem::Kind::TreeMassNotPositiveDefinite);
  ws.a_r = mass_llt_.solve(e.Q);
  const auto k = static_cast<Eigen::Index>(e.rows.size());
  mu.setZero(k);
  if (k > 0) {
    // a = M_r^-1 (Q_r - C_r^T mu): (C_r M_r^-1 C_r^T) mu = C_r M_r^-1 Q_r - gamma_r, least norm.
    // On the square-root factor B = L^-1 C_r^T (M_r = L L^T), B^T B = C_r M_r^-1 C_r^T and
    // mu = B^+ (B^+)^T g: the rank is decided on B, whose conditioning is C_r's, not its square
    // (a regular 27-body ladder whose |R_rr| / |R_11| is 2.2e-5 has a Gram matrix at 5e-10, below
    // kRankThreshold: a row was dropped as redundant and the velocities drifted off the
    // constraints, 0.09 m in 2 s).
    B_ = e.C.transpose();
    mass_llt_.matrixL().solveInPlace(B_);
    // (the tree's rows are independent)
    decideRank(settings.generic_rank < 0 ? -1 : settings.generic_rank - (model.nc() - static_cast<int>(k)));
    const VecX z = cod_.transpose().solve(VecX(e.C * ws.a_r - e.gamma));
    mu = cod_.solve(z);
    ws.a_r.noalias() -= mass_llt_.matrixU().solve(B_ * mu);
  }
  tree_.absoluteAccelerations(x.q_r, x.v_r, ws.a_r, ws.a);  // A = J a_r + Jdot v_r
  return {};
}

void JointCoordinateEquations::decideRank(int ceiling) {
  cod_.setThreshold(kRankThreshold);
  cod_.compute(B_);
  if (ceiling >= 0 && cod_.rank() > ceiling) {
    // Above the generic rank: off the constraints of a redundant mechanism, a singular value that
    // is zero on them grows with the drift, and at kRankThreshold alone the rank flips with it
    // (the Bricard mechanism at rtol 1e-10: 16 490 steps, 10 146 rejected, where absolute
    // coordinates take 383). The ceiling's threshold lies between the pivots it keeps and drops.
    pivots_ = B_.colPivHouseholderQr().matrixR().diagonal().cwiseAbs();
    const Scalar kept = ceiling > 0 ? pivots_(ceiling - 1) : pivots_(0), dropped = pivots_(ceiling);
    cod_.setThreshold(ceiling > 0 ? std::sqrt(kept * dropped) / pivots_(0) : Scalar{1});
    cod_.compute(B_);
  }
}

Problem JointCoordinateEquations::prepareKeptRows(const Model& model, DynamicsWorkspace& ws, const State& x,
                                                      const Baumgarte& baumgarte) {
  JointSpaceEquations& e = equations_;
  e.evaluate(model, tree_, ws, x, baumgarte);
  mass_llt_.compute(e.M);
  if (mass_llt_.info() != Eigen::Success) return Problem::of(Problem::Kind::TreeMassNotPositiveDefinite);
  // At = L_r^-1 C_r^T diag(row), z0 = L_r^-1 Q_r (kept_rows.hpp)
  const auto k = static_cast<Eigen::Index>(e.rows.size());
  At_.resize(e.C.cols(), k);
  scaled_gamma_.resize(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    At_.col(i) = row()(i) * e.C.row(i).transpose();
    scaled_gamma_(i) = row()(i) * e.gamma(i);
  }
  if (k > 0) mass_llt_.matrixL().solveInPlace(At_);
  z0_ = mass_llt_.matrixL().solve(e.Q);
  return {};
}

bool JointCoordinateEquations::gaussOnRows(const Model&, DynamicsWorkspace& ws, const State& x, const Baumgarte&,
                                           const std::vector<int>& kept, VecX& mu) {
  if (!solver_.solve(At_, z0_, scaled_gamma_, kept)) return false;
  ws.a_r = mass_llt_.matrixU().solve(solver_.z);
  mu.setZero(static_cast<Eigen::Index>(rows().size()));
  for (std::size_t i = 0; i < kept.size(); ++i) mu(kept[i]) = row()(kept[i]) * solver_.w(static_cast<Eigen::Index>(i));
  tree_.absoluteAccelerations(x.q_r, x.v_r, ws.a_r, ws.a);  // A = J a_r + Jdot v_r
  return true;
}

void JointCoordinateEquations::massMatrix(const Model& model, DynamicsWorkspace& ws, MatX& M) const {
  compositeRigidBodyMassMatrix(model, tree_, ws.kin.motion, equations_.axes, M);
}

void JointCoordinateEquations::bodyAccelerations(const State& x, DynamicsWorkspace& ws) const {
  tree_.absoluteAccelerations(x.q_r, x.v_r, ws.a_r, ws.a);  // A = J a_r + Jdot v_r
}

void JointCoordinateEquations::multipliers(const Model& model, DynamicsWorkspace& ws, const VecX& mu) const {
  equations_.treeMultipliers(model, ws, mu);
}

void JointCoordinateEquations::scaledTransposed(const DynamicsWorkspace& ws, MatX& At) const {
  equations_.scaledTransposed(ws.scaling, At);
}

std::unique_ptr<CoordinateEquations> coordinateEquations(const Model& model, bool relative) {
  if (relative) return std::make_unique<JointCoordinateEquations>(model);
  return std::make_unique<BodyCoordinateEquations>(model);
}

}  // namespace loopdyn
