#pragma once
// `analyze --topology`: the spanning tree, cut joints, relative coordinates and the binary
// assembly tree of a model (model/topology.hpp), as text and as JSON.

#include <string>

#include "loopdyn/io/tree_writer.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::reports {

std::string topologyText(const Model& model);
void writeTopologyJson(io::TreeWriter& w, const Model& model);

}  // namespace loopdyn::reports
