#pragma once
/// A CSV table written as an OutputFile (output_file.hpp): a reader never sees half of it, the
/// target is replaced only on commit(), a failed run keeps its rows under failedPath (out.csv ->
/// out.failed.csv), an interrupted one under partialPath (out.partial.csv); devices and pipes are
/// written directly; symbolic links are followed.
///
/// Numbers are written in the shortest form that reads back to the same double.

#include <string>
#include <vector>

#include "loopdyn/io/output_file.hpp"

namespace loopdyn::io {

class CsvFile {
 public:
  /// Opens the temporary file and writes the header. Throws OutputError if it cannot.
  CsvFile(std::string path, const std::vector<std::string>& header);

  /// Throws OutputError when the row cannot be written (a full disk).
  void writeRow(const std::vector<double>& row);
  /// Flushes, closes and renames onto the target path. Throws OutputError on failure.
  void commit() { file_.commit(); }
  /// The same onto failedPath(path()), for the rows of a run that failed; returns that path.
  std::string commitFailed() { return file_.commitFailed(); }

  const std::string& path() const { return file_.path(); }
  /// The target is a device or pipe, written directly (no sidecar belongs beside it).
  bool direct() const { return file_.direct(); }

 private:
  OutputFile file_;
  std::string line_;
};

}  // namespace loopdyn::io
