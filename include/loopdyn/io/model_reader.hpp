#pragma once
/// Reading model files (YAML). The format is documented key by key in docs/model-format.md.

#include <cstdint>
#include <string>

#include "loopdyn/model/model_spec.hpp"

namespace loopdyn::io {

/// The largest model text read: reading takes about 70 bytes of memory per byte of YAML (measured:
/// the 100,001-body ladder of models/generators/ladder.py, 35 MB, 2.4 GB), so at most ~4.5 GB.
inline constexpr std::uintmax_t kMaxModelBytes = 64u << 20;

/// Reads and checks the syntax of a model file (a regular file or a pipe; a device or directory
/// is refused, as is a text larger than kMaxModelBytes). Throws ModelError listing every problem
/// found, each as "file:line:col: error: what is wrong" (unknown keys come with a spelling hint).
/// Semantic checks (names that must exist, positive mass, ...) are made by compile().
ModelSpec readModelFile(const std::string& path);

/// Same, from text; `file_name` is used in messages.
ModelSpec parseModel(const std::string& text, const std::string& file_name);

}  // namespace loopdyn::io
