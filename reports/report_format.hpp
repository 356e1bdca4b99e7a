#pragma once
// Formatting shared by the reports of `loopdyn analyze`: names, numbers, table rows, and the
// uniqueness decisions of one element in words and as JSON.

#include <cstdio>
#include <string>
#include <vector>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/io/tree_writer.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::reports {

/// The units the model file declared, for a report's `units` line: "length mm, angle deg
/// (converted at reading: every number here is SI, m, rad, kg, s, N)"; empty for a file in SI.
std::string unitsText(const Units& units);
/// The same as a JSON object of the five base units ({"length": "mm", ...}).
void writeUnits(io::TreeWriter& w, const Units& units);

/// "a, b, c", or `empty` for none.
std::string joinNames(const std::vector<std::string>& names, const char* empty = "none");

/// Three significant digits.
std::string formatNumber(Scalar x);

/// printf into a std::string (table rows).
template <typename... Args>
std::string row(const char* format, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

std::string pairName(const Model& model, int pair);
std::vector<std::string> groupPairNames(const Model& model, const Group& g);

/// "unique", "non-unique", or "only B.x unique": the second step in words.
std::string multipliersText(const Model& model, const ElementUniqueness& e);

/// Methods that disagree with the deciding one, or "agree".
std::string agreementText(const ElementUniqueness& e, bool physical_agree = true);

/// The element's decisions, method by method, as keys of the current JSON object.
void writeElement(io::TreeWriter& w, const Model& model, const ElementUniqueness& e);

}  // namespace loopdyn::reports
