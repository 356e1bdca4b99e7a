#pragma once
// A run's events and warnings (dynamics/run_event.hpp) in words, for the reports of `loopdyn simulate` (text,
// JSON, HTML) and the Python module, and as JSON fields.

#include <string>

#include "loopdyn/dynamics/run_event.hpp"
#include "loopdyn/io/tree_writer.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::reports {

/// "t = 0.710000 s": a time as the reports print it.
std::string timeText(Scalar t);

/// The event in one line, starting with its time ("t = ... s: singular configuration ...").
std::string eventText(const Model& model, const RunEvent& event);

/// The event as a JSON object: kind, t, text, and the fields its kind fills.
void writeEvent(io::TreeWriter& w, const Model& model, const RunEvent& event);

/// A run's warning (RunWarning) in words: one sentence, no time label unless the warning has one.
std::string warningText(const RunWarning& warning);

}  // namespace loopdyn::reports
