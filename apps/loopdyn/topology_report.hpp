#pragma once
// `analyze --topology`: the spanning tree, cut joints, relative coordinates and the binary
// assembly tree of a model (model/topology.hpp), as text and as JSON.

#include <string>

#include "loopdyn/io/json_writer.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::cli {

std::string topologyText(const Model& model);
void writeTopologyJson(io::JsonWriter& w, const Model& model);

}  // namespace loopdyn::cli
