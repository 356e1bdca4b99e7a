#pragma once
/// Reading a numeric table from a CSV file: a header line of column names, then one row of
/// numbers a line (what `loopdyn simulate --out` writes, or a trajectory from elsewhere). Blank
/// lines and lines starting with `#` are skipped; a field may be quoted ("name").

#include <cstdint>
#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn::io {

/// The largest table read (a 10 s run's CSV at 1 ms samples with 120 columns is about 25 MB).
inline constexpr std::uintmax_t kMaxTableBytes = 512u << 20;

struct CsvTable {
  std::string path;
  std::vector<std::string> names;           ///< the header's names, in order
  std::vector<std::vector<Scalar>> columns;  ///< columns[j][i]: row i of column names[j]
  std::vector<int> lines;                   ///< lines[i]: the file's line of row i (1-based)
  int header_line = 0;                      ///< the header's line (1-based)

  int rows() const { return static_cast<int>(lines.size()); }
  /// The index of the column named `name`, or -1.
  int find(const std::string& name) const;
};

/// Reads `path`. Throws ModelError with "path:line:col: error: what is wrong" for a missing or
/// unreadable file, an empty or repeated header name, a row of the wrong length, a field that is
/// not a finite number, or a table with no rows.
CsvTable readCsvTable(const std::string& path);

/// Same, from text; `path` is used in messages.
CsvTable parseCsvTable(const std::string& text, const std::string& path);

}  // namespace loopdyn::io
