#include "relative_uniqueness_report.hpp"

#include <algorithm>

#include "report_format.hpp"

namespace loopdyn::reports {

namespace {

std::string stepText(const DcaPairDecision& d) {
  std::string text(dcaStepName(d.step));
  if (d.step == DcaStep::BodyEquationRepeated) text += " (round " + std::to_string(d.round) + ")";
  return text;
}

/// "unique", "non-unique", or "only B.x unique" from the null space's rows.
std::string componentsText(const Model& model, const Pair& pair, const std::vector<bool>& components) {
  std::vector<int> unique;
  for (std::size_t k = 0; k < components.size(); ++k)
    if (components[k]) unique.push_back(pair.row + static_cast<int>(k));
  if (unique.size() == components.size()) return "unique";
  if (unique.empty()) return "non-unique";
  return "only " + joinNames(equationNames(model, unique)) + " unique";
}

}  // namespace

void printRelativeUniqueness(std::ostream& os, const Model& model, const DcaUniquenessReport& dca) {
  const DcaGroundConnection& g = dca.ground;
  int name_width = 5;
  for (const Pair& p : model.pairs()) name_width = std::max(name_width, static_cast<int>(p.name.size()));
  for (const GroupUniqueness& group : g.groups)
    name_width = std::max(name_width, static_cast<int>(group.group.name.size()));

  std::vector<std::string> ground_pairs, methods, ranks;
  for (int p : g.pairs) ground_pairs.push_back(pairName(model, p));
  if (!g.elements.empty())
    for (std::size_t k = 0; k < g.elements.front().methods.size(); ++k) {
      methods.push_back(std::string(methodName(g.elements.front().methods[k].method)));
      ranks.push_back(methods.back() + " " + std::to_string(g.ranks[k]));
    }
  os << "\nreaction uniqueness in relative coordinates (inside the DCA, paper 000 sect. 3.5)\n";
  os << "step 2: the complete assembly to ground through " << joinNames(ground_pairs) << "\n";
  if (g.size > 0)
    os << "  G = T^T Phi_11 T (eq. (22)): " << g.size << " x " << g.size << ", rank " << joinNames(ranks)
       << "; tests " << joinNames(methods) << ", " << methods.front() << " decides; smallest margin "
       << formatNumber(g.smallest_margin) << " decades\n";
  os << row("  %-*s %-12s %4s  %-11s %-26s %-16s %6s  %s\n", name_width, "pair", "type", "rows", "reaction",
            "multipliers", "decided by", "margin", "methods");
  for (const DcaPairDecision& d : dca.pairs) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(d.pair)];
    const auto at_ground = std::find(g.pairs.begin(), g.pairs.end(), d.pair);
    std::string margin = "-", agreement = "-", multipliers = componentsText(model, pair, d.components);
    if (at_ground != g.pairs.end()) {
      const ElementUniqueness& e = g.elements[static_cast<std::size_t>(at_ground - g.pairs.begin())];
      margin = row("%.1f", e.margin());
      agreement = agreementText(e);
      multipliers = multipliersText(model, e);
    }
    os << row("  %-*s %-12s %4d  %-11s %-26s %-16s %6s  %s\n", name_width, pair.name.c_str(), pair.type.c_str(),
              pair.rows, d.unique ? "unique" : "NON-UNIQUE", multipliers.c_str(), stepText(d).c_str(), margin.c_str(),
              agreement.c_str());
  }
  if (!g.groups.empty()) {
    os << "\ngroups of pairs to ground: h_T = G_T lambda_T (paper 000, eq. (25))\n";
    os << row("  %-*s %-22s %-11s %-12s %6s  %s\n", name_width, "group", "pairs", "resultant", "multipliers", "margin",
              "methods");
    for (const GroupUniqueness& group : g.groups)
      os << row("  %-*s %-22s %-11s %-12s %6.1f  %s\n", name_width, group.group.name.c_str(),
                joinNames(groupPairNames(model, group.group)).c_str(), group.resultant.unique() ? "unique" : "NON-UNIQUE",
                group.resultant.componentsUnique() ? "unique" : "non-unique", group.resultant.margin(),
                agreementText(group.resultant).c_str());
  }
  os << "\nsteps 1-8: " << (dca.stepsComplete() ? "every pair decided" : "some pairs left open, decided by the null space")
     << " (" << dca.rounds << " round(s) of steps 6/8)\n";
  os << "null space of C^T built through the assembly tree: dimension " << dca.redundancy << "; "
     << (dca.stepsAgreeWithNullSpace() ? "it confirms every step's decision" : "it CONTRADICTS a step's decision")
     << '\n';
  for (const std::string& inner : dca.inner_redundancies)
    os << "  multijoint connection inside the assembly (outside the paper's assumption), " << inner << '\n';
}

void writeRelativeUniquenessJson(io::TreeWriter& w, const Model& model, const DcaUniquenessReport& dca,
                                 const UniquenessReport& absolute) {
  const DcaGroundConnection& g = dca.ground;
  w.key("relative_uniqueness").beginObject();
  w.key("ground_connection").beginObject();
  std::vector<std::string> names;
  for (int p : g.pairs) names.push_back(pairName(model, p));
  w.key("pairs").array(names);
  w.key("G_size").value(g.size);
  w.key("G_ranks").array(g.ranks);
  w.key("smallest_margin").value(g.smallest_margin);
  w.key("elements").beginArray();
  for (std::size_t k = 0; k < g.elements.size(); ++k) {
    w.beginObject();
    w.key("name").value(names[k]);
    writeElement(w, model, g.elements[k]);
    w.endObject();
  }
  w.endArray();
  w.key("groups").beginArray();
  for (const GroupUniqueness& group : g.groups) {
    w.beginObject();
    w.key("name").value(group.group.name);
    w.key("pairs").array(groupPairNames(model, group.group));
    writeElement(w, model, group.resultant);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  w.key("pairs").beginArray();
  for (const DcaPairDecision& d : dca.pairs) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(d.pair)];
    w.beginObject();
    w.key("name").value(pair.name);
    w.key("unique").value(d.unique);
    w.key("step").value(std::string(dcaStepName(d.step)));
    w.key("round").value(d.round);
    w.key("components_unique").value(std::all_of(d.components.begin(), d.components.end(), [](bool b) { return b; }));
    w.key("null_space_unique").value(d.null_space_unique);
    w.key("null_space_indicator").value(d.null_space_indicator);
    w.endObject();
  }
  w.endArray();
  w.key("rounds").value(dca.rounds);
  w.key("redundancy").value(dca.redundancy);
  w.key("steps_complete").value(dca.stepsComplete());
  w.key("steps_agree_with_null_space").value(dca.stepsAgreeWithNullSpace());
  w.key("inner_redundancies").array(dca.inner_redundancies);
  w.key("absolute_disagreements").array(routesDisagree(model, dca, absolute));
  w.endObject();
}

}  // namespace loopdyn::reports
