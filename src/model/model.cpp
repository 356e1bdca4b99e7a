#include "loopdyn/model/model.hpp"

#include <algorithm>

#include "loopdyn/common/check.hpp"
#include "loopdyn/common/spelling.hpp"

namespace loopdyn {

BodyIndex Model::bodyIndex(const std::string& name) const {
  if (name == "ground") return kGround;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (bodies_[b].name == name) return static_cast<BodyIndex>(b);
  throw InvalidArgument("model '" + name_ + "' has no body '" + name + "'");
}

int Model::pairIndex(const std::string& name) const {
  for (std::size_t k = 0; k < pairs_.size(); ++k)
    if (pairs_[k].name == name) return static_cast<int>(k);
  throw InvalidArgument("model '" + name_ + "' has no joint or driver '" + name + "'");
}

const std::string& Model::bodyName(BodyIndex b) const {
  static const std::string ground = "ground";
  if (b == kGround) return ground;
  LOOPDYN_CHECK(b >= 0 && b < nb(), "body index ", b, " out of range [0, ", nb(), ")");
  return bodies_[static_cast<std::size_t>(b)].name;
}

std::vector<std::string> resolveGroup(const Model& model, const GroupSpec& spec, Group& out) {
  std::vector<std::string> problems;
  const std::string what = "group '" + spec.name + "'";
  if (spec.name.empty()) problems.push_back("group has no name");
  if (spec.pairs.empty()) problems.push_back(what + " lists no pairs");
  std::vector<std::string> body_names{"ground"};
  for (const Body& b : model.bodies()) body_names.push_back(b.name);
  const auto body_it = std::find(body_names.begin(), body_names.end(), spec.body);
  if (body_it == body_names.end()) {
    problems.push_back(what + ": unknown body '" + spec.body + "'" + didYouMean(spec.body, body_names));
  }
  const BodyIndex body = body_it == body_names.end() ? kGround
                                                      : static_cast<BodyIndex>(body_it - body_names.begin()) - 1;
  std::vector<std::string> pair_names;
  for (const Pair& p : model.pairs()) pair_names.push_back(p.name);
  std::vector<int> pairs;
  for (const std::string& name : spec.pairs) {
    const auto it = std::find(pair_names.begin(), pair_names.end(), name);
    if (it == pair_names.end()) {
      problems.push_back(what + ": unknown joint or driver '" + name + "'" + didYouMean(name, pair_names));
      continue;
    }
    const int index = static_cast<int>(it - pair_names.begin());
    if (std::find(pairs.begin(), pairs.end(), index) != pairs.end()) {
      problems.push_back(what + " lists '" + name + "' twice");
      continue;
    }
    const Pair& pair = model.pairs()[static_cast<std::size_t>(index)];
    if (body_it != body_names.end() && pair.body1 != body && pair.body2 != body) {
      problems.push_back(what + ": '" + name + "' does not act on body '" + spec.body + "' (it connects '" +
                         model.bodyName(pair.body1) + "' and '" + model.bodyName(pair.body2) + "')");
      continue;
    }
    pairs.push_back(index);
  }
  if (problems.empty()) out = Group{spec.name, std::move(pairs), body, spec.where};
  return problems;
}

std::string parseGroup(const std::string& text, GroupSpec& out) {
  const std::size_t eq = text.find('='), at = text.rfind('@');
  if (eq == std::string::npos || at == std::string::npos || at < eq || eq == 0 || at + 1 == text.size())
    return "expected NAME=PAIR,PAIR,...@BODY (e.g. KM=K,M@ground)";
  out.name = text.substr(0, eq);
  out.body = text.substr(at + 1);
  out.pairs.clear();
  const std::string list = text.substr(eq + 1, at - eq - 1);
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, comma - start);
    if (name.empty()) return "empty pair name in '" + list + "'";
    out.pairs.push_back(name);
    start = comma + 1;
  }
  return {};
}

std::vector<std::string> resolveGroups(const Model& model, const std::vector<std::string>& texts, std::vector<Group>& out) {
  std::vector<std::string> problems;
  for (const std::string& text : texts) {
    GroupSpec spec;
    if (const std::string problem = parseGroup(text, spec); !problem.empty()) {
      problems.push_back("'" + text + "': " + problem);
      continue;
    }
    Group group;
    const std::vector<std::string> found = resolveGroup(model, spec, group);
    for (const std::string& problem : found) problems.push_back("'" + text + "': " + problem);
    if (found.empty()) out.push_back(std::move(group));
  }
  return problems;
}

std::string denseSizeProblem(const Model& model, std::string_view what, std::string_view instead) {
  if (model.nv() <= kLargestDenseSize && model.nc() <= kLargestDenseSize) return {};
  return detail::concat(what, " keeps dense matrices of the model's size, n x (m + h) = ", model.nv(), " x ", model.nc(),
                        " here (", 8.0 * model.nv() * std::max(model.nc(), 1) / 1e9,
                        " GB each, factorised in O(n^3)), beyond loopdyn's limit of ", kLargestDenseSize,
                        " for dense routes; ", instead);
}

}  // namespace loopdyn
