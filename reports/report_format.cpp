#include "report_format.hpp"

namespace loopdyn::reports {

std::string unitsText(const Units& units) {
  if (units.describe() == "SI") return {};
  return units.describe() + " (converted at reading: every number here is SI, m, rad, kg, s, N)";
}

void writeUnits(io::TreeWriter& w, const Units& units) {
  w.beginObject();
  w.key("length").value(units.length.name).key("angle").value(units.angle.name).key("mass").value(units.mass.name);
  w.key("time").value(units.time.name).key("force").value(units.force.name);
  w.endObject();
}

std::string joinNames(const std::vector<std::string>& names, const char* empty) {
  if (names.empty()) return empty;
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string formatNumber(Scalar x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

std::string pairName(const Model& model, int pair) { return model.pairs()[static_cast<std::size_t>(pair)].name; }

std::vector<std::string> groupPairNames(const Model& model, const Group& g) {
  std::vector<std::string> names;
  for (int p : g.pairs) names.push_back(pairName(model, p));
  return names;
}

/// "unique", "non-unique", or "only B.x unique": the second step in words.
std::string multipliersText(const Model& model, const ElementUniqueness& e) {
  if (e.componentsUnique()) return "unique";
  const std::vector<int> unique = e.uniqueComponents();
  if (unique.empty()) return "non-unique";
  return "only " + joinNames(equationNames(model, unique)) + " unique";
}

/// Methods that disagree with the deciding one, or "agree".
std::string agreementText(const ElementUniqueness& e, bool physical_agree) {
  if (e.methodsAgree() && physical_agree) return "agree";
  std::string out;
  for (const MethodResult& m : e.methods) {
    bool same = m.reaction.unique == e.methods.front().reaction.unique;
    for (std::size_t k = 0; k < m.components.size(); ++k)
      same = same && m.components[k].unique == e.methods.front().components[k].unique;
    if (same) continue;
    if (!out.empty()) out += ',';
    out += methodName(m.method);
  }
  if (out.empty()) return "DIFFER on components";
  std::string text = "DIFFER: ";
  text += out;
  return text;
}

namespace {

void writeDecision(io::TreeWriter& w, const Decision& d) {
  w.beginObject();
  w.key("unique").value(d.unique);
  w.key("indicator").value(d.indicator);
  w.key("margin").value(d.margin);
  w.endObject();
}

}  // namespace

void writeElement(io::TreeWriter& w, const Model& model, const ElementUniqueness& e) {
  w.key("unique").value(e.unique());
  w.key("components_unique").value(e.componentsUnique());
  w.key("unique_components").array(equationNames(model, e.uniqueComponents()));
  w.key("margin").value(e.margin());
  w.key("methods_agree").value(e.methodsAgree());
  w.key("methods").beginObject();
  for (const MethodResult& m : e.methods) {
    w.key(std::string(methodName(m.method))).beginObject();
    w.key("unique").value(m.reaction.unique);
    w.key("components_unique").value(m.componentsUnique());
    w.key("indicator").value(m.reaction.indicator);
    w.key("margin").value(m.reaction.margin);
    w.key("components").beginArray();
    for (const Decision& d : m.components) writeDecision(w, d);
    w.endArray();
    w.endObject();
  }
  w.endObject();
}

}  // namespace loopdyn::reports
