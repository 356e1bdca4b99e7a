#include "loopdyn/dynamics/dca/dca.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <span>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "loopdyn/common/check.hpp"
#include "loopdyn/dynamics/kinetic_gram.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/constraint_equations.hpp"
#include "dca_node_kernels.hpp"

namespace loopdyn {

DivideAndConquer::DivideAndConquer(const Model& model, GroundConnections ground_connections, PhiStorage phi)
    : d_(model.vPerBody()), bodies_(model.nb()), phi_storage_(phi) {
  addConnections(model);
  // each node's lists (handles, connections, ...) are built here and laid out in arenas at the end
  Building b = assemblyNodes(model);
  placeConnections(b, ground_connections == GroundConnections::AboveTheirBody);
  locateEndpoints(b);
  orderChildrenFirst(b.ground);
  storeInPassOrder(b.lists);
  countSubtrees();
  for (const Force& force : model.forces()) force_bodies_.push_back(forceBodies(model, force));
  sizeNumbers();
  divideAmongThreads();
}

void DivideAndConquer::addConnections(const Model& model) {
  for (std::size_t j = 0; j < model.joints().size(); ++j) {
    const Joint& joint = model.joints()[j];
    Connection c;
    c.joint = static_cast<int>(j);
    c.row = joint.row;
    c.rows = joint.rows;
    c.bodies = {joint.first.body, joint.second.body};
    connections_.push_back(c);
  }
  for (std::size_t k = 0; k < model.drivers().size(); ++k) {
    const Driver& driver = model.drivers()[k];
    Connection c;
    c.driver = static_cast<int>(k);
    c.row = driver.row;
    c.rows = 1;
    c.bodies = {driver.first.body, driver.second.body};
    connections_.push_back(c);
  }
}

DivideAndConquer::Building DivideAndConquer::assemblyNodes(const Model& model) {
  const Topology& topology = model.topology();
  nodes_.resize(topology.nodes.size() + 1);
  Building b;
  b.lists.resize(nodes_.size());
  b.parent.assign(nodes_.size(), -1);
  b.leaf.assign(static_cast<std::size_t>(model.nb()), -1);
  b.grounded.assign(static_cast<std::size_t>(model.nb()), -1);
  b.ground = static_cast<int>(topology.nodes.size());
  for (std::size_t i = 0; i < topology.nodes.size(); ++i) {
    const AssemblyNode& a = topology.nodes[i];
    Node& n = nodes_[i];
    n.body = a.body;
    n.children = {a.first, a.second};
    b.parent[i] = a.parent < 0 ? b.ground : a.parent;
    if (a.first < 0) b.leaf[static_cast<std::size_t>(a.body)] = static_cast<int>(i);
  }
  nodes_[static_cast<std::size_t>(b.ground)].children = {topology.root, -1};
  LOOPDYN_CHECK(topology.root >= 0 || model.nb() == 0, "the model has no assembly tree");
  return b;
}

// A connection to ground needs only its body: ground does not move, whatever the forces (its Phi
// is zero), so it is assembled right above the body's leaf, in a node of its own with no second
// child, instead of at the complete assembly. That keeps the number of handles per node bounded
// (a ladder's N + 1 ground pivots would otherwise be handles of every node up to the root, and
// their W at ground a dense (2N + 2)-square matrix: measured 76 ms at N = 256).
int DivideAndConquer::groundedNode(Building& b, BodyIndex body) {
  int& g = b.grounded[static_cast<std::size_t>(body)];
  if (g >= 0) return g;
  const int l = b.leaf[static_cast<std::size_t>(body)];
  g = static_cast<int>(nodes_.size());
  Node wrapper;
  wrapper.children = {l, -1};
  const int above = b.parent[static_cast<std::size_t>(l)];
  for (int& child : nodes_[static_cast<std::size_t>(above)].children)
    if (child == l) child = g;
  nodes_.push_back(wrapper);
  b.lists.emplace_back();
  b.parent.push_back(above);
  b.parent[static_cast<std::size_t>(l)] = g;
  return g;
}

// each connection is assembled where its bodies first meet (a ground connection: above its body,
// as just said, or at the ground node); its bodies are handles of every node below that on their
// way up
void DivideAndConquer::placeConnections(Building& b, bool above_body) {
  for (const Connection& c : connections_)
    for (const BodyIndex body : c.bodies)
      if (above_body && body != kGround && (c.bodies[0] == kGround || c.bodies[1] == kGround)) groundedNode(b, body);
  const auto depthOf = [&](int n) {
    int depth = 0;
    for (; n >= 0 && n != b.ground; n = b.parent[static_cast<std::size_t>(n)]) ++depth;
    return depth;
  };
  for (std::size_t ci = 0; ci < connections_.size(); ++ci) {
    Connection& c = connections_[ci];
    int meet = b.ground;
    if (c.bodies[0] == kGround && c.bodies[1] == kGround) {
      meet = b.ground;
    } else if (c.bodies[0] == kGround || c.bodies[1] == kGround) {
      if (above_body) meet = b.grounded[static_cast<std::size_t>(c.bodies[c.bodies[0] == kGround ? 1 : 0])];
    } else {
      int x = b.leaf[static_cast<std::size_t>(c.bodies[0])], y = b.leaf[static_cast<std::size_t>(c.bodies[1])];
      int dx = depthOf(x), dy = depthOf(y);
      for (; dx > dy; --dx) x = b.parent[static_cast<std::size_t>(x)];
      for (; dy > dx; --dy) y = b.parent[static_cast<std::size_t>(y)];
      while (x != y) x = b.parent[static_cast<std::size_t>(x)], y = b.parent[static_cast<std::size_t>(y)];
      meet = x;
    }
    c.node = meet;
    Node& at = nodes_[static_cast<std::size_t>(meet)];
    b.lists[static_cast<std::size_t>(meet)].connections.push_back(static_cast<int>(ci));
    b.lists[static_cast<std::size_t>(meet)].row_offset.push_back(at.rows);
    at.rows += c.rows;
    for (const BodyIndex body : c.bodies) {
      if (body == kGround) continue;
      for (int n = b.leaf[static_cast<std::size_t>(body)]; n != meet; n = b.parent[static_cast<std::size_t>(n)]) {
        std::vector<BodyIndex>& handles = b.lists[static_cast<std::size_t>(n)].handles;
        if (std::find(handles.begin(), handles.end(), body) == handles.end()) handles.push_back(body);
      }
    }
  }
}

void DivideAndConquer::locateEndpoints(Building& b) {
  const auto endpointOf = [&](const Node& n, BodyIndex body) {
    for (int side = 0; side < 2; ++side) {
      if (n.children[static_cast<std::size_t>(side)] < 0) continue;
      const std::vector<BodyIndex>& h = b.lists[static_cast<std::size_t>(n.children[static_cast<std::size_t>(side)])].handles;
      const auto it = std::find(h.begin(), h.end(), body);
      if (it != h.end()) return Endpoint{side, static_cast<int>(it - h.begin())};
    }
    return Endpoint{-1, -1};
  };
  for (std::size_t k = 0; k < nodes_.size(); ++k) {
    const Node& n = nodes_[k];
    NodeLists& l = b.lists[k];
    if (n.children[0] < 0) continue;  // a body
    for (const BodyIndex h : l.handles) l.handle_in_child.push_back(endpointOf(n, h));
    for (const int ci : l.connections) {
      const Connection& c = connections_[static_cast<std::size_t>(ci)];
      std::array<Endpoint, 2> ends{};
      for (int s = 0; s < 2; ++s)
        ends[static_cast<std::size_t>(s)] =
            c.bodies[static_cast<std::size_t>(s)] == kGround ? Endpoint{-1, -1} : endpointOf(n, c.bodies[static_cast<std::size_t>(s)]);
      l.ends.push_back(ends);
    }
  }
}

void DivideAndConquer::orderChildrenFirst(int ground) {
  std::vector<int> stack{ground};
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    order_.push_back(n);
    for (const int child : nodes_[static_cast<std::size_t>(n)].children)
      if (child >= 0) stack.push_back(child);
  }
  std::reverse(order_.begin(), order_.end());
}

// each subtree is a contiguous run of order_ ending at its root (a reversed pre-order), and its
// number of bodies decides whether its passes are shared out among threads
void DivideAndConquer::countSubtrees() {
  for (std::size_t k = 0; k < order_.size(); ++k) {
    Node& node = nodes_[static_cast<std::size_t>(order_[k])];
    node.last_in_order = static_cast<int>(k);
    node.first_in_order = static_cast<int>(k);
    node.bodies = node.children[0] < 0 ? 1 : 0;
    for (const int child : node.children) {
      if (child < 0) continue;
      const Node& c = nodes_[static_cast<std::size_t>(child)];
      node.first_in_order = std::min(node.first_in_order, c.first_in_order);
      node.bodies += c.bodies;
    }
  }
}

void DivideAndConquer::storeInPassOrder(std::vector<NodeLists>& lists) {
  // the nodes renumbered in pass order
  {
    std::vector<int> position(nodes_.size());
    for (std::size_t k = 0; k < order_.size(); ++k) position[static_cast<std::size_t>(order_[k])] = static_cast<int>(k);
    std::vector<Node> sorted(nodes_.size());
    std::vector<NodeLists> sorted_lists(nodes_.size());
    for (std::size_t k = 0; k < order_.size(); ++k) {
      sorted[k] = std::move(nodes_[static_cast<std::size_t>(order_[k])]);
      sorted_lists[k] = std::move(lists[static_cast<std::size_t>(order_[k])]);
    }
    lists = std::move(sorted_lists);
    for (Node& n : sorted)
      for (int& child : n.children)
        if (child >= 0) child = position[static_cast<std::size_t>(child)];
    for (Connection& c : connections_) c.node = position[static_cast<std::size_t>(c.node)];
    nodes_ = std::move(sorted);
    std::iota(order_.begin(), order_.end(), 0);
  }
  // the connections renumbered in the order the passes meet them (node after node): the main
  // pass writes their rows and the back-substitution reads them in that order
  {
    std::vector<Connection> sorted;
    sorted.reserve(connections_.size());
    for (std::size_t k = 0; k < nodes_.size(); ++k)
      for (int& ci : lists[k].connections) {
        sorted.push_back(connections_[static_cast<std::size_t>(ci)]);
        sorted.back().node = static_cast<int>(k);
        ci = static_cast<int>(sorted.size()) - 1;
      }
    LOOPDYN_ASSERT(sorted.size() == connections_.size());
    connections_ = std::move(sorted);
  }
  // their lists in arenas, node after node in that order
  {
    std::size_t handles = 0, connections = 0;
    for (const NodeLists& l : lists) handles += l.handles.size(), connections += l.connections.size();
    handle_arena_.reserve(handles);
    endpoint_arena_.reserve(handles);
    index_arena_.reserve(2 * connections);
    ends_arena_.reserve(connections);
    for (std::size_t k = 0; k < nodes_.size(); ++k) {
      const NodeLists& l = lists[k];
      Node& n = nodes_[k];
      const auto place = [](auto& arena, const auto& list) {
        const std::size_t at = arena.size();
        arena.insert(arena.end(), list.begin(), list.end());
        return std::span(arena.data() + at, list.size());
      };
      n.handles = place(handle_arena_, l.handles);
      n.handle_in_child = place(endpoint_arena_, l.handle_in_child);
      n.connections = place(index_arena_, l.connections);
      n.row_offset = place(index_arena_, l.row_offset);
      n.ends = place(ends_arena_, l.ends);
    }
  }
}

namespace {

/// Doubles of a node's array of `size` entries: each array starts on 16 bytes, as the heap's
/// did, so that the packets of two doubles load from one cache line where they can.
Eigen::Index padded(Eigen::Index size) { return size + size % 2; }

/// The thread's stack of transient Phi and b (DivideAndConquer::mainPassAt). One per thread: a
/// thread runs a subtree's nodes in order and leaves the stack as it found it.
struct TransientStack {
  std::vector<Scalar> data;
  Eigen::Index top = 0;
};
thread_local TransientStack transient_stack;

}  // namespace

void DivideAndConquer::sizeNumbers() {
  // a node's Phi and b are read by its parent's assembly alone: where PhiStorage says so, those
  // inside a subtree that one thread assembles in order (the parent below the threads' grain)
  // live on that thread's stack (mainPassAt), the others in storage_
  const auto handleRows = [&](const Node& n) { return static_cast<Eigen::Index>(n.handles.size()) * d_; };
  const auto phiAndB = [&](const Node& n) { return padded(handleRows(n) * handleRows(n)) + padded(handleRows(n)); };
  bool stacked = phi_storage_ == PhiStorage::OnStack;
  if (phi_storage_ == PhiStorage::Automatic) {
    std::size_t bytes = 0;
    for (const Node& n : nodes_) bytes += static_cast<std::size_t>(phiAndB(n)) * sizeof(Scalar);
    stacked = bytes > kStackedPhiBytes;
  }
  std::vector<int> parent(nodes_.size(), -1);
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    for (const int child : nodes_[n].children)
      if (child >= 0) parent[static_cast<std::size_t>(child)] = static_cast<int>(n);
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    nodes_[n].transient = stacked && parent[n] >= 0 && nodes_[static_cast<std::size_t>(parent[n])].bodies < kParallelBodies;
  stacked_ = stacked;

  // every node's other numbers in one buffer, node after node in pass order: both passes sweep it
  // once, and no node allocates (left to the heap, the nodes' matrices lay wherever earlier work
  // had freed memory: the same call 10 % slower in a process that had done other things first)
  std::size_t total = 0;
  for (const Node& n : nodes_) {
    const Eigen::Index h = handleRows(n), r = n.rows;
    total += static_cast<std::size_t>((n.transient ? 0 : phiAndB(n)) + padded(h) + padded(h * r) + 2 * padded(r) +
                                      padded(r * r));
  }
  storage_.assign(total, 0.0);
  Scalar* next = storage_.data();
  const auto take = [&](Eigen::Index size) {
    Scalar* at = next;
    next += padded(size);
    return at;
  };
  for (Node& n : nodes_) {
    const Eigen::Index h = handleRows(n), r = n.rows;
    // (placement new: how an Eigen::Map is pointed at other memory)
    if (!n.transient) {
      new (&n.Phi) Node::MatrixView(take(h * h), h, h);
      new (&n.b) Node::VectorView(take(h), h);
    }
    new (&n.f) Node::VectorView(take(h), h);
    new (&n.Y) Node::MatrixView(take(h * r), h, r);
    new (&n.y0) Node::VectorView(take(r), r);
    new (&n.lambda) Node::VectorView(take(r), r);
    new (&n.LD) Node::MatrixView(take(r * r), r, r);
  }

  // the stack at its highest: the passes' order, each node's entry above its children's until
  // it moves down over them
  Eigen::Index top = 0, highest = 0;
  std::vector<Eigen::Index> at(nodes_.size(), 0);
  for (const int n : order_) {
    const Node& node = nodes_[static_cast<std::size_t>(n)];
    Eigen::Index below = top;
    for (const int child : node.children)
      if (child >= 0 && nodes_[static_cast<std::size_t>(child)].transient) below = std::min(below, at[static_cast<std::size_t>(child)]);
    if (node.transient) {
      highest = std::max(highest, top + phiAndB(node));
      at[static_cast<std::size_t>(n)] = below;
      top = below + phiAndB(node);
    } else {
      top = below;
    }
  }
  stack_need_ = static_cast<std::size_t>(highest);
}

struct DivideAndConquer::Parallel {
  explicit Parallel(int threads) : arena(threads) {}
  tbb::task_arena arena;
};

void DivideAndConquer::ParallelDeleter::operator()(Parallel* p) const { delete p; }

void DivideAndConquer::execute(FunctionRef<void()> f) {
  if (parallel_) parallel_->arena.execute(f);
  else f();
}

void DivideAndConquer::forEachChunk(int count, int grain, FunctionRef<void(int, int)> chunk) {
  parallel_->arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<int>(0, count, grain),
                      [&](const tbb::blocked_range<int>& range) { chunk(range.begin(), range.end()); });
  });
}

void DivideAndConquer::forEachShare(FunctionRef<void(const Share&)> f) {
  const int count = static_cast<int>(shares_.size());
  if (!parallel_ || count < 2) {
    for (const Share& share : shares_) f(share);
    return;
  }
  parallel_->arena.execute([&] {
    for (int s = 0; s < count; ++s) taken_[s].store(false, std::memory_order_relaxed);
    // one task a share: a task takes its thread's own share (the arena's slot), or, where that
    // one is taken (a thread that joined late), the first one left
    tbb::parallel_for(
        0, count,
        [&](int) {
          int s = tbb::this_task_arena::current_thread_index();
          if (s < 0 || s >= count || taken_[s].exchange(true))
            for (s = 0; taken_[s].exchange(true); ++s) {
            }
          f(shares_[static_cast<std::size_t>(s)]);
        },
        tbb::static_partitioner());
  });
}

void DivideAndConquer::setThreads(int threads) {
  LOOPDYN_CHECK(threads >= 1, "threads: expected at least 1, got ", threads);
  if (threads == threads_) return;
  threads_ = threads;
  parallel_.reset(threads > 1 ? new Parallel(threads) : nullptr);
  divideAmongThreads();
}

void DivideAndConquer::divideAmongThreads() {
  const std::size_t count = static_cast<std::size_t>(threads_);
  shares_.assign(count, Share{});
  top_.clear();
  taken_ = std::make_unique<std::atomic<bool>[]>(count);
  std::vector<int> parent(nodes_.size(), -1);
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    for (const int child : nodes_[n].children)
      if (child >= 0) parent[static_cast<std::size_t>(child)] = static_cast<int>(n);
  // the pieces never split: subtrees of fewer than kParallelBodies bodies whose parent has more
  // (or the whole tree, if it is that small); `inside`: the nodes in one
  const auto bodiesOf = [&](int n) { return nodes_[static_cast<std::size_t>(n)].bodies; };
  const auto isPiece = [&](int n) {
    const int up = parent[static_cast<std::size_t>(n)];
    return bodiesOf(n) < kParallelBodies && (up < 0 || bodiesOf(up) >= kParallelBodies);
  };
  std::vector<char> inside(nodes_.size(), 0);
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const int up = parent[static_cast<std::size_t>(*it)];
    inside[static_cast<std::size_t>(*it)] = isPiece(*it) || (up >= 0 && inside[static_cast<std::size_t>(up)]);
  }
  // the pieces dealt out in pass order to contiguous shares by their bodies (a piece to the
  // share its middle body falls in); a node above them is its children's share if they have
  // one and the same, and a top node (-1) otherwise
  std::vector<int> share(nodes_.size(), -1);
  const long total = std::max(1, bodiesOf(order_.back()));
  long before = 0;
  for (const int n : order_) {
    const Node& node = nodes_[static_cast<std::size_t>(n)];
    if (isPiece(n)) {
      const long middle = 2 * before + node.bodies;
      const int s = static_cast<int>(std::min<long>(static_cast<long>(count) - 1, middle * static_cast<long>(count) / (2 * total)));
      for (int k = node.first_in_order; k <= node.last_in_order; ++k) share[static_cast<std::size_t>(order_[static_cast<std::size_t>(k)])] = s;
      before += node.bodies;
    } else if (!inside[static_cast<std::size_t>(n)]) {
      int s = -2;  // (no child yet)
      for (const int child : node.children)
        if (child >= 0) s = s == -2 || s == share[static_cast<std::size_t>(child)] ? share[static_cast<std::size_t>(child)] : -1;
      share[static_cast<std::size_t>(n)] = std::max(s, -1);
    }
  }
  // each share's subtrees (its nodes whose parent is a top node, or the root), their bodies, and
  // the force elements acting on them
  body_share_.assign(static_cast<std::size_t>(bodies_), 0);
  for (std::size_t s = 0; s < count; ++s) shares_[s].index = static_cast<int>(s);
  for (const int n : order_) {
    const int s = share[static_cast<std::size_t>(n)];
    const int up = parent[static_cast<std::size_t>(n)];
    if (s < 0) {
      top_.push_back(n);
    } else if (up < 0 || share[static_cast<std::size_t>(up)] < 0) {
      const Node& node = nodes_[static_cast<std::size_t>(n)];
      Share& to = shares_[static_cast<std::size_t>(s)];
      to.subtrees.push_back({node.first_in_order, node.last_in_order});
      for (int k = node.first_in_order; k <= node.last_in_order; ++k) {
        const Node& leaf = nodes_[static_cast<std::size_t>(order_[static_cast<std::size_t>(k)])];
        if (leaf.children[0] < 0 && leaf.body != kGround) {
          to.bodies.push_back(leaf.body);
          body_share_[static_cast<std::size_t>(leaf.body)] = s;
        }
      }
    }
  }
  for (Share& share : shares_) std::sort(share.bodies.begin(), share.bodies.end());
  for (std::size_t k = 0; k < force_bodies_.size(); ++k) {
    std::array<int, 2> on{-1, -1};
    for (int e = 0; e < 2; ++e)
      if (const BodyIndex b = force_bodies_[k][static_cast<std::size_t>(e)]; b != kGround) on[static_cast<std::size_t>(e)] = body_share_[static_cast<std::size_t>(b)];
    for (int e = 0; e < 2; ++e)
      if (on[static_cast<std::size_t>(e)] >= 0 && (e == 0 || on[1] != on[0]))
        shares_[static_cast<std::size_t>(on[static_cast<std::size_t>(e)])].forces.push_back(static_cast<int>(k));
  }
}

void DivideAndConquer::forceElementForces(const Model& model, const std::vector<BodyMotion>& motion, Scalar t, VecX& F,
                                          VecX& F_nc) {
  if (!parallel_) {
    loopdyn::forceElementForces(model, motion, t, F, F_nc);
    return;
  }
  forEachShare([&](const Share& share) {
    loopdyn::forceElementForces(model, motion, t, share.forces, body_share_, share.index, F, F_nc);
  });
}

template <int D>
void DivideAndConquer::evaluateConnectionsIn(const Node& node) {
  // the connections' scaled rows and Gamma (paper 001, eqs. (8)-(9)), pair by pair, from the
  // model's own equations in its dimension's jets (planar ones: 3 columns a body)
  constexpr int nvb = kJetBodyColumns<D>;
  const Pass& p = pass_;
  std::array<BasicJet<false, D>, 6> jets;
  for (const int ci : node.connections) {
    Connection& c = connections_[static_cast<std::size_t>(ci)];
    const std::span<BasicJet<false, D>> out(jets.data(), static_cast<std::size_t>(c.rows));
    const BodyMotion& m1 = motionOf(*p.motion, c.bodies[0]);
    const BodyMotion& m2 = motionOf(*p.motion, c.bodies[1]);
    if (c.joint >= 0)
      jointEquations<false, D>(p.model->joints()[static_cast<std::size_t>(c.joint)], m1, m2, out);
    else
      out[0] = driverEquation<false, D>(p.model->drivers()[static_cast<std::size_t>(c.driver)], m1, m2, p.t);
    for (int r = 0; r < c.rows; ++r) {
      const Scalar s = p.scaling->row(c.row + r);
      const BasicJet<false, D>& jet = out[static_cast<std::size_t>(r)];
      c.J.row(r).template head<nvb>() = s * jet.grad.template head<nvb>();
      c.J.row(r).template segment<nvb>(6) = s * jet.grad.template tail<nvb>();
      if (p.velocity_level) {
        // C V = -Phi_t: the jet's dot less its part along the bodies' velocities
        Scalar along = 0;
        for (int slot = 0; slot < 2; ++slot) {
          const BodyMotion& m = slot == 0 ? m1 : m2;
          const Scalar* g = jet.grad.data() + nvb * slot;
          if constexpr (D == 2) along += g[0] * m.v.x() + g[1] * m.v.y() + g[2] * m.w.z();
          else along += Eigen::Map<const Vec3>(g).dot(m.v) + Eigen::Map<const Vec3>(g + 3).dot(m.w);
        }
        c.Gamma(r) = -s * (jet.dot - along);
      } else {
        c.Gamma(r) = s * (-jet.ddot + (p.gamma_shift->size() > 0 ? (*p.gamma_shift)(c.row + r) : 0));
      }
    }
  }
}

void DivideAndConquer::evaluateConnections(const Node& node) {
  if (d_ == 3) evaluateConnectionsIn<2>(node);
  else evaluateConnectionsIn<3>(node);
}

void DivideAndConquer::mainPassAt(int n) {
  Node& node = nodes_[static_cast<std::size_t>(n)];
  if (!stacked_) {
    nodeKernel(node);
    return;
  }
  // a transient node's Phi and b go on the stack above its children's, which its assembly reads,
  // and then move down over them (sizeNumbers)
  TransientStack& stack = transient_stack;
  Eigen::Index below = stack.top;
  for (const int child : node.children)
    if (child >= 0 && nodes_[static_cast<std::size_t>(child)].transient)
      below = std::min(below, nodes_[static_cast<std::size_t>(child)].stack_at);
  const Eigen::Index h = static_cast<Eigen::Index>(node.handles.size()) * d_;
  const Eigen::Index entry = padded(h * h) + padded(h);
  const auto place = [&](Eigen::Index at) {
    new (&node.Phi) Node::MatrixView(stack.data.data() + at, h, h);
    new (&node.b) Node::VectorView(stack.data.data() + at + padded(h * h), h);
    node.stack_at = at;
  };
  if (node.transient) place(stack.top);
  nodeKernel(node);
  if (!node.transient) {
    stack.top = below;  // (its children's entries, if any, are consumed)
    return;
  }
  if (node.stack_at != below) {
    std::memmove(stack.data.data() + below, stack.data.data() + node.stack_at, static_cast<std::size_t>(entry) * sizeof(Scalar));
    place(below);
  }
  stack.top = below + entry;
}

void DivideAndConquer::nodeKernel(Node& node) {
  if (node.children[0] >= 0) {
    evaluateConnections(node);
    assemble(node);
    return;
  }
  // a body (dca_node_kernels.hpp)
  const Body& body = pass_.model->bodies()[static_cast<std::size_t>(node.body)];
  const BodyMotion& m = (*pass_.motion)[static_cast<std::size_t>(node.body)];
  if (d_ == 3) dca_kernels::bodyNode<3>(node, body, m, *pass_.F);
  else dca_kernels::bodyNode<6>(node, body, m, *pass_.F);
}

void DivideAndConquer::reserveStack() const {
  if (!stacked_) return;
  TransientStack& stack = transient_stack;
  LOOPDYN_ASSERT(stack.top == 0);
  if (stack.data.size() < stack_need_) stack.data.resize(stack_need_);
}

void DivideAndConquer::backSubstitutionAt(int n) {
  Node& node = nodes_[static_cast<std::size_t>(n)];
  if (node.children[0] >= 0) {
    backSubstitute(node);
    Eigen::Index k = 0;
    for (const int ci : node.connections) {
      const Connection& c = connections_[static_cast<std::size_t>(ci)];
      // M a = F + J^T lambda_dca = F - C^T lambda: lambda = -diag(row) lambda_dca
      for (int r = 0; r < c.rows; ++r) (*pass_.lambda)(c.row + r) = -pass_.scaling->row(c.row + r) * node.lambda(k + r);
      k += c.rows;
    }
    return;
  }
  const Body& body = pass_.model->bodies()[static_cast<std::size_t>(node.body)];
  const BodyMotion& m = (*pass_.motion)[static_cast<std::size_t>(node.body)];
  if (d_ == 3) dca_kernels::bodyAccelerations<3>(node, body, m, *pass_.F, *pass_.A);
  else dca_kernels::bodyAccelerations<6>(node, body, m, *pass_.F, *pass_.A);
}

int DivideAndConquer::solve(const Model& model, const std::vector<BodyMotion>& motion, const VecX& F, Scalar t,
                            const ConstraintScaling& scaling, const VecX& gamma_shift, VecX& A, VecX& lambda) {
  pass_ = Pass{&model, &motion, &F, t, &scaling, &gamma_shift, &A, &lambda, false};
  return run();
}

int DivideAndConquer::solveVelocities(const Model& model, const std::vector<BodyMotion>& motion, const VecX& P, Scalar t,
                                      const ConstraintScaling& scaling, VecX& V, VecX& sigma) {
  static const VecX no_shift;
  pass_ = Pass{&model, &motion, &P, t, &scaling, &no_shift, &V, &sigma, true};
  return run();
}

int DivideAndConquer::run() {
  const Model& model = *pass_.model;
  VecX& A = *pass_.A;
  VecX& lambda = *pass_.lambda;
  A.resize(model.nv());
  lambda.setZero(model.nc());
  if (parallel_) {
    // the same node kernels in the same order within each node: results identical to the last bit
    parallel_->arena.execute([&] {
      forEachShare([&](const Share& share) {
        reserveStack();
        for (const auto& [first, last] : share.subtrees)
          for (int k = first; k <= last; ++k) mainPassAt(order_[static_cast<std::size_t>(k)]);
      });
      for (const int n : top_) mainPassAt(n);
      for (auto it = top_.rbegin(); it != top_.rend(); ++it) backSubstitutionAt(*it);
      forEachShare([&](const Share& share) {
        for (const auto& [first, last] : share.subtrees)
          for (int k = last; k >= first; --k) backSubstitutionAt(order_[static_cast<std::size_t>(k)]);
      });
    });
  } else {
    reserveStack();
    for (const int n : order_) mainPassAt(n);
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) backSubstitutionAt(*it);
  }
  int dependent = 0;
  for (const Node& node : nodes_)
    if (node.children[0] >= 0 && !node.single) dependent += node.rows - node.W.rank();
  if (!ceilings_ && generic_dependent_ >= 0 && dependent == generic_dependent_) {
    for (Node& node : nodes_) node.rank_ceiling = node.children[0] >= 0 && !node.single ? node.W.rank() : node.rows;
    ceilings_ = true;
  }
  return dependent;
}

void DivideAndConquer::followGenericRank(int dependent) {
  generic_dependent_ = dependent;
  ceilings_ = false;
  for (Node& node : nodes_) node.rank_ceiling = -1;
}

void DivideAndConquer::assemble(Node& node) {
  std::array<const Node*, 2> child{nullptr, nullptr};
  for (int s = 0; s < 2; ++s)
    if (node.children[static_cast<std::size_t>(s)] >= 0) child[static_cast<std::size_t>(s)] = &nodes_[static_cast<std::size_t>(node.children[static_cast<std::size_t>(s)])];
  // the single-connection kernel where it applies (dca_node_kernels.hpp), the general one otherwise
  // (a node with a ceiling below its rows: the general kernel, which pivots)
  const bool capped = node.rank_ceiling >= 0 && node.rank_ceiling < node.rows;
  const Connection* single = single_kernels_ && !capped && node.connections.size() == 1 ? &connections_[static_cast<std::size_t>(node.connections[0])] : nullptr;
  if (d_ == 3) {
    if (!single || !dca_kernels::assembleSingleConnection<3>(node, child, *single)) dca_kernels::assembleNode<3>(node, child, connections_);
  } else {
    if (!single || !dca_kernels::assembleSingleConnection<6>(node, child, *single)) dca_kernels::assembleNode<6>(node, child, connections_);
  }
}

void DivideAndConquer::backSubstitute(Node& node) {
  if (node.single) {
    const Connection& c = connections_[static_cast<std::size_t>(node.connections[0])];
    if (d_ == 3) dca_kernels::backSubstituteSingleConnection<3>(node, nodes_, c);
    else dca_kernels::backSubstituteSingleConnection<6>(node, nodes_, c);
    return;
  }
  if (d_ == 3) dca_kernels::backSubstituteNode<3>(node, nodes_, connections_);
  else dca_kernels::backSubstituteNode<6>(node, nodes_, connections_);
}

void forwardDynamicsByDca(DivideAndConquer& dca, const TreeKinematics& tree, const Model& model, DynamicsWorkspace& ws,
                          const State& x, const VecX& gamma_shift) {
  // the bodies' motions and loads, each on the thread whose share of the tree holds the body (a
  // sixth of a chain's call, which would otherwise cap two threads near 1.7x)
  ws.F.resize(model.nv());
  ws.F_nc.resize(model.nv());
  ws.a_r.resize(tree.nv());
  dca.execute([&] {
    dca.forEachBody([&](BodyIndex b) {
      ws.kin.motion[static_cast<std::size_t>(b)] = bodyMotion(model, x.q, x.v, b);
      bodyForces(model, ws.kin.motion, b, ws.F, ws.F_nc);
    });
    dca.forceElementForces(model, ws.kin.motion, x.t, ws.F, ws.F_nc);
    dca.solve(model, ws.kin.motion, ws.F, x.t, ws.scaling, gamma_shift, ws.a, ws.lambda);
    if (!ws.a.allFinite()) return;  // (the simulation names the bodies)
    dca.forEachBody([&](BodyIndex b) { tree.jointAccelerations(x.q_r, x.v_r, ws.kin.motion, ws.a, ws.a_r, b, b + 1); });
  });
}

std::unique_ptr<FormulationData> DcaFormulation::makeData(const Model& model) const {
  auto data = std::make_unique<Data>(model);
  data->equations = coordinateEquations(model, true);
  data->dca.setThreads(threads_);
  return data;
}

void DcaFormulation::forwardDynamics(const Model& model, DynamicsWorkspace& ws, const State& x,
                                     const VecX& gamma_shift) const {
  forwardDynamicsByDca(dataAs<Data>(model, ws).dca, tree_, model, ws, x, gamma_shift);
}

Problem DcaFormulation::begin(const Model& model, DynamicsWorkspace& ws, const State& x, Eigen::Ref<VecX> u) const {
  Data& d = dataAs<Data>(model, ws);
  d.dca.followGenericRank(d.settings.generic_rank < 0 ? -1 : model.nc() - d.settings.generic_rank);
  return JointCoordinateFormulation::begin(model, ws, x, u);
}

Problem DcaFormulation::solveAt(const Model& model, DynamicsWorkspace& ws, const State& x, const Evaluation&) const {
  const Baumgarte& baumgarte = dataAs<Data>(model, ws).settings.baumgarte;
  // the dense constraint evaluation only where something reads it: Baumgarte's terms, the
  // drivers' power lambda^T b (scleronomic rows have b = 0 at any state); every multiplier comes
  // from the assembly, and the reactions from them without C (kinematics/pair_wrench.hpp)
  const bool stabilized = baumgarte.alpha != 0 || baumgarte.beta != 0;
  if (stabilized || !model.drivers().empty()) evaluateConstraints(model, ws.kin, x);
  // Baumgarte's terms, when on, as the absolute formulations add them (formulation.hpp)
  ws.Gamma.setZero(0);
  if (stabilized) {
    stabilizedGamma(model, ws, x, baumgarte);
    ws.Gamma -= ws.kin.Gamma;
  }
  forwardDynamics(model, ws, x, ws.Gamma);
  return {};
}

}  // namespace loopdyn
