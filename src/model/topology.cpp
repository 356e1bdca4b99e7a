#include "loopdyn/model/topology_builder.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <utility>

namespace loopdyn {

bool jointCanBeTreeJoint(JointType type) { return type != JointType::Distance && type != JointType::KnifeEdge; }

JointCoordinateCount jointCoordinateCount(JointType type, int dimension) {
  switch (type) {
    case JointType::Revolute:
    case JointType::Prismatic: return {1, 1};
    case JointType::Cylindrical:
    case JointType::Universal: return {2, 2};
    case JointType::Spherical: return dimension == 2 ? JointCoordinateCount{1, 1} : JointCoordinateCount{4, 3};
    case JointType::Planar: return {3, 3};
    case JointType::Fixed:
    case JointType::Distance:
    case JointType::KnifeEdge: return {0, 0};
  }
  return {};
}

JointCoordinateCount freeJointCoordinateCount(int dimension) {
  return dimension == 2 ? JointCoordinateCount{3, 3} : JointCoordinateCount{7, 6};
}

int Topology::floatingBodies() const {
  return static_cast<int>(std::count_if(links.begin(), links.end(), [](const TreeLink& l) { return l.joint < 0; }));
}

int Topology::assemblyHeight() const {
  int height = 0;
  for (const AssemblyNode& node : nodes) {
    if (node.body == kGround) continue;
    int h = 1;
    for (int k = node.parent; k >= 0; k = nodes[static_cast<std::size_t>(k)].parent) ++h;
    height = std::max(height, h);
  }
  return height;
}

namespace {

/// Disjoint sets over graph nodes: 0 is ground, body b is b + 1.
class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(static_cast<std::size_t>(n)) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int a) {
    while (parent_[static_cast<std::size_t>(a)] != a) a = parent_[static_cast<std::size_t>(a)] = parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(a)])];
    return a;
  }
  /// False when a and b were already joined (the edge would close a loop).
  bool unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);  // ground's set keeps root 0
    return true;
  }

 private:
  std::vector<int> parent_;
};

int node(BodyIndex b) { return b + 1; }
std::size_t at(BodyIndex b) { return static_cast<std::size_t>(b); }

/// The joint's other end seen from body b.
BodyIndex otherEnd(const TopologyJoint& j, BodyIndex b) { return j.body1 == b ? j.body2 : j.body1; }

class Builder {
 public:
  Builder(int nb, int dimension, const std::vector<TopologyJoint>& joints, const std::vector<std::string>& body_names,
          std::vector<TopologyProblem>& problems)
      : nb_(nb), dimension_(dimension), joints_(joints), names_(body_names), problems_(problems) {}

  Topology build() {
    t_.roles.assign(joints_.size(), JointRole::Constraint);
    t_.links.assign(at(nb_), TreeLink{});
    checkRequests();
    chooseTreeJoints();
    orientTree();
    countLoops();
    if (nb_ > 0) buildAssemblyTree();
    return std::move(t_);
  }

 private:
  bool eligible(std::size_t j) const {
    return jointCanBeTreeJoint(joints_[j].type) && joints_[j].body1 != joints_[j].body2;
  }
  const std::string& name(BodyIndex b) const {
    static const std::string ground = "ground";
    return b == kGround ? ground : names_[at(b)];
  }

  /// One more problem: what is wrong with joint j (built in place: GCC 12 at -O3 warns, falsely, of
  /// -Warray-bounds when a brace-initialised problem with a long literal is moved into the vector).
  void addProblem(std::size_t j, std::string message) {
    TopologyProblem& problem = problems_.emplace_back();
    problem.joint = static_cast<int>(j);
    problem.message = std::move(message);
  }

  /// `cut: false` on a joint that cannot be a tree joint; `cut: true` that disconnects bodies.
  void checkRequests() {
    UnionFind kept(nb_ + 1);
    for (std::size_t j = 0; j < joints_.size(); ++j)
      if (eligible(j) && joints_[j].cut != std::optional<bool>(true)) kept.unite(node(joints_[j].body1), node(joints_[j].body2));
    for (std::size_t j = 0; j < joints_.size(); ++j) {
      const TopologyJoint& jt = joints_[j];
      if (jt.cut == std::optional<bool>(false) && !eligible(j))
        addProblem(j, "a " + std::string(jointTypeName(jt.type)) +
                          " joint has no motion of its own to be a tree joint (cut: false); it is always a constraint");
      if (jt.cut == std::optional<bool>(true) && eligible(j) && kept.find(node(jt.body1)) != kept.find(node(jt.body2))) {
        // the side that the cut separates from ground (or, between floating bodies, the second)
        const BodyIndex lost = kept.find(node(jt.body1)) == kept.find(node(kGround)) ? jt.body2 : jt.body1;
        addProblem(j, "cutting it (cut: true) disconnects the tree: body '" + name(lost) +
                          "' would be joined to the rest only through cut joints; cut another joint of its loop, or none");
      }
    }
  }

  /// Kruskal's algorithm with breadth-first priority: joints forced into the tree first, then
  /// the others by the distance of their nearer end from ground (over joints not forced out),
  /// then in file order. Without requests this is the breadth-first spanning tree from ground.
  void chooseTreeJoints() {
    std::vector<std::vector<std::size_t>> adjacency(at(nb_ + 1));
    for (std::size_t j = 0; j < joints_.size(); ++j) {
      if (!eligible(j) || joints_[j].cut == std::optional<bool>(true)) continue;
      adjacency[static_cast<std::size_t>(node(joints_[j].body1))].push_back(j);
      adjacency[static_cast<std::size_t>(node(joints_[j].body2))].push_back(j);
    }
    constexpr int kUnreached = 1 << 30;
    std::vector<int> distance(at(nb_ + 1), kUnreached);
    std::queue<int> queue;
    distance[0] = 0;
    queue.push(0);
    while (!queue.empty()) {
      const int a = queue.front();
      queue.pop();
      for (std::size_t j : adjacency[static_cast<std::size_t>(a)]) {
        const int b = node(otherEnd(joints_[j], a - 1));
        if (distance[static_cast<std::size_t>(b)] == kUnreached) {
          distance[static_cast<std::size_t>(b)] = distance[static_cast<std::size_t>(a)] + 1;
          queue.push(b);
        }
      }
    }
    auto nearer = [&](std::size_t j) {
      return std::min(distance[static_cast<std::size_t>(node(joints_[j].body1))], distance[static_cast<std::size_t>(node(joints_[j].body2))]);
    };
    std::vector<std::size_t> candidates;
    for (std::size_t j = 0; j < joints_.size(); ++j)
      if (eligible(j) && joints_[j].cut != std::optional<bool>(true)) candidates.push_back(j);
    std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
      const bool fa = joints_[a].cut == std::optional<bool>(false), fb = joints_[b].cut == std::optional<bool>(false);
      if (fa != fb) return fa;
      return nearer(a) < nearer(b);
    });
    UnionFind tree(nb_ + 1);
    for (std::size_t j : candidates) {
      if (tree.unite(node(joints_[j].body1), node(joints_[j].body2))) {
        t_.roles[j] = JointRole::Tree;
      } else {
        t_.roles[j] = JointRole::Cut;
        if (joints_[j].cut == std::optional<bool>(false))
          addProblem(j, "it is forced into the spanning tree (cut: false) but closes a loop with the other tree "
                        "joints; at least one joint of every loop must be cut");
      }
    }
    for (std::size_t j = 0; j < joints_.size(); ++j)
      if (eligible(j) && joints_[j].cut == std::optional<bool>(true)) t_.roles[j] = JointRole::Cut;
    for (std::size_t j = 0; j < joints_.size(); ++j)
      if (t_.roles[j] != JointRole::Tree) t_.cut_joints.push_back(static_cast<int>(j));
  }

  /// Parents, depths and coordinates: breadth first from ground, then from each floating body
  /// (the first, in file order, of a part not attached to ground) on its free joint.
  void orientTree() {
    std::vector<std::vector<std::size_t>> adjacency(at(nb_ + 1));
    for (std::size_t j = 0; j < joints_.size(); ++j) {
      if (t_.roles[j] != JointRole::Tree) continue;
      adjacency[static_cast<std::size_t>(node(joints_[j].body1))].push_back(j);
      adjacency[static_cast<std::size_t>(node(joints_[j].body2))].push_back(j);
    }
    std::vector<bool> placed(at(nb_ + 1), false);
    auto grow = [&](BodyIndex root) {
      std::queue<BodyIndex> queue;
      queue.push(root);
      placed[static_cast<std::size_t>(node(root))] = true;
      while (!queue.empty()) {
        const BodyIndex a = queue.front();
        queue.pop();
        if (a != kGround) t_.order.push_back(a);
        for (std::size_t j : adjacency[static_cast<std::size_t>(node(a))]) {
          const BodyIndex b = otherEnd(joints_[j], a);
          if (placed[static_cast<std::size_t>(node(b))]) continue;
          placed[static_cast<std::size_t>(node(b))] = true;
          TreeLink& link = t_.links[at(b)];
          link.joint = static_cast<int>(j);
          link.parent = a;
          link.depth = a == kGround ? 1 : t_.links[at(a)].depth + 1;
          link.count = jointCoordinateCount(joints_[j].type, dimension_);
          queue.push(b);
        }
      }
    };
    grow(kGround);
    for (BodyIndex b = 0; b < nb_; ++b) {
      if (placed[static_cast<std::size_t>(node(b))]) continue;
      t_.links[at(b)].count = freeJointCoordinateCount(dimension_);
      grow(b);
    }
    for (BodyIndex b : t_.order) {
      TreeLink& link = t_.links[at(b)];
      link.q_offset = t_.nq;
      link.v_offset = t_.nv;
      t_.nq += link.count.nq;
      t_.nv += link.count.nv;
    }
  }

  void countLoops() {
    UnionFind graph(nb_ + 1);
    int edges = 0;
    for (const TopologyJoint& j : joints_) {
      if (j.type == JointType::KnifeEdge) continue;  // a velocity condition on one body, not an edge
      ++edges;
      graph.unite(node(j.body1), node(j.body2));
    }
    int detached = 0;  // components without ground
    for (int a = 1; a <= nb_; ++a)
      if (graph.find(a) == a) ++detached;
    t_.loops = edges - nb_ + detached;
  }

  /// Recursive bisection over a spanning forest of the joints between bodies (ground left out: it
  /// joins the complete assembly last), which holds every tree joint between bodies and then, in
  /// file order, the cut joints that connect what those leave apart (the rods of paper 000's
  /// parallelogram hang on its platform through cut joints). A part connected in that forest is
  /// split at the forest joint that halves it best (a chain of n bodies: height log2 n + 1);
  /// parts joined only through ground are shared out, largest first, between two halves.
  void buildAssemblyTree() {
    tree_neighbours_.assign(at(nb_), {});
    std::vector<std::size_t> between_bodies;
    for (std::size_t j = 0; j < joints_.size(); ++j) {
      const TopologyJoint& jt = joints_[j];
      if (jt.type != JointType::KnifeEdge && jt.body1 != kGround && jt.body2 != kGround) between_bodies.push_back(j);
    }
    std::stable_partition(between_bodies.begin(), between_bodies.end(),
                          [&](std::size_t j) { return t_.roles[j] == JointRole::Tree; });
    UnionFind forest(nb_ + 1);
    for (std::size_t j : between_bodies) {
      const TopologyJoint& jt = joints_[j];
      if (!forest.unite(node(jt.body1), node(jt.body2))) continue;
      tree_neighbours_[at(jt.body1)].push_back(jt.body2);
      tree_neighbours_[at(jt.body2)].push_back(jt.body1);
    }
    mark_.assign(at(nb_), -1);
    leaf_.assign(at(nb_), -1);
    parent_.assign(at(nb_), kGround);
    subtree_.assign(at(nb_), 1);
    below_.assign(at(nb_), 0);
    std::vector<BodyIndex> all(at(nb_));
    std::iota(all.begin(), all.end(), 0);
    t_.root = assemble(all);
    assignJointsAndHandles();
  }

  int assemble(const std::vector<BodyIndex>& bodies) {
    const int index = static_cast<int>(t_.nodes.size());
    t_.nodes.emplace_back();
    t_.nodes.back().size = static_cast<int>(bodies.size());
    if (bodies.size() == 1) {
      t_.nodes.back().body = bodies.front();
      leaf_[at(bodies.front())] = index;
      return index;
    }
    std::vector<BodyIndex> first, second;
    split(bodies, first, second);
    const int a = assemble(first);
    const int b = assemble(second);
    AssemblyNode& n = t_.nodes[static_cast<std::size_t>(index)];
    n.first = a;
    n.second = b;
    t_.nodes[static_cast<std::size_t>(a)].parent = t_.nodes[static_cast<std::size_t>(b)].parent = index;
    return index;
  }

  /// Parts of `bodies` connected through the forest's joints inside it (breadth first from each).
  std::vector<std::vector<BodyIndex>> parts(const std::vector<BodyIndex>& bodies) {
    const int stamp = ++stamp_;
    for (BodyIndex b : bodies) mark_[at(b)] = stamp;
    std::vector<std::vector<BodyIndex>> out;
    for (BodyIndex start : bodies) {
      if (mark_[at(start)] != stamp) continue;
      std::vector<BodyIndex> part{start};
      mark_[at(start)] = -stamp;
      for (std::size_t k = 0; k < part.size(); ++k)
        for (BodyIndex c : tree_neighbours_[at(part[k])])
          if (mark_[at(c)] == stamp) {
            mark_[at(c)] = -stamp;
            part.push_back(c);
          }
      out.push_back(std::move(part));
    }
    return out;
  }

  void split(const std::vector<BodyIndex>& bodies, std::vector<BodyIndex>& first, std::vector<BodyIndex>& second) {
    std::vector<std::vector<BodyIndex>> connected = parts(bodies);
    if (connected.size() > 1) {
      std::stable_sort(connected.begin(), connected.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
      for (const std::vector<BodyIndex>& part : connected) {
        std::vector<BodyIndex>& lighter = first.size() <= second.size() ? first : second;
        lighter.insert(lighter.end(), part.begin(), part.end());
      }
      return;
    }
    // one part, a tree: breadth-first order from its first body gives parents before children
    const std::vector<BodyIndex>& order = connected.front();  // (parts() listed it breadth first)
    // (the scratch is the part's alone: a split costs its own size, the whole tree n log n)
    const int stamp = ++stamp_;
    for (BodyIndex b : order) {
      mark_[at(b)] = stamp;
      parent_[at(b)] = kGround;
      subtree_[at(b)] = 1;
      below_[at(b)] = 0;
    }
    mark_[at(order.front())] = -stamp;
    for (BodyIndex a : order)
      for (BodyIndex c : tree_neighbours_[at(a)])
        if (mark_[at(c)] == stamp) {
          mark_[at(c)] = -stamp;
          parent_[at(c)] = a;
        }
    for (std::size_t k = order.size(); k-- > 1;) subtree_[at(parent_[at(order[k])])] += subtree_[at(order[k])];
    // the subtree (below a tree joint) nearest to half of the bodies
    const int n = static_cast<int>(order.size());
    BodyIndex best = order[1];
    for (std::size_t k = 1; k < order.size(); ++k)
      if (std::abs(2 * subtree_[at(order[k])] - n) < std::abs(2 * subtree_[at(best)] - n)) best = order[k];
    below_[at(best)] = 1;
    for (BodyIndex b : order) {
      if (b != best && b != order.front() && below_[at(parent_[at(b)])]) below_[at(b)] = 1;
      (below_[at(b)] ? second : first).push_back(b);  // the side of the part's first body first
    }
  }

  void assignJointsAndHandles() {
    auto depthOf = [&](int k) {
      int d = 0;
      for (; t_.nodes[static_cast<std::size_t>(k)].parent >= 0; k = t_.nodes[static_cast<std::size_t>(k)].parent) ++d;
      return d;
    };
    std::vector<int> depth(t_.nodes.size());
    for (std::size_t k = 0; k < t_.nodes.size(); ++k) depth[k] = depthOf(static_cast<int>(k));
    auto lowestCommon = [&](int a, int b) {
      while (depth[static_cast<std::size_t>(a)] > depth[static_cast<std::size_t>(b)]) a = t_.nodes[static_cast<std::size_t>(a)].parent;
      while (depth[static_cast<std::size_t>(b)] > depth[static_cast<std::size_t>(a)]) b = t_.nodes[static_cast<std::size_t>(b)].parent;
      while (a != b) {
        a = t_.nodes[static_cast<std::size_t>(a)].parent;
        b = t_.nodes[static_cast<std::size_t>(b)].parent;
      }
      return a;
    };
    for (std::size_t j = 0; j < joints_.size(); ++j) {
      const TopologyJoint& jt = joints_[j];
      const bool to_ground = jt.body1 == kGround || jt.body2 == kGround || jt.type == JointType::KnifeEdge;
      // where it is assembled: the ground connection (-1), or the lowest node holding both ends
      const int here = to_ground ? -1 : lowestCommon(leaf_[at(jt.body1)], leaf_[at(jt.body2)]);
      if (here < 0)
        t_.ground_joints.push_back(static_cast<int>(j));
      else
        t_.nodes[static_cast<std::size_t>(here)].joints.push_back(static_cast<int>(j));
      // its handles: on every node from each end's body up to (not including) where it is assembled
      const BodyIndex ends[2] = {jt.body1, jt.type == JointType::KnifeEdge ? kGround : jt.body2};
      for (int side = 0; side < 2; ++side) {
        if (ends[side] == kGround) continue;
        for (int k = leaf_[at(ends[side])]; k != here; k = t_.nodes[static_cast<std::size_t>(k)].parent)
          t_.nodes[static_cast<std::size_t>(k)].handles.push_back({static_cast<int>(j), side});
      }
    }
  }

  int nb_;
  int dimension_;
  const std::vector<TopologyJoint>& joints_;
  const std::vector<std::string>& names_;
  std::vector<TopologyProblem>& problems_;
  Topology t_;
  std::vector<std::vector<BodyIndex>> tree_neighbours_;
  std::vector<int> mark_, leaf_;
  int stamp_ = 0;
  std::vector<BodyIndex> parent_;  ///< split's scratch: each body's parent in its part's tree
  std::vector<int> subtree_;       ///< split's scratch: the bodies of each one's subtree there
  std::vector<char> below_;        ///< split's scratch: on the far side of the cut
};

}  // namespace

Topology buildTopology(int nb, int dimension, const std::vector<TopologyJoint>& joints,
                       const std::vector<std::string>& body_names, std::vector<TopologyProblem>& problems) {
  return Builder(nb, dimension, joints, body_names, problems).build();
}

}  // namespace loopdyn
