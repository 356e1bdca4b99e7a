#include "dca_node_kernels.hpp"

#include <algorithm>
#include <limits>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/kinetic_gram.hpp"

namespace loopdyn::dca_kernels {

// ---- bodies ----

namespace {

/// M^-1 of a body in Model's velocity layout: diag(1/m, 1/m, 1/I_zz) in the plane, (I/m, R I^-1 R^T)
/// in space.
template <int d>
Eigen::Matrix<Scalar, d, d> bodyInverseMass(const Body& body, const BodyMotion& m) {
  Eigen::Matrix<Scalar, d, d> Minv = Eigen::Matrix<Scalar, d, d>::Zero();
  Minv(0, 0) = Minv(1, 1) = 1 / body.mass;
  if constexpr (d == 3) {
    Minv(2, 2) = body.inertia_inverse(2, 2);
  } else {
    Minv(2, 2) = 1 / body.mass;
    Minv.template bottomRightCorner<3, 3>() = m.R * body.inertia_inverse * m.R.transpose();
  }
  return Minv;
}

}  // namespace

template <int d>
void bodyNode(Node& node, const Body& body, const BodyMotion& m, const VecX& F) {
  const int nh = static_cast<int>(node.handles.size());
  const Eigen::Matrix<Scalar, d, d> Minv = bodyInverseMass<d>(body, m);
  for (int i = 0; i < nh; ++i) {
    node.b.template segment<d>(i * d).noalias() = Minv * F.template segment<d>(node.body * d);
    for (int j = 0; j < nh; ++j) node.Phi.template block<d, d>(i * d, j * d) = Minv;
  }
}

template <int d>
void bodyAccelerations(const Node& node, const Body& body, const BodyMotion& m, const VecX& F, VecX& A) {
  Eigen::Matrix<Scalar, d, 1> force = F.template segment<d>(node.body * d);
  if (!node.handles.empty()) force += node.f.template head<d>();
  auto a = A.template segment<d>(node.body * d);
  a.template head<2>() = force.template head<2>() / body.mass;
  if constexpr (d == 3) {
    a(2) = body.inertia_inverse(2, 2) * force(2);
  } else {
    a(2) = force(2) / body.mass;
    a.template tail<3>() = m.R * (body.inertia_inverse * (m.R.transpose() * force.template tail<3>()));
  }
}

// ---- the general form: any connections, rows and handles; W pivoted where it must be ----

namespace {

/// Row r of a connection's d columns on its body in `slot` (0: first, 1: second).
template <int d>
Eigen::Matrix<Scalar, d, 1> rowOn(const Connection& c, int slot, int r) {
  return c.J.row(r).template segment<d>(6 * slot).transpose();
}

}  // namespace

namespace {

/// Gc = Phi_child J^T (column by column, each a d-block per child handle) and
/// beta_0 = sum J b - Gamma, from the children, for the node's connections.
template <int d>
[[gnu::always_inline]] inline void connectionProducts(const Node& node, const std::array<const Node*, 2>& child,
                                                      const std::vector<Connection>& connections,
                                                      std::array<Eigen::Map<MatX>, 2>& node_Gc,
                                                      Eigen::Map<VecX>& beta0) {
  using Block = Eigen::Matrix<Scalar, d, 1>;
  node_Gc[0].setZero();
  node_Gc[1].setZero();
  for (std::size_t i = 0; i < node.connections.size(); ++i) {
    const Connection& c = connections[static_cast<std::size_t>(node.connections[i])];
    const int k = node.row_offset[i];
    for (int r = 0; r < c.rows; ++r) beta0(k + r) = -c.Gamma(r);
    for (int slot = 0; slot < 2; ++slot) {
      const Endpoint& e = node.ends[i][static_cast<std::size_t>(slot)];
      if (e.child < 0) continue;  // ground
      const Node& x = *child[static_cast<std::size_t>(e.child)];
      Eigen::Map<MatX>& Gc = node_Gc[static_cast<std::size_t>(e.child)];
      const int handles = static_cast<int>(x.handles.size());
      for (int r = 0; r < c.rows; ++r) {
        const Block jr = rowOn<d>(c, slot, r);
        for (int h = 0; h < handles; ++h)
          Gc.col(k + r).template segment<d>(h * d).noalias() += x.Phi.template block<d, d>(h * d, e.handle * d) * jr;
        beta0(k + r) += jr.dot(x.b.template segment<d>(e.handle * d));
      }
    }
  }

}

/// W = sum J Gc: its lower triangle, then mirrored (exactly symmetric); factorised in the rows'
/// order where they are clearly independent (the usual case), pivoted otherwise
/// (pivoted_ldlt.hpp: the same rule as the kinetic Gram matrices').
template <int d>
[[gnu::always_inline]] inline void assembleW(Node& node, const std::vector<Connection>& connections,
                                             const std::array<Eigen::Map<MatX>, 2>& node_Gc) {
  using Block = Eigen::Matrix<Scalar, d, 1>;
  const int rows = node.rows;
  MatX& W = node.W.matrix();
  W.setZero(rows, rows);
  for (std::size_t i = 0; i < node.connections.size(); ++i) {
    const Connection& c = connections[static_cast<std::size_t>(node.connections[i])];
    const int k = node.row_offset[i];
    for (int slot = 0; slot < 2; ++slot) {
      const Endpoint& e = node.ends[i][static_cast<std::size_t>(slot)];
      if (e.child < 0) continue;
      const Eigen::Map<MatX>& Gc = node_Gc[static_cast<std::size_t>(e.child)];
      for (int r = 0; r < c.rows; ++r) {
        const Block jr = rowOn<d>(c, slot, r);
        for (int col = 0; col <= k + r; ++col) W(k + r, col) += jr.dot(Gc.col(col).template segment<d>(e.handle * d));
      }
    }
  }
  for (int col = 0; col < rows; ++col)
    for (int row = col + 1; row < rows; ++row) W(col, row) = W(row, col);
  if (node.rank_ceiling >= 0 && node.rank_ceiling < rows)
    node.W.factorize(kGramPivotThreshold, node.rank_ceiling);  // (DivideAndConquer::followGenericRank)
  else if (!node.W.factorizeRegular(kRegularPivotRatio, true))
    node.W.factorize(kGramPivotThreshold);

}

/// The new node's handles: Phi^N_hk = Phi_hk [same child] - G_h W^+ G_k^T, b^N_h = b_h - G_h W^+
/// beta_0, with G W^+ G^T = Y D^+ Y^T: Y = G P^T L^-T, the forward substitution on its columns
/// (G: the handles' rows of Gc); y0 = L^-1 P beta_0 likewise.
template <int d>
[[gnu::always_inline]] inline void newHandles(Node& node, const std::array<const Node*, 2>& child,
                                              const std::array<Eigen::Map<MatX>, 2>& node_Gc,
                                              const Eigen::Map<VecX>& beta0) {
  using Block = Eigen::Matrix<Scalar, d, 1>;
  const int rows = node.rows;
  const int nh = static_cast<int>(node.handles.size());
  const std::vector<int>& perm = node.W.permutation();
  for (int i = 0; i < nh; ++i) {
    const Endpoint& e = node.handle_in_child[static_cast<std::size_t>(i)];
    const Node& x = *child[static_cast<std::size_t>(e.child)];
    const Eigen::Map<MatX>& Gc = node_Gc[static_cast<std::size_t>(e.child)];
    for (int kk = 0; kk < rows; ++kk)
      node.Y.col(kk).template segment<d>(i * d) = Gc.col(perm[static_cast<std::size_t>(kk)]).template segment<d>(e.handle * d);
    node.b.template segment<d>(i * d) = x.b.template segment<d>(e.handle * d);
    for (int h = 0; h <= i; ++h) {
      const Endpoint& f = node.handle_in_child[static_cast<std::size_t>(h)];
      if (f.child == e.child)
        node.Phi.template block<d, d>(i * d, h * d) = x.Phi.template block<d, d>(e.handle * d, f.handle * d);
      else
        node.Phi.template block<d, d>(i * d, h * d).setZero();
    }
  }
  for (int kk = 0; kk < rows; ++kk) node.y0(kk) = beta0(perm[static_cast<std::size_t>(kk)]);
  const MatX& L = node.W.lower();
  const int rank = node.W.rank();  // (L is zero in the columns of zero pivots)
  for (int kk = 0; kk < rank; ++kk)
    for (int i = kk + 1; i < rows; ++i) {
      const Scalar l = L(i, kk);
      if (l == 0) continue;
      node.y0(i) -= l * node.y0(kk);
      for (int h = 0; h < nh; ++h) node.Y.col(i).template segment<d>(h * d) -= l * node.Y.col(kk).template segment<d>(h * d);
    }
  // Phi's lower blocks and b: sum over the pivots of y_k y_k^T / D_k and y_k y0_k / D_k
  const VecX& D = node.W.pivots();
  for (int kk = 0; kk < rank; ++kk) {
    const Scalar inverse = 1 / D(kk);
    if (nh > 0) node.b.noalias() -= (inverse * node.y0(kk)) * node.Y.col(kk);
    for (int h = 0; h < nh; ++h) {
      const Block yd = inverse * node.Y.col(kk).template segment<d>(h * d);
      for (int i = h; i < nh; ++i)
        node.Phi.template block<d, d>(i * d, h * d).noalias() -= node.Y.col(kk).template segment<d>(i * d) * yd.transpose();
    }
  }
  for (int i = 0; i < nh; ++i)
    for (int h = i + 1; h < nh; ++h)
      node.Phi.template block<d, d>(i * d, h * d) = node.Phi.template block<d, d>(h * d, i * d).transpose();
}

}  // namespace

/// The main pass at an assembly node with d velocity coordinates per body (paper 000, eqs.
/// (5)-(7)): W, beta_0 and Gc from the children, the factorisation of W, and the new node's Phi
/// and b. Each connection's rows J_ce meet only its endpoint handle's d columns of the child's Phi,
/// and everything goes in d x d blocks of fixed size.
template <int d>
void assembleNode(Node& node, const std::array<const Node*, 2>& child, const std::vector<Connection>& connections) {
  const int rows = node.rows;
  // Gc and beta_0 are not needed after the node's assembly: kept per thread, not per node (a
  // chain of 4096 bodies keeps its nodes' matrices out of cache; these were a third of them), in
  // one buffer that only grows (no allocation once it has met the largest node)
  thread_local std::vector<Scalar> buffer;
  std::array<Eigen::Index, 2> handle_rows{0, 0};
  for (int s = 0; s < 2; ++s)
    if (child[static_cast<std::size_t>(s)]) handle_rows[static_cast<std::size_t>(s)] = child[static_cast<std::size_t>(s)]->b.size();
  const auto size = static_cast<std::size_t>((handle_rows[0] + handle_rows[1] + 1) * rows);
  if (buffer.size() < size) buffer.resize(size);
  std::array<Eigen::Map<MatX>, 2> node_Gc{Eigen::Map<MatX>(buffer.data(), handle_rows[0], rows),
                                          Eigen::Map<MatX>(buffer.data() + handle_rows[0] * rows, handle_rows[1], rows)};
  Eigen::Map<VecX> beta0(buffer.data() + (handle_rows[0] + handle_rows[1]) * rows, rows);

  connectionProducts<d>(node, child, connections, node_Gc, beta0);
  assembleW<d>(node, connections, node_Gc);
  newHandles<d>(node, child, node_Gc, beta0);
}

/// The back-substitution at an assembly node: its multipliers from the forces on its handles,
/// lambda = -W^+ (beta_0 + G^T f) = -P^T L^-T D^+ (y0 + Y^T f), and the children's handle forces.
template <int d>
void backSubstituteNode(Node& node, std::vector<Node>& nodes, const std::vector<Connection>& connections) {
  using Block = Eigen::Matrix<Scalar, d, 1>;
  const int nh = static_cast<int>(node.handles.size());
  node.lambda = node.y0;
  for (int kk = 0; kk < node.rows; ++kk)
    for (int h = 0; h < nh; ++h)
      node.lambda(kk) += node.Y.col(kk).template segment<d>(h * d).dot(node.f.template segment<d>(h * d));
  node.W.upperSolveInPlace(node.lambda);
  node.lambda = -node.lambda;
  // the children's handle forces: the node's on its handles, and J^T lambda of the connections
  for (int s = 0; s < 2; ++s) {
    if (node.children[static_cast<std::size_t>(s)] < 0) continue;
    Node& x = nodes[static_cast<std::size_t>(node.children[static_cast<std::size_t>(s)])];
    x.f.setZero();
  }
  for (std::size_t i = 0; i < node.connections.size(); ++i) {
    const Connection& c = connections[static_cast<std::size_t>(node.connections[i])];
    for (int slot = 0; slot < 2; ++slot) {
      const Endpoint& e = node.ends[i][static_cast<std::size_t>(slot)];
      if (e.child < 0) continue;
      Node& x = nodes[static_cast<std::size_t>(node.children[static_cast<std::size_t>(e.child)])];
      Block f = Block::Zero();
      for (int r = 0; r < c.rows; ++r) f += node.lambda(node.row_offset[i] + r) * rowOn<d>(c, slot, r);
      x.f.template segment<d>(e.handle * d) += f;
    }
  }
  for (int i = 0; i < nh; ++i) {
    const Endpoint& e = node.handle_in_child[static_cast<std::size_t>(i)];
    Node& x = nodes[static_cast<std::size_t>(node.children[static_cast<std::size_t>(e.child)])];
    x.f.template segment<d>(e.handle * d) += node.f.template segment<d>(i * d);
  }
}


// ---- the single-connection form: fixed sizes, W in the rows' order ----

namespace {

/// One connection of R rows (compile time) between the children's handles ends[0] and ends[1]
/// (child -1: ground). Gc, W, its L D L^T and Y D^-1 are fixed-size locals.
template <int d, int R>
bool assembleSingle(Node& node, const std::array<const Node*, 2>& child, const Connection& c) {
  using Cols = Eigen::Matrix<Scalar, d, R>;
  using Rows = Eigen::Matrix<Scalar, R, d>;
  using Vector = Eigen::Matrix<Scalar, R, 1>;
  const std::array<Endpoint, 2>& ends = node.ends[0];
  // Gc = Phi_child J^T per child handle (d x R), beta_0 = sum J b - Gamma, W = sum J Gc (its
  // lower triangle is all the factorisation reads)
  std::array<std::array<Cols, kSingleHandles>, 2> Gc;
  Vector beta0 = -c.Gamma.template head<R>();
  Eigen::Matrix<Scalar, R, R> W = Eigen::Matrix<Scalar, R, R>::Zero();
  for (int slot = 0; slot < 2; ++slot) {
    const Endpoint& e = ends[static_cast<std::size_t>(slot)];
    if (e.child < 0) continue;  // ground
    const Node& x = *child[static_cast<std::size_t>(e.child)];
    const Rows J = c.J.template block<R, d>(0, 6 * slot);
    std::array<Cols, kSingleHandles>& G = Gc[static_cast<std::size_t>(e.child)];
    for (std::size_t h = 0; h < x.handles.size(); ++h)
      G[h].noalias() = x.Phi.template block<d, d>(static_cast<Eigen::Index>(h) * d, e.handle * d) * J.transpose();
    beta0.noalias() += J * x.b.template segment<d>(e.handle * d);
    W.noalias() += J * G[static_cast<std::size_t>(e.handle)];
  }

  // W = L D L^T in the rows' order while every pivot stays at least kRegularPivotRatio of the
  // largest so far (the rule of PivotedLdlt::factorizeRegular); otherwise the general form decides
  Eigen::Matrix<Scalar, R, R> L = Eigen::Matrix<Scalar, R, R>::Identity();
  Vector D;
  Scalar largest = 0, smallest = std::numeric_limits<Scalar>::infinity();
  for (int k = 0; k < R; ++k) {
    const Scalar dk = W(k, k);
    largest = std::max(largest, dk);
    smallest = std::min(smallest, dk);
    if (!(dk > 0 && smallest >= kRegularPivotRatio * largest)) return false;
    D(k) = dk;
    for (int i = k + 1; i < R; ++i) L(i, k) = W(i, k) / dk;
    // the Schur complement's lower triangle
    for (int j = k + 1; j < R; ++j)
      for (int i = j; i < R; ++i) W(i, j) -= W(i, k) * L(j, k);
  }

  // Y = G L^-T per new handle (G: the handle's rows of Gc), y0 = L^-1 beta_0: forward substitution
  const int nh = static_cast<int>(node.handles.size());
  for (int i = 0; i < nh; ++i) {
    const Endpoint& e = node.handle_in_child[static_cast<std::size_t>(i)];
    auto Y = node.Y.template middleRows<d>(i * d);
    Y = Gc[static_cast<std::size_t>(e.child)][static_cast<std::size_t>(e.handle)];
    for (int k = 1; k < R; ++k)
      for (int j = 0; j < k; ++j) Y.col(k) -= L(k, j) * Y.col(j);
  }
  Vector y0 = beta0;
  for (int k = 1; k < R; ++k)
    for (int j = 0; j < k; ++j) y0(k) -= L(k, j) * y0(j);
  // the new node's Phi and b: the children's, less Y D^-1 Y^T and Y D^-1 y0
  const Vector D_inverse = D.cwiseInverse();
  const Vector z0 = D_inverse.cwiseProduct(y0);
  for (int i = 0; i < nh; ++i) {
    const Endpoint& e = node.handle_in_child[static_cast<std::size_t>(i)];
    const Node& x = *child[static_cast<std::size_t>(e.child)];
    const Cols Yi = node.Y.template middleRows<d>(i * d);
    const Cols Yd = Yi * D_inverse.asDiagonal();
    node.b.template segment<d>(i * d).noalias() = x.b.template segment<d>(e.handle * d) - Yi * z0;
    for (int h = 0; h <= i; ++h) {
      const Endpoint& f = node.handle_in_child[static_cast<std::size_t>(h)];
      auto block = node.Phi.template block<d, d>(i * d, h * d);
      if (f.child == e.child) block = x.Phi.template block<d, d>(e.handle * d, f.handle * d);
      else block.setZero();
      block.noalias() -= Yd * node.Y.template middleRows<d>(h * d).transpose();
      if (h < i) node.Phi.template block<d, d>(h * d, i * d) = block.transpose();
    }
  }
  node.y0 = y0;
  node.LD.template topLeftCorner<R, R>() = L;
  node.LD.diagonal() = D;
  node.single = true;
  return true;
}

template <int d, int R>
void backSubstituteSingle(Node& node, std::vector<Node>& nodes, const Connection& c) {
  using Vector = Eigen::Matrix<Scalar, R, 1>;
  // lambda = -L^-T D^-1 (y0 + Y^T f)
  Vector lambda = node.y0;
  const int nh = static_cast<int>(node.handles.size());
  for (int h = 0; h < nh; ++h)
    lambda.noalias() += node.Y.template middleRows<d>(h * d).transpose() * node.f.template segment<d>(h * d);
  lambda = lambda.cwiseQuotient(node.LD.diagonal().template head<R>());
  for (int k = R - 2; k >= 0; --k)
    for (int i = k + 1; i < R; ++i) lambda(k) -= node.LD(i, k) * lambda(i);
  lambda = -lambda;
  node.lambda = lambda;
  // the children's handle forces: the node's on its handles, and J^T lambda of the connection
  for (const int child : node.children)
    if (child >= 0) {
      Node& x = nodes[static_cast<std::size_t>(child)];
      x.f.setZero();
    }
  for (int slot = 0; slot < 2; ++slot) {
    const Endpoint& e = node.ends[0][static_cast<std::size_t>(slot)];
    if (e.child < 0) continue;
    Node& x = nodes[static_cast<std::size_t>(node.children[static_cast<std::size_t>(e.child)])];
    x.f.template segment<d>(e.handle * d).noalias() += c.J.template block<R, d>(0, 6 * slot).transpose() * lambda;
  }
  for (int i = 0; i < nh; ++i) {
    const Endpoint& e = node.handle_in_child[static_cast<std::size_t>(i)];
    Node& x = nodes[static_cast<std::size_t>(node.children[static_cast<std::size_t>(e.child)])];
    x.f.template segment<d>(e.handle * d) += node.f.template segment<d>(i * d);
  }
}

}  // namespace

template <int d>
bool assembleSingleConnection(Node& node, const std::array<const Node*, 2>& child, const Connection& connection) {
  node.single = false;
  if (node.connections.size() != 1 || node.ends[0][0].child == node.ends[0][1].child) return false;
  for (const Node* x : child)
    if (x && static_cast<int>(x->handles.size()) > kSingleHandles) return false;
  switch (connection.rows) {
    case 1: return assembleSingle<d, 1>(node, child, connection);
    case 2: return assembleSingle<d, 2>(node, child, connection);
    case 3: return assembleSingle<d, 3>(node, child, connection);
    case 4: return assembleSingle<d, 4>(node, child, connection);
    case 5: return assembleSingle<d, 5>(node, child, connection);
    case 6: return assembleSingle<d, 6>(node, child, connection);
    default: return false;
  }
}

template <int d>
void backSubstituteSingleConnection(Node& node, std::vector<Node>& nodes, const Connection& connection) {
  switch (connection.rows) {
    case 1: backSubstituteSingle<d, 1>(node, nodes, connection); return;
    case 2: backSubstituteSingle<d, 2>(node, nodes, connection); return;
    case 3: backSubstituteSingle<d, 3>(node, nodes, connection); return;
    case 4: backSubstituteSingle<d, 4>(node, nodes, connection); return;
    case 5: backSubstituteSingle<d, 5>(node, nodes, connection); return;
    case 6: backSubstituteSingle<d, 6>(node, nodes, connection); return;
    default: LOOPDYN_ASSERT(false);
  }
}

template void bodyNode<3>(Node&, const Body&, const BodyMotion&, const VecX&);
template void bodyNode<6>(Node&, const Body&, const BodyMotion&, const VecX&);
template void bodyAccelerations<3>(const Node&, const Body&, const BodyMotion&, const VecX&, VecX&);
template void bodyAccelerations<6>(const Node&, const Body&, const BodyMotion&, const VecX&, VecX&);
template void assembleNode<3>(Node&, const std::array<const Node*, 2>&, const std::vector<Connection>&);
template void assembleNode<6>(Node&, const std::array<const Node*, 2>&, const std::vector<Connection>&);
template void backSubstituteNode<3>(Node&, std::vector<Node>&, const std::vector<Connection>&);
template void backSubstituteNode<6>(Node&, std::vector<Node>&, const std::vector<Connection>&);
template bool assembleSingleConnection<3>(Node&, const std::array<const Node*, 2>&, const Connection&);
template bool assembleSingleConnection<6>(Node&, const std::array<const Node*, 2>&, const Connection&);
template void backSubstituteSingleConnection<3>(Node&, std::vector<Node>&, const Connection&);
template void backSubstituteSingleConnection<6>(Node&, std::vector<Node>&, const Connection&);

}  // namespace loopdyn::dca_kernels
