#pragma once
// A run's failure (sim/simulation.hpp RunFailure) in words: one sentence that says when, why and
// which parts of the mechanism, for the summary of `loopdyn simulate` (text, JSON, the page) and
// the Python module.

#include <string>

#include "loopdyn/sim/simulation.hpp"

namespace loopdyn::reports {

/// The failure in one sentence ("" for a run that has not failed).
std::string failureText(const RunFailure& failure);

}  // namespace loopdyn::reports
