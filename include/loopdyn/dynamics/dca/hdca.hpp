#pragma once
/// The Hamiltonian divide-and-conquer algorithm (HDCA; paper 002, issue 18): Hamilton's canonical
/// equations in the spanning tree's joint coordinates q_r and joint canonical momenta p, with the
/// loops closed by constraint impulses sigma (sigma' = lambda).
///
/// Momenta. With V = J u the bodies' velocities (Model's layout: centre-of-mass velocity and
/// angular velocity, world axes), C_cut the rows of the joints outside the tree, the distance
/// joints, knife edges and drivers, and Pi = M V + C_cut^T sigma each body's momentum with the
/// impulses it takes up (paper 002, eq. (6): P = M qdot - Phi_q^T sigma, our sign of sigma),
///   p = J^T Pi = M_r u + C_r^T sigma,  C_r = C_cut J.
/// Each joint's p is its motion subspace S_k times the subtree's momentum at the joint (paper
/// 002, "p_1 = H_1^T P_1^C"): with S_k the world spatial column of u_k (about the world origin),
///   p_k = S_k^T Pi_k,   Pi_k = sum over the subtree of [l_b; a_b + c_b x l_b]          (*)
/// (l_b, a_b: Pi_b's linear part and its moment about the centre of mass c_b).
///
/// Velocity level (paper 002, sect. 2.2, eqs. (15)-(36)). Body impulses P with J^T P = p are a
/// pair of wrenches per joint, S_k p_k (S_k orthonormal, at the joint) on its child and the
/// opposite on its parent: they cancel in every other joint's S^T. Then
///   M V = P - C^T sigma,   C V = -Phi_t
/// over all rows of C (tree joints too) is the DCA's assembly with impulses in place of forces
/// (DivideAndConquer::solveVelocities), which paper 002 notes has the coefficients of
/// Featherstone's acceleration-level assembly. Its answer satisfies every velocity constraint to
/// rounding (the paper's key property). J^T C_tree^T = 0 makes it the constrained Legendre map
/// [M_r C_r^T; C_r 0] [u; sigma_cut] = [p; -Phi_t,cut].
///
/// Momentum rates (paper 002, sect. 2.3, eq. (77)). Newton-Euler for each body, d/dt (M V) = F -
/// C^T lambda (F without the gyroscopic terms, which d/dt (M V) holds), gives d/dt Pi = F -
/// C_tree^T lambda_tree + Cdot_cut^T sigma, and differentiating (*):
///   pdot_k = Sdot_k^T Pi_k + S_k^T sum over the subtree of [f_b; n_b + c_b x f_b + cdot_b x l_b]
/// with (f_b, n_b) = F_b + (Cdot_cut^T sigma)_b; the tree joints' reactions are orthogonal to S_k
/// and drop out. Sdot_k, the rate of the world column, follows from the joint frame's motion
/// (hdca.cpp). cdot x l is paper 002's "Sdot P" term (the moving handle); Cdot_cut^T sigma its
/// "Ddot sigma" term, evaluated from the constraints' jets (constraintRateTransposed).
///
/// Where W at a node is singular (redundant loops, singular configurations) the assembly takes
/// the DCA's rank-revealing treatment (dca.hpp): V is still the unique one and sigma the DCA's
/// choice. Reactions are not a by-product of the velocity level (lambda = sigma' is not
/// computed): samples take them from the acceleration-level DCA at the same state.

#include "loopdyn/dynamics/dca/ball_momenta.hpp"
#include "loopdyn/dynamics/dca/dca.hpp"

namespace loopdyn {

/// The HDCA's evaluations over a model's spanning tree. Not thread-safe: one object per thread.
class HamiltonianDca {
 public:
  HamiltonianDca(const Model& model, const TreeKinematics& tree);
  void setThreads(int threads) { dca_.setThreads(threads); }

  /// Joint canonical momenta p = J^T Pi at the state x (q, v, q_r, v_r consistent), Pi = M V +
  /// C_cut^T sigma (sigma: every row of C, empty for zero -- the initial momenta, paper 002
  /// sect. 2.1).
  void momenta(const Model& model, const State& x, const VecX& sigma, VecX& p);
  /// Velocity level: from the positions x.q_r (x.q follows) and the momenta p, x.v and x.v_r,
  /// and sigma (size nc). Returns the number of rows the assembly took as dependent.
  int velocities(const Model& model, State& x, Eigen::Ref<const VecX> p, VecX& sigma);
  /// The bodies' motions (positions and the velocities found) of the last velocities() call.
  const std::vector<BodyMotion>& motions() const { return motion_; }
  /// pdot at x (after velocities) with the bodies' motion and applied forces F there (appliedForces:
  /// gravity, elements, loads and gyroscopic terms).
  void momentumRates(const Model& model, const State& x, const std::vector<BodyMotion>& motion, const VecX& F,
                     const VecX& sigma, Eigen::Ref<VecX> pdot);

  /// The assembly (DivideAndConquer): the acceleration level runs on it too, so that both levels
  /// share one tree and one task arena.
  const DivideAndConquer& assembly() const { return dca_; }
  DivideAndConquer& assembly() { return dca_; }

 private:
  using LinkAxes = TreeKinematics::LinkAxes;
  /// Every link's axes at the bodies' motion (positions; with `rates`, velocities and x.v_r too).
  void linkAxes(const State& x, const std::vector<BodyMotion>& motion, bool rates);
  /// sum over the subtree of each body's spatial vector (world origin), children before parents.
  void subtreeSums(const Model& model, std::vector<Vec6>& own) const;
  struct Link {
    BodyIndex child = kGround, parent = kGround;
    const JointModel* model = nullptr;
    int q_offset = 0, v_offset = 0;
  };

  /// Cut connections per task (each a few microseconds: their constraint rates). The per-body
  /// and per-joint loops run on the assembly's shares (DivideAndConquer::forEachBody).
  static constexpr int kCutGrain = 8;
  /// One cut connection's sigma^T C and sigma^T Cdot on its two bodies.
  struct CutTerms {
    Eigen::Matrix<Scalar, 12, 1> impulse, rate;
  };

  const TreeKinematics& tree_;
  DivideAndConquer dca_;
  ConstraintScaling scaling_;
  std::vector<Link> links_;                 ///< per body
  /// The joints whose parent is body b: children_[child_start_[b] .. child_start_[b + 1])
  std::vector<int> child_start_;
  std::vector<BodyIndex> children_;
  std::vector<int> cut_;                    ///< connections of dca_ outside the tree
  std::vector<LinkAxes> axes_;              ///< per body
  std::vector<BodyMotion> motion_;          ///< the bodies' motions (velocity level)
  VecX P_, V_;                              ///< body impulses and velocities
  std::vector<Vec6> momentum_, load_;       ///< per body, spatial (world origin)
  std::vector<CutTerms> cut_terms_;         ///< per entry of cut_
};

/// sigma^T Cdot_c: the rate of connection c's rows (joint `joint` or driver `driver` between the
/// bodies of `motion` m1, m2) along their motion, applied to every direction of the two bodies and
/// weighted by sigma (its rows'): 12 entries [force, moment about the centre of mass] per body
/// (2D: columns vx, vy, wz of each block used). From the rows' rate jets (kinematics/jet.hpp:
/// grad_rate, the rate of C's row along the motion); knife edges, 2D revolute and 3D spherical
/// joints in closed form (cheaper). Exact up to rounding.
Eigen::Matrix<Scalar, 12, 1> constraintRateTransposed(const Model& model, int joint, int driver, const BodyMotion& m1,
                                                      const BodyMotion& m2, Scalar t, const Scalar* sigma);

/// Forward dynamics by the HDCA (issue 18): the integrator carries the joint coordinates and the
/// joint canonical momenta (velocityStateSize = the tree's nv), a ball joint's (spherical, 3D
/// free) angular momentum in its child's axes, less what the ball joints below carry
/// (ball_momenta.hpp; issue 46): in the parents' axes a thin body's spin followed from p through
/// its world inertia R I R^T, and dopri5 took 15x dca's steps on the spatial parallelogram with
/// 1:1000 rods (4 643 against 289, 2 s at rtol 1e-8); now 252. Per right-hand side: the velocity
/// level, then pdot; ws.a and ws.lambda come from the acceleration-level DCA only where asked
/// (multipliers, drivers' power).
///
/// Singular configurations. There C_r loses rank and the velocity level is ill-posed (paper 002
/// assumes independent constraints): an error e of p along the rows turning dependent becomes an
/// impulse of size e / d at distance d, which Cdot_r^T sigma feeds back into pdot. Across a
/// passage the simulation takes one collocation step whose nodes lie at d ~ h |v| from it, so this
/// loop gains O(1) whatever the step (measured on the IFToMM double four-bar: the collocation's
/// fixed-point iteration stalls at a relative change of 0.1 .. 0.5 for steps from 17 ms down to 4
/// ms, and with sigma rebased to 0 before each step it diverges). So while the simulation
/// evaluates on the constraints (Evaluation::project, near a singular configuration) u holds the
/// joint velocities and the right-hand side is the DCA's; leaving that window, the momenta are
/// taken again with sigma = 0 there. sigma's origin is free -- only sigma' = lambda enters the
/// motion, and paper 002 starts from sigma = 0 for this reason -- so this is the same motion.
class HdcaFormulation final : public JointCoordinateFormulation {
 public:
  explicit HdcaFormulation(const Model& model, int threads = 1);

  /// A run's two levels on one assembly, sigma, the momenta, and what u holds.
  struct Data : VelocityFormulation::Data {
    Data(const Model& model, const TreeKinematics& tree) : hdca(model, tree) {}
    HamiltonianDca hdca;
    VecX sigma, p, pdot;
    bool joint_velocities = false;  ///< u holds the joint velocities (near a singular configuration)
  };
  std::string_view name() const override { return "hdca"; }

  /// A body turned about every axis by its tree joint (spherical, floating) and far easier to
  /// turn about one axis than another (principal inertias below kThinBodyRatio, 1.5e-5, apart):
  /// its spin follows from a momentum through 1 / I_min, and the run takes many more steps than
  /// dca's (issue 46; measured in hdca.cpp).
  std::vector<RunWarning> costWarnings(const Model& model) const override;
  /// u = p of the assembled state x (sigma = 0).
  Problem begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const override;
  /// u = p: fills x.v_r (the joint velocities) and x.v, ws.kin.motion and ws.F, du = pdot; with
  /// how.project the positions are first moved onto the constraints (the velocities then follow
  /// from p there); with how.multipliers, or for a model with drivers, ws.kin (the dense
  /// constraint evaluation), ws.a and ws.lambda -- otherwise ws.a is zero (NaN where something is
  /// not finite) and ws.kin is not evaluated: O(n) per right-hand side.
  Problem evaluate(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                       Eigen::Ref<VecX> du, const Evaluation& how) const override;
  /// (u holds momenta (or, near a singular configuration, joint velocities): the whole evaluation)
  Problem velocities(const Model& model, DynamicsWorkspace& ws, State& x, Eigen::Ref<const VecX> u,
                         Eigen::Ref<VecX> du) const override {
    return Formulation::velocities(model, ws, x, u, du);
  }
  /// The momenta stay what they are when the simulation projects the positions (the velocity
  /// level then satisfies the constraints at the new positions); joint velocities (near a
  /// singular configuration) are projected as by every joint-coordinate formulation.
  StepOutcome afterStep(const Model& model, DynamicsWorkspace& ws, const Step& step, const State& x,
                        Eigen::Ref<VecX> u) const override;
  /// Near a singular configuration u holds the joint velocities (the DCA's right-hand side);
  /// away from it the momenta (sigma = 0 where it switches back). See the class comment.
  Problem evaluationModeChanged(const Model& model, DynamicsWorkspace& ws, const State& x, bool project,
                                Eigen::Ref<VecX> u) const override;
  /// The momenta (their errors weighed by the integrator's own formula), or near a singular
  /// configuration the joint velocities.
  bool carriesJointVelocities(const FormulationData& data) const override {
    return dataAs<Data>(data).joint_velocities;
  }
  /// Only drivers do work (lambda^T b from the acceleration level); 0 without drivers.
  Scalar constraintPower(const DynamicsWorkspace& ws, const State& x) const override;

 protected:
  std::unique_ptr<FormulationData> makeData(const Model& model) const override;
  Problem solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, const Evaluation& how) const override;

 private:
  /// The acceleration level (ws.a, ws.lambda) on the run's assembly.
  void accelerations(const Model& model, Data& d, DynamicsWorkspace& ws, const State& x) const;
  BallMomenta balls_;  ///< what the integrator carries of the ball joints' momenta
  int threads_;
  bool driven_ = false;
};

}  // namespace loopdyn
