#pragma once
/// Joint-reaction uniqueness decided inside the divide-and-conquer algorithm, in relative
/// coordinates (issue 17; paper 000, sects. 2-3.5). It lives beside the DCA (dca.hpp), whose main
/// pass it reads, rather than in analysis/: it needs the articulated inverse inertias Phi.
///
/// After the DCA's main pass with every ground connection assembled at the complete assembly
/// (DivideAndConquer::GroundConnections::AtCompleteAssembly) the paper's eight steps run:
///   1  a pair that transmits nothing (no rows: the paper's empty handles) has a zero, unique
///      reaction;
///   2  the multijoint connection between the complete assembly and ground: G = T^T Phi_11 T
///      (eq. (22); here the connections' scaled rows J take T's place, G = J Phi_11 J^T, which
///      changes G by a row and column scaling and no decision) and the four tests of sect. 3 on
///      G (analysis/uniqueness_methods.hpp takes G for C: G is symmetric, so its rows are the
///      paper's columns G_T); a single joint to ground is unique (sect. 2.2);
///   3, 5, 7  propagation: a pair's reaction is the same at every level of the assembly, so the
///      decisions are kept per pair and are visible everywhere at once;
///   4  a body with one connection: its reaction is F - M a, unique;
///   6  a body all of whose connections but one are decided (the paper: two handles, one known;
///      eqs. (9)-(14)): M a = F + sum_c J_c^T lambda_c with unique a, so the last one is unique if
///      all the others are, and non-unique if exactly one of the others is (two non-unique ones
///      may cancel: then it stays open);
///   8  step 6 again with what it decided, round after round, until nothing changes.
/// Steps 4 and 6 read a wrench as its multipliers, so a connection whose rows on the body are
/// dependent is left to what follows.
///
/// Beyond the paper (docs/uniqueness.md, "The DCA route"): a multijoint connection inside the
/// assembly (a redundant loop closed below the root) breaks the paper's assumption, and steps 6/8
/// can stop with pairs open. The self-equilibrated multipliers -- the null space of C^T -- are then
/// built through the assembly tree from the root down: at node N, with forces F_N on its handles
/// from the connections above (zero at the ground node),
///   W_N Lambda_N = -J Phi_c F_N,  so Lambda_N = -W_N^+ J Phi_c F_N + Z_N P_N,
/// Z_N a basis of the null space of W_N = J Phi_c J^T and P_N new parameters; the children's handle
/// forces are then F_N and J^T Lambda_N. Because Phi_c is positive semidefinite, J Phi_c F_N lies
/// in the range of W_N, the children's accelerations stay zero, and every self-equilibrated set is
/// reached: the parameters number sum_N dim null(W_N) = m + h - rank(C). A pair is unique when its
/// force J_X^T Lambda_X vanishes on this basis (the direct-sum test of paper 001, eq. (27), on the
/// DCA's own numbers). Every decision of steps 2-8 is checked against this basis.

#include <string>
#include <vector>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

/// Which step of paper 000's algorithm (sect. 3.5) decided a pair.
enum class DcaStep {
  Open = 0,          ///< not decided by steps 1-8 (see DcaPairDecision::null_space)
  EmptyHandle = 1,   ///< transmits nothing
  GroundConnection = 2,
  OneConnection = 4,
  BodyEquation = 6,
  BodyEquationRepeated = 8,
};

std::string_view dcaStepName(DcaStep step);

struct DcaPairDecision {
  int pair = 0;                       ///< index into Model::pairs()
  DcaStep step = DcaStep::Open;       ///< the paper's step that decided it
  int round = 0;                      ///< steps 6/8: the round (1 for step 6)
  bool unique = true;                 ///< the answer (from the step, or from the null space when open)
  std::vector<bool> components;       ///< per row of the pair: its multiplier is unique
  /// The null-space test's answer, and ||J_X^T N_X|| / ||J_X|| (0 without redundancy).
  bool null_space_unique = true;
  Scalar null_space_indicator = 0;
  int node = -1;                      ///< the assembly-tree node that eliminates its rows
};

/// Paper 000's multijoint connection of the complete assembly to ground (step 2).
struct DcaGroundConnection {
  std::vector<int> pairs;            ///< the pairs to ground, in G's row order
  int size = 0;                      ///< G is size x size
  std::vector<int> ranks;            ///< rank of G per method, in UniquenessOptions::methods' order
  Scalar smallest_margin = 0;        ///< of the decisions below (decades)
  std::vector<ElementUniqueness> elements;  ///< per entry of `pairs`; equations are rows of C
  std::vector<GroupUniqueness> groups;      ///< the model's groups made only of pairs to ground
};

struct DcaUniquenessReport {
  DcaGroundConnection ground;
  std::vector<DcaPairDecision> pairs;  ///< one per Model::pairs(), same order
  int rounds = 0;                      ///< rounds of steps 6/8 that decided something
  int redundancy = 0;                  ///< dimension of the null space built through the tree
  /// Nodes below the ground node whose connections are redundant (inner multijoint connections,
  /// outside the paper's assumption): "node K: pairs A, B, C (defect d)".
  std::vector<std::string> inner_redundancies;
  /// Every pair decided by steps 1-8.
  bool stepsComplete() const;
  /// Every step's decision equals the null-space test's, and no pair is non-unique with every
  /// multiplier unique (a contradiction: the CLI exits 3 rather than print it).
  bool stepsAgreeWithNullSpace() const;
};

/// Runs the analysis at x (positions assembled; velocities do not enter). options.methods: the
/// tests on G (the first decides); thresholds as for analyzeReactionUniqueness.
DcaUniquenessReport analyzeReactionUniquenessDca(const Model& model, const State& x,
                                                 const UniquenessOptions& options = {});

/// The pairs on which the DCA route and the absolute analysis answer differently (reaction or a
/// multiplier), one name each: a defect in one of them, never a threshold question at margins of
/// several decades.
std::vector<std::string> routesDisagree(const Model& model, const DcaUniquenessReport& dca,
                                        const UniquenessReport& absolute);

}  // namespace loopdyn
