#pragma once
/// Reading model files (YAML). The format is documented key by key in docs/model-format.md.

#include <string>

#include "loopdyn/model/model_spec.hpp"

namespace loopdyn::io {

/// Reads and checks the syntax of a model file. Throws ModelError listing every problem found,
/// each as "file:line:col: error: what is wrong" (unknown keys come with a spelling hint).
/// Semantic checks (names that must exist, positive mass, ...) are made by compile().
ModelSpec readModelFile(const std::string& path);

/// Same, from text; `file_name` is used in messages.
ModelSpec parseModel(const std::string& text, const std::string& file_name);

}  // namespace loopdyn::io
