#pragma once
/// The actuation analysis (loopdyn/actuation_analysis.hpp) as `loopdyn analyze --actuators` prints
/// it: a block after the analysis, and with --sweep a table of the swept points and the singular
/// poses found between them.

#include <string>

#include "loopdyn/actuation_analysis.hpp"
#include "loopdyn/io/tree_writer.hpp"

namespace loopdyn::reports {

std::string actuationText(const ActuationReport& report, const SweepRequest& sweep);

/// The object under the analysis's key `actuation` (`--json`, Python's Model.analyze(actuators=...)):
/// drivers, freedoms, controlled, uncontrolled, redundancy, non_unique_efforts, preloads, pose, and
/// with a sweep `sweep` (coordinate, values, assembled, rank, ratio, singular) and `crossings`.
void writeActuation(io::TreeWriter& w, const ActuationReport& report, const SweepRequest& sweep);

}  // namespace loopdyn::reports
