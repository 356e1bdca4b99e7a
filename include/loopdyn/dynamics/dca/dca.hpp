#pragma once
/// Featherstone's divide-and-conquer algorithm (DCA) over the model's binary assembly tree
/// (issue 16; paper 000, sect. 2, eqs. (1)-(7) and Fig. 1; Featherstone 1999), with every
/// connection -- tree joints, cut joints, distance joints, knife edges, drivers -- written as its
/// constraint rows, as paper 000 writes the multijoint connection (eq. (22)).
///
/// Each node of the assembly tree (a body, or the subassembly of its two children) has handles:
/// its bodies on which a connection assembled higher up (or to ground) acts. Its equation of motion
/// (paper 000, eq. (1)) relates the accelerations a_h of its handle bodies (centre of mass and
/// angular, world axes: Model's velocity layout) to the wrenches f_k applied there:
///   a_h = sum_k Phi_hk f_k + b_h.
/// A body: Phi = M_b^-1, b = M_b^-1 F_b (applied forces, gravity and gyroscopic terms included).
/// Assembling node N from children X and Y over the connections L joining them (main pass, leaves
/// to root): a connection c's force on its body e is J_ce^T lambda_c and its rows require
/// sum_e J_ce a_e = Gamma_c (J: the scaled rows of C on that body). With G_h = sum_(c,e) Phi_he
/// J_ce^T over the endpoints e in h's child,
///   W lambda + beta_0 + sum_k G_k^T f_k = 0,   W = sum J Phi J^T,   beta_0 = sum_e J_e b_e - Gamma,
///   Phi^N_hk = Phi_hk [same child] - G_h W^+ G_k^T,   b^N_h = b_h - G_h W^+ beta_0       (eq. (7))
/// (the elimination of the connection forces). The complete assembly is then joined to ground
/// over the connections to ground (paper 000, Fig. 5). Back-substitution (root to leaves): lambda
/// = -W^+ (beta_0 + sum_k G_k^T f_k) from the forces on the node's handles, which with J^T lambda
/// give the children's; at a body, a = M_b^-1 (F_b + f).
///
/// W is singular where the connections assembled at a node are redundant (a multijoint connection
/// of an overconstrained mechanism) or at a singular configuration: W^+ is the pivoted LDL^T with
/// zero pivots below kGramPivotThreshold (pivoted_ldlt.hpp). The accelerations are then still the
/// unique ones, and so are the unique reactions; the non-unique ones are the DCA's choice: the
/// multipliers of the rows taken as dependent at the node where the redundancy closes are zero.
///
/// The node kernels are in src/dynamics/dca/dca_node_kernels.hpp: a fixed-size one for the node of
/// one connection whose W is clearly regular (chains, trees, ladders), the general one otherwise.
///
/// Cost: per node, products of size (handles x 6) x (rows assembled there): O(n) for chains and
/// ladders whose nodes keep a bounded number of handles (docs/performance.md).

#include <array>
#include <atomic>
#include <memory>
#include <span>
#include <vector>


#include "loopdyn/common/function_ref.hpp"
#include "loopdyn/dynamics/formulations/joint_coordinate_formulation.hpp"
#include "loopdyn/linalg/pivoted_ldlt.hpp"

namespace loopdyn {

class DivideAndConquer {
 public:
  /// Where connections to ground are assembled. AboveTheirBody (the default, for speed): right
  /// above their body's leaf, so that no node keeps far-apart ground pivots as handles.
  /// AtCompleteAssembly: all of them at one node above the root -- paper 000's multijoint
  /// connection between the complete assembly and ground (Fig. 5), which its uniqueness analysis
  /// (dca_uniqueness.hpp) studies through G = T^T Phi_11 T (eq. (22)).
  enum class GroundConnections { AboveTheirBody, AtCompleteAssembly };

  /// Where the nodes' Phi and b live. A node's are read by its parent's assembly alone, so those
  /// of the nodes inside a subtree that one thread assembles in order (Node::transient) can live
  /// on that thread's stack until then (OnStack): a third of the numbers then never leave the
  /// caches, which pays once the assembly outgrows them (the 4096-body chain's call 15 % faster)
  /// and costs a copy a node below that (the 256-loop ladder 7 % slower). Kept: every node's in
  /// storage, readable after a solve (the uniqueness analysis reads them, dca_uniqueness.hpp).
  /// Automatic: OnStack where Kept would hold more than kStackedPhiBytes of them.
  enum class PhiStorage { Automatic, Kept, OnStack };
  static constexpr std::size_t kStackedPhiBytes = std::size_t{4} << 20;

  explicit DivideAndConquer(const Model& model, GroundConnections ground = GroundConnections::AboveTheirBody,
                            PhiStorage phi = PhiStorage::Automatic);
  /// (its nodes view its own buffer: not copied)
  DivideAndConquer(const DivideAndConquer&) = delete;
  DivideAndConquer& operator=(const DivideAndConquer&) = delete;

  /// Body accelerations A (Model's velocity layout) and every row's multiplier lambda (the sign of
  /// formulation.hpp: M A = F - C^T lambda) at the bodies' motion, applied forces F (size nv) and
  /// time t. gamma_shift (size nc, may be empty) is added to Gamma (Baumgarte's terms). Returns the
  /// number of rows taken as dependent over all nodes. Not thread-safe: one object per thread.
  int solve(const Model& model, const std::vector<BodyMotion>& motion, const VecX& F, Scalar t,
            const ConstraintScaling& scaling, const VecX& gamma_shift, VecX& A, VecX& lambda);

  /// The same assembly one level down (paper 002, eqs. (15)-(36); the HDCA, hdca.hpp): body
  /// velocities V and constraint impulses sigma from body impulses P (size nv) at the bodies'
  /// positions, M V = P - C^T sigma with C V = -Phi_t. The bodies' velocities in `motion` do not
  /// matter (Phi_t is the jets' dot less their part along them). Returns as solve.
  int solveVelocities(const Model& model, const std::vector<BodyMotion>& motion, const VecX& P, Scalar t,
                      const ConstraintScaling& scaling, VecX& V, VecX& sigma);

  /// Threads of the main pass and the back-substitution (issue 18): 1 (the default) runs them in
  /// order; more runs them in an oneTBB arena of that many threads, each thread on a share of the
  /// assembly tree fixed when the threads are set -- the second of paper 002's two strategies
  /// (sect. 3.4: the tree "divided into well-balanced subtrees to equally spread the
  /// computational load over each thread"): the subtrees of fewer than kParallelBodies bodies
  /// are dealt out in pass order, by their
  /// bodies, to contiguous shares, one a thread; a node whose subtree lies in one share is that
  /// share's, and the few whose subtrees straddle two (the top of the tree) run after them in order
  /// (main pass) or before them (back-substitution). Every node runs the same kernel on the same
  /// numbers whichever thread runs it, so the results are identical to the last bit for any
  /// thread count. A share keeps its thread from pass to pass and call to call (forEachBody), so
  /// that what a thread wrote is read by the same thread, from its own core's caches.
  void setThreads(int threads);

  /// Rank ceilings for a run (issue 45): `dependent` rows are dependent at the mechanism's regular
  /// configurations (model.nc() less the generic rank; -1: unknown, no ceilings). The first solve
  /// that takes exactly that many as dependent records every node's rank as its ceiling, and the
  /// later ones take no more rows as independent at a node than that. Along a regular motion the
  /// nodes' ranks do not change (a node's rank falling is a singular configuration of the
  /// mechanism, and rising a lock-up, which the simulation's watch reports once |R_rr| / |R_11|
  /// reaches 1e-3). Without the ceiling a node took the locking row as independent from 1e-5 on:
  /// the HDCA's velocities, solved from its momenta, then jumped with the rank, and it crawled
  /// to the lock-up (the car with inconsistent steering at rtol 1e-12 with dopri5: 24 791 steps
  /// where dca takes 245 and lagrange 62; dop853 ended "step size too small" before it).
  void followGenericRank(int dependent);
  int threads() const { return threads_; }
  /// Whether nodes of one connection take the fixed-size kernel (the default) or, as every other
  /// node, the general one (for the test that they agree, and for the benchmark's comparison).
  void setSingleConnectionKernels(bool on) { single_kernels_ = on; }
  /// Subtrees with fewer bodies are never split between threads: a share of a tree is a few
  /// microseconds of bookkeeping, a node a few hundred nanoseconds.
  static constexpr int kParallelBodies = 32;

  /// A thread's share of the assembly tree (setThreads): its subtrees, each a run of order()
  /// (first, last), their bodies in pass order, and the force elements acting on them (indices
  /// into Model::forces(), ascending).
  struct Share {
    int index = 0;
    std::vector<std::array<int, 2>> subtrees;
    std::vector<BodyIndex> bodies;
    std::vector<int> forces;
  };
  const std::vector<Share>& shares() const { return shares_; }
  /// The nodes whose subtrees straddle shares, in pass order.
  const std::vector<int>& topNodes() const { return top_; }
  /// Each body's share.
  const std::vector<int>& bodyShares() const { return body_share_; }

  /// f(share) for every share, each on its own thread (in order on one thread).
  void forEachShare(FunctionRef<void(const Share&)> f);

  /// forceElementForces (mass_and_forces.hpp) on the shares' threads, each adding the elements'
  /// wrenches on its own bodies: the same numbers to the last bit (a tenth of a long chain's call
  /// with an effort at every joint, which would otherwise cap two threads near 1.85x).
  void forceElementForces(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, VecX& F, VecX& F_nc);

  /// f() inside this object's task arena (directly with one thread), so that the passes and
  /// loops it makes share one entry into the arena (each entry wakes the workers).
  void execute(FunctionRef<void()> f);

  /// body(b) for every body b, each on the thread whose share of the assembly tree holds its leaf
  /// (in order on one thread): for the per-body loops beside the passes (the bodies' motions and
  /// loads, the joint accelerations, the HDCA's momentum pass), which then write and read a body's
  /// numbers on the thread that the passes read and write them on.
  template <class Body>
  void forEachBody(const Body& body) {
    if (!parallel_) {
      for (BodyIndex b = 0; b < bodies_; ++b) body(b);
      return;
    }
    forEachShare([&](const Share& share) {
      for (const BodyIndex b : share.bodies) body(b);
    });
  }

  /// body(k) for k = 0 .. count - 1, independent items, shared out among this object's threads in
  /// chunks of at least `grain` (in order on one thread, or when there are fewer than 2 chunks).
  /// For loops over other items than bodies (the HDCA's cut joints).
  template <class Body>
  void parallelFor(int count, int grain, const Body& body) {
    if (!parallel_ || count < 2 * grain) {
      for (int k = 0; k < count; ++k) body(k);
      return;
    }
    forEachChunk(count, grain, [&](int begin, int end) {
      for (int k = begin; k < end; ++k) body(k);
    });
  }

 /// The assembly as built (read by the uniqueness analysis, dca_uniqueness.hpp).
  struct Connection {
    int joint = -1, driver = -1;  ///< what it is (index into Model::joints() or drivers())
    int row = 0, rows = 0;        ///< its rows of C
    std::array<BodyIndex, 2> bodies{kGround, kGround};
    int node = -1;                ///< where it is assembled
    /// scaled rows on its two bodies (2D: the first 3 columns of each 6 used), and Gamma
    Eigen::Matrix<Scalar, 6, 12> J = Eigen::Matrix<Scalar, 6, 12>::Zero();
    Eigen::Matrix<Scalar, 6, 1> Gamma = Eigen::Matrix<Scalar, 6, 1>::Zero();
  };
  struct Endpoint {
    int child = 0;   ///< 0: the node's first child, 1: its second
    int handle = 0;  ///< index into that child's handles
  };
  struct Node {
    BodyIndex body = kGround;    ///< a leaf's body
    std::array<int, 2> children{-1, -1};
    // (views into the DivideAndConquer's arenas, laid out node after node in pass order)
    std::span<const BodyIndex> handles;
    /// where each handle sits among the children's handles
    std::span<const Endpoint> handle_in_child;
    std::span<const int> connections;              ///< assembled here
    std::span<const int> row_offset;               ///< each one's first row among the node's
    std::span<const std::array<Endpoint, 2>> ends;  ///< per connection and side (child -1: ground)
    int rows = 0;
    // numbers of the last solve: views into one buffer of the DivideAndConquer, every node's
    // after its children's (pass order), sized once when it is built, each on 16 bytes
    using MatrixView = Eigen::Map<MatX, Eigen::Aligned16>;
    using VectorView = Eigen::Map<VecX, Eigen::Aligned16>;
    MatrixView Phi{nullptr, 0, 0};  ///< handles x handles blocks of d x d
    VectorView b{nullptr, 0};             ///< per handle, d
    /// Phi and b live on the pass's stack from this node's assembly to its parent's (stale after
    /// the pass), at stack_at
    bool transient = false;
    Eigen::Index stack_at = 0;
    PivotedLdlt W;                        ///< P W P^T = L D L^T (the general kernel)
    /// Y = G P^T L^-T (handles d x rows; G = Phi_child J^T on the new handles), so that
    /// G W^+ G^T = Y D^+ Y^T; y0 = L^-1 P beta_0
    MatrixView Y{nullptr, 0, 0};
    VectorView y0{nullptr, 0}, lambda{nullptr, 0};  ///< y0, the multipliers (scaled, DCA sign)
    VectorView f{nullptr, 0};             ///< the forces on the handles (back-substitution)
    /// Assembled by the single-connection kernel (one connection, rows clearly independent; see
    /// src/dynamics/dca/dca_node_kernels.hpp): W = L D L^T in the rows' order, D on LD's diagonal and
    /// L below it, and W above unused.
    bool single = false;
    /// The most rows W may take as independent (followGenericRank): its rank at a regular
    /// configuration of the run, or -1 (no ceiling).
    int rank_ceiling = -1;
    MatrixView LD{nullptr, 0, 0};
    int first_in_order = 0, last_in_order = 0;  ///< its subtree: order_[first .. last], itself last
    int bodies = 0;                              ///< in its subtree
  };

  const std::vector<Connection>& connections() const { return connections_; }
  /// The assembly tree's nodes, the extra ground nodes, and the node joining the complete
  /// assembly to ground (groundNode()). Their numbers are the last solve's.
  const std::vector<Node>& nodes() const { return nodes_; }
  /// Children before parents; the last is groundNode().
  const std::vector<int>& order() const { return order_; }
  int groundNode() const { return order_.back(); }
  /// Velocity coordinates per body: 3 (2D) or 6 (3D).
  int blockSize() const { return d_; }

 private:
  /// What one solve works on, for the node kernels.
  struct Pass {
    const Model* model = nullptr;
    const std::vector<BodyMotion>* motion = nullptr;
    const VecX* F = nullptr;
    Scalar t = 0;
    const ConstraintScaling* scaling = nullptr;
    const VecX* gamma_shift = nullptr;
    VecX* A = nullptr;
    VecX* lambda = nullptr;
    bool velocity_level = false;  ///< Gamma = -Phi_t (solveVelocities) instead of -(Cdot v)
  };

  /// A node's lists while the assembly is built (then laid out in arenas: Node's views).
  struct NodeLists {
    std::vector<BodyIndex> handles;
    std::vector<Endpoint> handle_in_child;
    std::vector<int> connections, row_offset;
    std::vector<std::array<Endpoint, 2>> ends;
  };
  /// The assembly while it is built: each node's lists, its parent, each body's leaf and the node
  /// above it that joins its ground connections (-1: none), the ground node.
  struct Building {
    std::vector<NodeLists> lists;
    std::vector<int> parent, leaf, grounded;
    int ground = -1;
  };
  /// The connections: every joint and driver with its rows of C.
  void addConnections(const Model& model);
  /// The assembly tree's nodes, and one node more: the complete assembly joined to ground.
  Building assemblyNodes(const Model& model);
  /// The node right above body's leaf that joins its connections to ground (made on first use).
  int groundedNode(Building& b, BodyIndex body);
  /// Each connection at the node where its bodies first meet; its bodies handles below it.
  void placeConnections(Building& b, bool above_body);
  /// Where each node's handles and its connections' ends sit among its children's handles.
  void locateEndpoints(Building& b);
  /// order_: the nodes children before parents, from the ground node down.
  void orderChildrenFirst(int ground);
  /// Each subtree's run of order_ and its number of bodies.
  void countSubtrees();
  /// Renumbers the nodes in pass order (order_, children before parents, becomes 0, 1, ...) and
  /// lays their lists out in the arenas in that order: the passes sweep the nodes' memory from one
  /// end to the other, and no node owns a heap block.
  void storeInPassOrder(std::vector<NodeLists>& lists);
  /// Decides which nodes are transient, sizes storage_ and points every other view (Phi, b, Y,
  /// ...) into it, in pass order; and the stack the transient ones need.
  void sizeNumbers();
  /// The calling thread's stack of transient Phi and b grown to stack_need_ (before it runs
  /// nodes; it must be empty).
  void reserveStack() const;

  /// Main pass and back-substitution for pass_.
  int run();

  /// The rows and Gamma of the connections assembled at `node` (in the model's dimension D).
  void evaluateConnections(const Node& node);
  template <int D>
  void evaluateConnectionsIn(const Node& node);
  /// Node kernels: the main pass at one node (a body's Phi and b, or the assembly of its children)
  /// and the back-substitution at one node.
  void mainPassAt(int n);
  /// A node's main-pass kernel (the assembly, or a body's Phi and b), its views in place.
  void nodeKernel(Node& node);
  void backSubstitutionAt(int n);
  /// Deals the tree out to threads_ shares, and lists the top nodes (setThreads).
  void divideAmongThreads();
  void assemble(Node& node);
  void backSubstitute(Node& node);

  int d_ = 3;
  BodyIndex bodies_ = 0;
  std::vector<Connection> connections_;
  std::vector<Node> nodes_;  ///< the assembly tree's, then the ground connection (last)
  int generic_dependent_ = -1;  ///< followGenericRank's
  bool ceilings_ = false;       ///< the nodes' rank ceilings are recorded
  std::vector<Scalar> storage_;  ///< the nodes' numbers (Node::Phi, b, Y, ...), in pass order
  std::size_t stack_need_ = 0;   ///< the transient nodes' stack at its highest (sizeNumbers)
  PhiStorage phi_storage_ = PhiStorage::Automatic;
  bool stacked_ = false;  ///< some nodes are transient
  // the nodes' lists (Node::handles, ...), in pass order
  std::vector<BodyIndex> handle_arena_;
  std::vector<Endpoint> endpoint_arena_;
  std::vector<int> index_arena_;
  std::vector<std::array<Endpoint, 2>> ends_arena_;
  std::vector<int> order_;   ///< children before parents
  Pass pass_;
  int threads_ = 1;
  bool single_kernels_ = true;
  /// The threads' task arena (oneTBB, in dca.cpp only), with threads_ > 1.
  struct Parallel;
  struct ParallelDeleter {
    void operator()(Parallel* p) const;
  };
  std::unique_ptr<Parallel, ParallelDeleter> parallel_;
  /// chunk(begin, end) over [0, count) in chunks of at least grain, on the arena's threads.
  void forEachChunk(int count, int grain, FunctionRef<void(int, int)> chunk);
  std::vector<Share> shares_;               ///< one a thread
  std::vector<int> top_;                    ///< the nodes whose subtrees straddle shares, in order
  std::vector<int> body_share_;             ///< per body
  /// per force element, the bodies it acts on (forceBodies)
  std::vector<std::array<BodyIndex, 2>> force_bodies_;
  /// which shares a thread has taken in the current forEachShare
  std::unique_ptr<std::atomic<bool>[]> taken_;
};

/// One forward-dynamics call by `dca` at x (q, v, q_r, v_r consistent): the bodies' motions
/// (ws.kin.motion), applied forces (ws.F, ws.F_nc), accelerations ws.a and ws.a_r and every row's
/// multiplier ws.lambda. gamma_shift as DivideAndConquer::solve.
void forwardDynamicsByDca(DivideAndConquer& dca, const TreeKinematics& tree, const Model& model, DynamicsWorkspace& ws,
                          const State& x, const VecX& gamma_shift);

/// Forward dynamics by the DCA in relative coordinates (issue 16): the integrator carries the
/// spanning tree's joint coordinates (joint_coordinate_formulation.hpp), the bodies' accelerations
/// and every joint's reaction come from DivideAndConquer, the joint accelerations from the bodies'
/// (TreeKinematics::jointAccelerations). The multipliers are the DCA's own (its choice of the
/// non-unique ones: see DivideAndConquer).
class DcaFormulation final : public JointCoordinateFormulation {
 public:
  /// threads: DivideAndConquer::setThreads (1: sequential).
  explicit DcaFormulation(const Model& model, int threads = 1) : JointCoordinateFormulation(model), threads_(threads) {}
  std::string_view name() const override { return "dca"; }

  /// One forward-dynamics call in O(n): at x (q, v, q_r, v_r consistent) the bodies' motions
  /// (ws.kin.motion), applied forces (ws.F, ws.F_nc), accelerations ws.a and ws.a_r and every
  /// row's multiplier ws.lambda -- without evaluating the constraint matrix ws.kin.C. gamma_shift as
  /// DivideAndConquer::solve.
  void forwardDynamics(const Model& model, DynamicsWorkspace& ws, const State& x, const VecX& gamma_shift) const;

  /// A run's assembly tree, with its numbers and its threads.
  struct Data : VelocityFormulation::Data {
    explicit Data(const Model& model) : dca(model) {}
    DivideAndConquer dca;
  };

 protected:
  std::unique_ptr<FormulationData> makeData(const Model& model) const override;
  /// The joint-coordinate start, with the run's generic rank as the assembly's rank ceiling
  /// (DivideAndConquer::followGenericRank).
  Problem begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const override;
  /// forwardDynamics (every multiplier, whatever `multipliers` says), with ws.kin evaluated at x
  /// where something reads it: Baumgarte's terms, or drivers (their power lambda^T b). A
  /// right-hand side without them is O(n); the simulation evaluates the constraints itself for
  /// its checks.
  Problem solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, const Evaluation& how) const override;

 private:
  int threads_;
};

}  // namespace loopdyn
