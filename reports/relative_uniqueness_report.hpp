#pragma once
// `analyze --coordinates relative`: joint-reaction uniqueness decided inside the DCA (paper 000;
// dynamics/dca/dca_uniqueness.hpp), as text and JSON, with its agreement with the absolute-coordinate
// analysis (paper 001) of the same mechanism.

#include <ostream>
#include <string>
#include <vector>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/dynamics/dca/dca_uniqueness.hpp"
#include "loopdyn/io/tree_writer.hpp"

namespace loopdyn::reports {

void printRelativeUniqueness(std::ostream& os, const Model& model, const DcaUniquenessReport& dca);
void writeRelativeUniquenessJson(io::TreeWriter& w, const Model& model, const DcaUniquenessReport& dca,
                                 const UniquenessReport& absolute);

}  // namespace loopdyn::reports
