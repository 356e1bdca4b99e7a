#pragma once
/// A CSV table written so that a reader never sees half of it: rows go to a temporary file beside
/// the target, which replaces the target only on commit(). A CsvFile destroyed without commit()
/// (an error) removes its temporary file and leaves the target untouched. A run that failed keeps
/// what it wrote under a name that says so (commitFailed: out.csv -> out.failed.csv).
///
/// A target that exists and is not a regular file (/dev/stdout, a pipe, /dev/full) is written
/// directly and never replaced; every write is checked (OutputError).
///
/// Numbers are written in the shortest form that reads back to the same double.

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopdyn::io {

/// Writing or renaming an output file failed (message names the file and the reason).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CsvFile {
 public:
  /// Opens the temporary file and writes the header. Throws OutputError if it cannot.
  CsvFile(std::string path, const std::vector<std::string>& header);
  ~CsvFile();
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;

  /// Throws OutputError when the row cannot be written (a full disk).
  void writeRow(const std::vector<double>& row);
  /// Flushes, closes and renames onto the target path. Throws OutputError on failure.
  void commit();
  /// The same onto failedPath(path()), for the rows of a run that failed; returns that path.
  std::string commitFailed();

  const std::string& path() const { return path_; }

 private:
  std::string path_, temporary_;
  std::ofstream out_;
  std::string line_;
  bool committed_ = false;
  int slot_ = -1;  ///< in the table of open temporaries renamed on a signal
  bool direct_ = false;  ///< the target is a device or pipe: written directly, no temporary
};

/// Interrupted (SIGINT, SIGTERM, SIGHUP), the process renames every open CsvFile's temporary file to
/// partialPath of its target (what had reached the disk) before it ends as the signal asks: nothing
/// is left under a temporary name, and nothing half-written under the requested one. Call once,
/// from main.
void keepPartialOutputsOnSignal();

/// "out.failed.csv" for "out.csv" ("out.failed" for "out"): where a failed run's rows are kept.
std::string failedPath(const std::string& path);
/// "out.partial.csv" for "out.csv": where an interrupted run's rows are kept (Ctrl-C).
std::string partialPath(const std::string& path);

/// Writes `text` to `path` atomically (temporary file + rename). Throws OutputError on failure.
void writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace loopdyn::io
