#include "loopdyn/dynamics/dca/dca_uniqueness.hpp"

#include <algorithm>
#include <functional>
#include <limits>

#include <Eigen/Eigenvalues>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/dca/dca.hpp"
#include "loopdyn/dynamics/kinetic_gram.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

namespace {

using Dca = DivideAndConquer;

/// A square-root factor of a child's articulated inverse inertia: L L^T = Phi (positive
/// semidefinite), from its eigen-decomposition without the eigenvalues at or below
/// kGramPivotThreshold of the largest: those are Phi's own null directions (handle motions the
/// subassembly does not allow), computed with rounding up to 3e-13 relative (four_bar_spatial),
/// whose square roots would enter R as 5e-7; a genuine ratio that small would take inertias 1e10
/// apart.
MatX squareRootFactor(const MatX& Phi) {
  if (Phi.rows() == 0) return MatX(0, 0);
  const Eigen::SelfAdjointEigenSolver<MatX> eigen(0.5 * (Phi + Phi.transpose()));
  const VecX& values = eigen.eigenvalues();  // ascending
  const Scalar cut = kGramPivotThreshold * std::max(values.cwiseAbs().maxCoeff(), Scalar{0});
  Eigen::Index defect = 0;
  while (defect < values.size() && values(defect) <= cut) ++defect;
  const Eigen::Index kept = values.size() - defect;
  return eigen.eigenvectors().rightCols(kept) * values.tail(kept).cwiseSqrt().asDiagonal();
}

/// A node's joint equations split by child: W = sum_s J_s Phi_s J_s^T (paper 000, eq. (7)'s
/// S^T V S in constraint-row form; at the ground node, eq. (22)'s G), held as its square-root
/// factor R = [J_0 L_0, J_1 L_1] (W = R R^T): W squares the conditioning of the constraint rows,
/// so a rank threshold on W decides at the square of the one on C (a four-bar 1e-6 off its flat
/// pose looked singular: issue 46). From R's singular values: the null space Z (at or below
/// rank_threshold times the largest, as the absolute route's test on C) and the pseudo-inverse
/// of W on the rest.
struct NodeEquations {
  std::array<MatX, 2> J;  ///< rows x (child handles * d), per child
  MatX R, Z, W_plus;
};

NodeEquations nodeEquations(const Dca& dca, const Dca::Node& node, Scalar rank_threshold) {
  const int d = dca.blockSize();
  NodeEquations e;
  std::array<MatX, 2> L;
  for (int s = 0; s < 2; ++s) {
    const int child = node.children[static_cast<std::size_t>(s)];
    if (child >= 0) L[static_cast<std::size_t>(s)] = squareRootFactor(dca.nodes()[static_cast<std::size_t>(child)].Phi);
    const Eigen::Index columns = child < 0 ? 0 : dca.nodes()[static_cast<std::size_t>(child)].Phi.rows();
    e.J[static_cast<std::size_t>(s)].setZero(node.rows, columns);
  }
  for (std::size_t i = 0; i < node.connections.size(); ++i) {
    const Dca::Connection& c = dca.connections()[static_cast<std::size_t>(node.connections[i])];
    for (int slot = 0; slot < 2; ++slot) {
      const Dca::Endpoint& end = node.ends[i][static_cast<std::size_t>(slot)];
      if (end.child < 0) continue;  // ground
      e.J[static_cast<std::size_t>(end.child)].block(node.row_offset[i], end.handle * d, c.rows, d) +=
          c.J.block(0, 6 * slot, c.rows, d);
    }
  }
  e.R.setZero(node.rows, L[0].cols() + L[1].cols());
  if (L[0].cols() > 0) e.R.leftCols(L[0].cols()) = e.J[0] * L[0];
  if (L[1].cols() > 0) e.R.rightCols(L[1].cols()) = e.J[1] * L[1];
  e.W_plus.setZero(node.rows, node.rows);
  e.Z.resize(node.rows, 0);
  if (node.rows == 0) return e;
  const Eigen::JacobiSVD<MatX> svd(e.R, Eigen::ComputeFullU);
  const VecX& sigma = svd.singularValues();  // descending, min(rows, columns) of them
  const Scalar cut = rank_threshold * std::max(sigma.size() > 0 ? sigma(0) : Scalar{0}, std::numeric_limits<Scalar>::min());
  Eigen::Index rank = 0;
  while (rank < sigma.size() && sigma(rank) > cut) ++rank;
  const auto U = svd.matrixU();
  e.Z = U.rightCols(node.rows - rank);
  e.W_plus = U.leftCols(rank) * sigma.head(rank).cwiseAbs2().cwiseInverse().asDiagonal() * U.leftCols(rank).transpose();
  return e;
}

/// The self-equilibrated multipliers (null space of C^T, scaled rows) built root to leaves
/// (dca_uniqueness.hpp): nc x p, orthonormal columns.
MatX nullSpaceThroughTree(const Model& model, const Dca& dca, const std::vector<NodeEquations>& equations) {
  const int d = dca.blockSize();
  // the parameters: one per null direction of each node's W
  std::vector<int> first(dca.nodes().size(), 0);
  int p = 0;
  for (std::size_t n = 0; n < dca.nodes().size(); ++n) {
    first[n] = p;
    p += static_cast<int>(equations[n].Z.cols());
  }
  MatX N = MatX::Zero(model.nc(), p);
  if (p == 0) return N;
  // forces on each node's handles per parameter, root to leaves
  std::vector<MatX> F(dca.nodes().size());
  F[static_cast<std::size_t>(dca.groundNode())].setZero(0, p);
  for (auto it = dca.order().rbegin(); it != dca.order().rend(); ++it) {
    const std::size_t n = static_cast<std::size_t>(*it);
    const Dca::Node& node = dca.nodes()[n];
    if (node.children[0] < 0) continue;  // a body: nothing below
    const NodeEquations& e = equations[n];
    // the node's handle forces placed in its children's handle slots
    std::array<MatX, 2> Fc;
    for (int s = 0; s < 2; ++s) {
      const int child = node.children[static_cast<std::size_t>(s)];
      if (child >= 0) Fc[static_cast<std::size_t>(s)].setZero(dca.nodes()[static_cast<std::size_t>(child)].Phi.rows(), p);
    }
    for (std::size_t h = 0; h < node.handles.size(); ++h) {
      const Dca::Endpoint& at = node.handle_in_child[h];
      Fc[static_cast<std::size_t>(at.child)].middleRows(at.handle * d, d) += F[n].middleRows(static_cast<Eigen::Index>(h) * d, d);
    }
    // Lambda = -W^+ J Phi_c F + Z P
    MatX Lambda = MatX::Zero(node.rows, p);
    if (node.rows > 0) {
      MatX rhs = MatX::Zero(node.rows, p);
      for (int s = 0; s < 2; ++s) {
        const int child = node.children[static_cast<std::size_t>(s)];
        if (child < 0) continue;
        rhs.noalias() += e.J[static_cast<std::size_t>(s)] *
                         (dca.nodes()[static_cast<std::size_t>(child)].Phi * Fc[static_cast<std::size_t>(s)]);
      }
      Lambda.noalias() = -e.W_plus * rhs;
      Lambda.middleCols(first[n], e.Z.cols()) += e.Z;
    }
    for (std::size_t i = 0; i < node.connections.size(); ++i) {
      const Dca::Connection& c = dca.connections()[static_cast<std::size_t>(node.connections[i])];
      N.middleRows(c.row, c.rows) = Lambda.middleRows(node.row_offset[i], c.rows);
    }
    // the children's handle forces: the node's, and J^T Lambda of the connections assembled here
    for (int s = 0; s < 2; ++s) {
      const int child = node.children[static_cast<std::size_t>(s)];
      if (child < 0) continue;
      MatX& f = F[static_cast<std::size_t>(child)];
      f = Fc[static_cast<std::size_t>(s)];
      if (node.rows > 0) f.noalias() += e.J[static_cast<std::size_t>(s)].transpose() * Lambda;
    }
  }
  // an orthonormal basis of the same span (the parameters are independent by construction: each
  // node's own parameters enter its rows through Z_N alone)
  const Eigen::HouseholderQR<MatX> qr(N);
  return qr.householderQ() * MatX::Identity(model.nc(), p);
}

/// The connection's rows on `body` (rows x d).
MatX rowsOnBody(const Dca& dca, const Dca::Connection& c, BodyIndex body) {
  const int slot = c.bodies[0] == body ? 0 : 1;
  return c.J.block(0, 6 * slot, c.rows, dca.blockSize());
}

bool fullRowRank(const MatX& J) {
  if (J.rows() == 0) return true;
  Eigen::ColPivHouseholderQR<MatX> qr(J.transpose());
  qr.setThreshold(kRankThreshold);
  return qr.rank() == J.rows();
}

std::vector<int> rowsOf(const Pair& pair) {
  std::vector<int> rows;
  for (int k = 0; k < pair.rows; ++k) rows.push_back(pair.row + k);
  return rows;
}

}  // namespace

std::string_view dcaStepName(DcaStep step) {
  switch (step) {
    case DcaStep::Open: return "null space";
    case DcaStep::EmptyHandle: return "step 1";
    case DcaStep::GroundConnection: return "step 2";
    case DcaStep::OneConnection: return "step 4";
    case DcaStep::BodyEquation: return "step 6";
    case DcaStep::BodyEquationRepeated: return "step 8";
  }
  return "";
}

bool DcaUniquenessReport::stepsComplete() const {
  return std::none_of(pairs.begin(), pairs.end(), [](const DcaPairDecision& p) { return p.step == DcaStep::Open; });
}

bool DcaUniquenessReport::stepsAgreeWithNullSpace() const {
  return std::all_of(pairs.begin(), pairs.end(), [](const DcaPairDecision& p) {
    // (every multiplier unique makes the reaction unique: the report never says both)
    const bool components = std::all_of(p.components.begin(), p.components.end(), [](bool c) { return c; });
    return (p.step == DcaStep::Open || p.unique == p.null_space_unique) && (p.unique || !components);
  });
}

namespace {

/// The eight steps of paper 000 (sect. 3.5) over the DCA's assembly at x, and the null-space check
/// beyond them, as named stages over what they share.
class DcaUniquenessAnalysis {
 public:
  DcaUniquenessAnalysis(const Model& model, const State& x, const UniquenessOptions& options);
  DcaUniquenessReport run();

 private:
  void decide(std::size_t p, DcaStep step, bool unique, int round);
  void groundConnection();
  ElementUniqueness element(const std::vector<UniquenessTest>& tests, std::vector<int> equations_of_C,
                            const std::vector<int>& rows_of_G,
                            const std::function<Decision(const UniquenessTest&)>& reaction);
  void groundGroups(const std::vector<UniquenessTest>& tests, const std::vector<int>& row_in_G);
  void connectionsOfBodies();
  bool readable(std::size_t body) const;
  void oneConnection();
  void bodyEquations();
  void nullSpaceCheck();
  void innerRedundancies();

  const Model& model_;
  const UniquenessOptions& options_;
  Dca dca_;
  std::vector<NodeEquations> equations_;
  DcaUniquenessReport report_;
  std::size_t np_;
  std::vector<int> connection_of_;  ///< pairs -> connections, by their rows
  std::vector<std::vector<int>> at_body_;        ///< the pairs connected to each body
  std::vector<std::vector<bool>> independent_;   ///< whether each one's rows on the body are independent
};

DcaUniquenessAnalysis::DcaUniquenessAnalysis(const Model& model, const State& x, const UniquenessOptions& options)
    : model_(model),
      options_(options),
      // the DCA's main pass at x, every ground connection at the complete assembly (paper 000, Fig. 5)
      dca_(model, Dca::GroundConnections::AtCompleteAssembly, Dca::PhiStorage::Kept),  // (reads every node's Phi)
      np_(model.pairs().size()),
      connection_of_(model.pairs().size(), -1) {
  std::vector<BodyMotion> motion;
  for (BodyIndex b = 0; b < model.nb(); ++b) motion.push_back(bodyMotion(model, x.q, x.v, b));
  VecX F, F_nc, A, lambda;
  appliedForces(model, motion, x.t, F, F_nc);
  dca_.solve(model, motion, F, x.t, model.scaling(), VecX(), A, lambda);
  equations_.resize(dca_.nodes().size());
  for (std::size_t n = 0; n < dca_.nodes().size(); ++n)
    if (dca_.nodes()[n].children[0] >= 0) equations_[n] = nodeEquations(dca_, dca_.nodes()[n], options.rank_threshold);
  for (std::size_t ci = 0; ci < dca_.connections().size(); ++ci) {
    const int pair = model.equations()[static_cast<std::size_t>(dca_.connections()[ci].row)].pair;
    connection_of_[static_cast<std::size_t>(pair)] = static_cast<int>(ci);
  }
  report_.pairs.resize(np_);
  for (std::size_t p = 0; p < np_; ++p) {
    report_.pairs[p].pair = static_cast<int>(p);
    if (connection_of_[p] >= 0)
      report_.pairs[p].node = dca_.connections()[static_cast<std::size_t>(connection_of_[p])].node;
  }
}

DcaUniquenessReport DcaUniquenessAnalysis::run() {
  // step 1: pairs that transmit nothing
  for (std::size_t p = 0; p < np_; ++p)
    if (model_.pairs()[p].rows == 0) decide(p, DcaStep::EmptyHandle, true, 0);
  groundConnection();
  connectionsOfBodies();
  oneConnection();
  bodyEquations();
  nullSpaceCheck();
  innerRedundancies();
  return std::move(report_);
}

void DcaUniquenessAnalysis::decide(std::size_t p, DcaStep step, bool unique, int round) {
  report_.pairs[p].step = step;
  report_.pairs[p].unique = unique;
  report_.pairs[p].round = round;
}

ElementUniqueness DcaUniquenessAnalysis::element(const std::vector<UniquenessTest>& tests,
                                                 std::vector<int> equations_of_C, const std::vector<int>& rows_of_G,
                                                 const std::function<Decision(const UniquenessTest&)>& reaction) {
  ElementUniqueness e;
  e.equations = std::move(equations_of_C);
  for (const UniquenessTest& test : tests) {
    MethodResult result;
    result.method = test.method();
    result.reaction = reaction(test);
    for (int row : rows_of_G) result.components.push_back(test.component(row));
    e.methods.push_back(std::move(result));
  }
  report_.ground.smallest_margin = std::min(report_.ground.smallest_margin, e.margin());
  return e;
}

/// Step 2: the multijoint connection between the complete assembly and ground, G (eq. (22)). The
/// tests run on G's square-root factor R, G = R R^T, row for row: the same null space, at C's
/// conditioning instead of its square.
void DcaUniquenessAnalysis::groundConnection() {
  const Dca::Node& ground = dca_.nodes()[static_cast<std::size_t>(dca_.groundNode())];
  const MatX& R = equations_[static_cast<std::size_t>(dca_.groundNode())].R;
  DcaGroundConnection& gc = report_.ground;
  gc.size = ground.rows;
  gc.smallest_margin = std::numeric_limits<Scalar>::infinity();
  if (ground.rows == 0) return;
  std::vector<UniquenessTest> tests;
  for (UniquenessMethod method : options_.methods) {
    tests.emplace_back(method, R, options_.rank_threshold, options_.uniqueness_threshold);
    gc.ranks.push_back(tests.back().rank());
  }
  std::vector<int> row_in_G(static_cast<std::size_t>(model_.nc()), -1);
  for (std::size_t i = 0; i < ground.connections.size(); ++i) {
    const Dca::Connection& c = dca_.connections()[static_cast<std::size_t>(ground.connections[i])];
    const int pair = model_.equations()[static_cast<std::size_t>(c.row)].pair;
    gc.pairs.push_back(pair);
    std::vector<int> rows_of_G;
    for (int k = 0; k < c.rows; ++k) {
      row_in_G[static_cast<std::size_t>(c.row + k)] = ground.row_offset[i] + k;
      rows_of_G.push_back(ground.row_offset[i] + k);
    }
    // the rank comparison of eq. (27) and the tests of eqs. (28)-(51) on G's rows G_T
    gc.elements.push_back(element(tests, rowsOf(model_.pairs()[static_cast<std::size_t>(pair)]), rows_of_G,
                                  [&](const UniquenessTest& t) { return t.pair(ground.row_offset[i], c.rows); }));
    decide(static_cast<std::size_t>(pair), DcaStep::GroundConnection, gc.elements.back().unique(), 0);
  }
  groundGroups(tests, row_in_G);
}

/// Groups of pairs to ground: h_T = G_T lambda_T (eq. (25)) unique.
void DcaUniquenessAnalysis::groundGroups(const std::vector<UniquenessTest>& tests, const std::vector<int>& row_in_G) {
  const MatX& R = equations_[static_cast<std::size_t>(dca_.groundNode())].R;
  std::vector<Group> groups = model_.groups();
  groups.insert(groups.end(), options_.extra_groups.begin(), options_.extra_groups.end());
  for (const Group& group : groups) {
    MatX K = MatX::Zero(R.cols(), R.rows());  // y = sum over the group's rows g of R_g^T lambda_g
    std::vector<int> equations_of_C, rows_of_G;
    bool at_ground = true;
    for (int index : group.pairs) {
      const Pair& pair = model_.pairs()[static_cast<std::size_t>(index)];
      for (int row : rowsOf(pair)) {
        const int g = row_in_G[static_cast<std::size_t>(row)];
        at_ground = at_ground && g >= 0;
        if (g < 0) continue;
        K.col(g) = R.row(g).transpose();
        equations_of_C.push_back(row);
        rows_of_G.push_back(g);
      }
    }
    if (!at_ground) continue;
    GroupUniqueness out;
    out.group = group;
    out.resultant = element(tests, equations_of_C, rows_of_G, [&](const UniquenessTest& t) { return t.element(K); });
    report_.ground.groups.push_back(std::move(out));
  }
}

/// The bodies' connections, and whether each one's rows on the body are independent (steps 4, 6
/// read a wrench on the body as its multipliers).
void DcaUniquenessAnalysis::connectionsOfBodies() {
  at_body_.assign(static_cast<std::size_t>(model_.nb()), {});
  independent_.assign(static_cast<std::size_t>(model_.nb()), {});
  for (std::size_t p = 0; p < np_; ++p) {
    if (connection_of_[p] < 0) continue;
    const Dca::Connection& c = dca_.connections()[static_cast<std::size_t>(connection_of_[p])];
    for (const BodyIndex body : c.bodies) {
      if (body == kGround) continue;
      at_body_[static_cast<std::size_t>(body)].push_back(static_cast<int>(p));
      independent_[static_cast<std::size_t>(body)].push_back(fullRowRank(rowsOnBody(dca_, c, body)));
    }
  }
}

bool DcaUniquenessAnalysis::readable(std::size_t body) const {
  return std::all_of(independent_[body].begin(), independent_[body].end(), [](bool b) { return b; });
}

/// Step 4: bodies with one connection.
void DcaUniquenessAnalysis::oneConnection() {
  for (std::size_t body = 0; body < at_body_.size(); ++body)
    if (at_body_[body].size() == 1 && readable(body) &&
        report_.pairs[static_cast<std::size_t>(at_body_[body][0])].step == DcaStep::Open)
      decide(static_cast<std::size_t>(at_body_[body][0]), DcaStep::OneConnection, true, 0);
}

/// Steps 6 and 8: a body's equation of motion with all its connections known but one.
void DcaUniquenessAnalysis::bodyEquations() {
  for (int round = 1;; ++round) {
    std::vector<std::pair<std::size_t, bool>> found;
    for (std::size_t body = 0; body < at_body_.size(); ++body) {
      if (!readable(body)) continue;
      int open = -1, open_count = 0, non_unique = 0;
      for (const int p : at_body_[body]) {
        const DcaPairDecision& known = report_.pairs[static_cast<std::size_t>(p)];
        if (known.step == DcaStep::Open) open = p, ++open_count;
        else if (!known.unique) ++non_unique;
      }
      if (open_count != 1 || non_unique > 1) continue;
      found.emplace_back(static_cast<std::size_t>(open), non_unique == 0);
    }
    bool any = false;
    for (const auto& [p, unique] : found) {
      if (report_.pairs[p].step != DcaStep::Open) continue;  // decided from its other body this round
      decide(p, round == 1 ? DcaStep::BodyEquation : DcaStep::BodyEquationRepeated, unique, round);
      any = true;
    }
    if (!any) break;
    report_.rounds = round;
  }
}

/// Beyond the paper: the null space of C^T built through the assembly tree decides every pair,
/// and checks every step's decision.
void DcaUniquenessAnalysis::nullSpaceCheck() {
  const MatX N = nullSpaceThroughTree(model_, dca_, equations_);
  report_.redundancy = static_cast<int>(N.cols());
  for (std::size_t p = 0; p < np_; ++p) {
    DcaPairDecision& out = report_.pairs[p];
    const Pair& pair = model_.pairs()[p];
    for (int row : rowsOf(pair))
      out.components.push_back(N.cols() == 0 || N.row(row).norm() <= options_.uniqueness_threshold);
    if (connection_of_[p] >= 0 && N.cols() > 0) {
      const Dca::Connection& c = dca_.connections()[static_cast<std::size_t>(connection_of_[p])];
      const MatX J = c.J.topRows(c.rows);
      const Scalar size = J.norm();
      out.null_space_indicator = size > 0 ? (J.transpose() * N.middleRows(c.row, c.rows)).norm() / size : 0;
    }
    out.null_space_unique = out.null_space_indicator <= options_.uniqueness_threshold;
    if (out.step == DcaStep::Open) out.unique = out.null_space_unique;
  }
}

/// The nodes whose own equations are redundant (below the ground connection).
void DcaUniquenessAnalysis::innerRedundancies() {
  for (std::size_t n = 0; n < dca_.nodes().size(); ++n) {
    const int defect = static_cast<int>(equations_[n].Z.cols());
    if (defect == 0 || static_cast<int>(n) == dca_.groundNode()) continue;
    std::string names;
    for (const int ci : dca_.nodes()[n].connections) {
      const int pair =
          model_.equations()[static_cast<std::size_t>(dca_.connections()[static_cast<std::size_t>(ci)].row)].pair;
      names += (names.empty() ? "" : ", ") + model_.pairs()[static_cast<std::size_t>(pair)].name;
    }
    report_.inner_redundancies.push_back("node " + std::to_string(n) + ": " + names + " (defect " +
                                         std::to_string(defect) + ")");
  }
}

}  // namespace

DcaUniquenessReport analyzeReactionUniquenessDca(const Model& model, const State& x, const UniquenessOptions& options) {
  LOOPDYN_CHECK(!options.methods.empty(), "at least one uniqueness method must be chosen");
  LOOPDYN_CHECK(x.q.size() == model.nq() && x.v.size() == model.nv(), "state: expected sizes ", model.nq(), " and ",
                model.nv(), ", got ", x.q.size(), " and ", x.v.size());
  return DcaUniquenessAnalysis(model, x, options).run();
}

std::vector<std::string> routesDisagree(const Model& model, const DcaUniquenessReport& dca,
                                        const UniquenessReport& absolute) {
  std::vector<std::string> out;
  for (std::size_t p = 0; p < dca.pairs.size(); ++p) {
    const ElementUniqueness& a = absolute.pairs[p].reaction;
    bool same = dca.pairs[p].unique == a.unique();
    for (std::size_t k = 0; k < dca.pairs[p].components.size(); ++k)
      same = same && dca.pairs[p].components[k] == a.methods.front().components[k].unique;
    if (!same) out.push_back(model.pairs()[p].name);
  }
  return out;
}

}  // namespace loopdyn
