#include "topology_report.hpp"

#include <sstream>

namespace loopdyn::reports {

namespace {

std::string_view roleName(JointRole role) {
  switch (role) {
    case JointRole::Tree: return "tree";
    case JointRole::Cut: return "cut";
    case JointRole::Constraint: return "constraint";
  }
  return "";
}

std::string jointName(const Model& model, int j) { return model.joints()[static_cast<std::size_t>(j)].name; }

std::string joinedJoints(const Model& model, const std::vector<int>& joints) {
  std::string out;
  for (int j : joints) out += (out.empty() ? "" : ", ") + jointName(model, j);
  return out.empty() ? "none" : out;
}

std::string handleList(const Model& model, const AssemblyNode& node) {
  std::vector<int> joints;
  for (const Handle& h : node.handles) joints.push_back(h.joint);
  return joinedJoints(model, joints);
}

/// The bodies of a node in assembly order: all of them when few, else the first and last.
void collectBodies(const Topology& t, int k, std::vector<BodyIndex>& out) {
  const AssemblyNode& n = t.nodes[static_cast<std::size_t>(k)];
  if (n.body != kGround) {
    out.push_back(n.body);
    return;
  }
  collectBodies(t, n.first, out);
  collectBodies(t, n.second, out);
}

std::string nodeLabel(const Model& model, int k) {
  std::vector<BodyIndex> bodies;
  collectBodies(model.topology(), k, bodies);
  if (bodies.size() == 1) return model.bodyName(bodies.front());
  std::string out = "{";
  if (bodies.size() <= 4) {
    for (std::size_t i = 0; i < bodies.size(); ++i) out += (i ? " " : "") + model.bodyName(bodies[i]);
  } else {
    out += model.bodyName(bodies.front()) + " ... " + model.bodyName(bodies.back()) + ": " +
           std::to_string(bodies.size()) + " bodies";
  }
  return out + "}";
}

void printNode(std::ostringstream& os, const Model& model, int k, int indent) {
  const AssemblyNode& n = model.topology().nodes[static_cast<std::size_t>(k)];
  os << std::string(static_cast<std::size_t>(indent), ' ') << nodeLabel(model, k);
  if (n.body == kGround) os << "  assembles " << joinedJoints(model, n.joints);
  os << "  handles " << handleList(model, n) << '\n';
  if (n.body == kGround) {
    printNode(os, model, n.first, indent + 2);
    printNode(os, model, n.second, indent + 2);
  }
}

}  // namespace

std::string topologyText(const Model& model) {
  const Topology& t = model.topology();
  std::ostringstream os;
  os << "\ntopology (spanning tree breadth first from ground; `cut:` in the model file overrides)\n";
  os << "  coordinates     relative nq = " << t.nq << ", nv = " << t.nv << " (absolute " << model.nq() << ", "
     << model.nv() << ")\n";
  os << "  loops           " << t.loops << " independent; joints not in the tree: " << t.cut_joints.size() << '\n';
  os << "  spanning tree\n";
  for (BodyIndex b : t.order) {
    const TreeLink& link = t.links[static_cast<std::size_t>(b)];
    os << "    " << model.bodyName(b) << " <- " << model.bodyName(link.parent) << " by "
       << (link.joint < 0 ? std::string("a free joint (floating body)")
                          : jointName(model, link.joint) + " (" +
                                std::string(jointTypeName(model.joints()[static_cast<std::size_t>(link.joint)].type)) + ")")
       << ", " << link.count.nv << (link.count.nv == 1 ? " coordinate" : " coordinates") << " from v[" << link.v_offset
       << "]\n";
  }
  os << "  cut joints      ";
  if (t.cut_joints.empty()) os << "none";
  for (std::size_t i = 0; i < t.cut_joints.size(); ++i) {
    const int j = t.cut_joints[i];
    os << (i ? ", " : "") << jointName(model, j) << " ("
       << roleName(t.roles[static_cast<std::size_t>(j)]) << ")";
  }
  os << '\n';
  if (t.root >= 0) {
    os << "  assembly tree   height " << t.assemblyHeight() << "; to ground: " << joinedJoints(model, t.ground_joints)
       << '\n';
    printNode(os, model, t.root, 4);
  }
  return os.str();
}

void writeTopologyJson(io::TreeWriter& w, const Model& model) {
  const Topology& t = model.topology();
  w.beginObject();
  w.key("nq").value(t.nq);
  w.key("nv").value(t.nv);
  w.key("loops").value(t.loops);
  w.key("joints").beginArray();
  for (std::size_t j = 0; j < t.roles.size(); ++j) {
    w.beginObject();
    w.key("name").value(model.joints()[j].name);
    w.key("role").value(std::string(roleName(t.roles[j])));
    w.endObject();
  }
  w.endArray();
  w.key("tree").beginArray();
  for (BodyIndex b : t.order) {
    const TreeLink& link = t.links[static_cast<std::size_t>(b)];
    w.beginObject();
    w.key("body").value(model.bodyName(b));
    w.key("parent").value(model.bodyName(link.parent));
    if (link.joint < 0)
      w.key("joint").null();
    else
      w.key("joint").value(jointName(model, link.joint));
    w.key("q_offset").value(link.q_offset);
    w.key("v_offset").value(link.v_offset);
    w.key("nq").value(link.count.nq);
    w.key("nv").value(link.count.nv);
    w.endObject();
  }
  w.endArray();
  w.key("assembly").beginObject();
  w.key("root").value(t.root);
  w.key("height").value(t.assemblyHeight());
  std::vector<std::string> ground;
  for (int j : t.ground_joints) ground.push_back(jointName(model, j));
  w.key("to_ground").array(ground);
  w.key("nodes").beginArray();
  for (const AssemblyNode& n : t.nodes) {
    w.beginObject();
    if (n.body != kGround) {
      w.key("body").value(model.bodyName(n.body));
    } else {
      w.key("children").beginArray().value(n.first).value(n.second).endArray();
      std::vector<std::string> joints;
      for (int j : n.joints) joints.push_back(jointName(model, j));
      w.key("assembles").array(joints);
    }
    std::vector<std::string> handles;
    for (const Handle& h : n.handles) handles.push_back(jointName(model, h.joint));
    w.key("handles").array(handles);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  w.endObject();
}

}  // namespace loopdyn::reports
