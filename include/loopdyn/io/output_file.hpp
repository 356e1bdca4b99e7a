#pragma once
/// An output file written so that a reader never sees half of it and nothing the user did not ask
/// to replace is touched:
///
/// - the text goes to a temporary file beside the target, which replaces the target only on
///   commit(); an OutputFile destroyed without commit (an error, a failed run) removes its
///   temporary file and leaves the target as it was;
/// - a path that is a symbolic link is followed: the file it leads to is replaced, the link stays;
/// - a target that exists and is not a regular file (/dev/null, /dev/full, a pipe, /dev/stdout) is
///   written directly, never replaced; every write, the flush and the close are checked.
///
/// Opening creates the temporary file, so an unwritable directory is found before any work is
/// done. Every failure throws OutputError naming the file and the reason.

#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace loopdyn::io {

/// Writing or renaming an output file failed (message names the file and the reason).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "out.failed.csv" for "out.csv" ("out.failed" for "out"): where a failed run's rows are kept.
std::string failedPath(const std::string& path);
/// "out.partial.csv" for "out.csv": where an interrupted run's rows are kept (Ctrl-C).
std::string partialPath(const std::string& path);

class OutputFile {
 public:
  /// Opens the temporary file beside where `path` leads (or the device itself). `keep_on_signal`:
  /// when the process is interrupted, what was written is kept under partialPath(path) (a table's
  /// rows); otherwise the temporary file is removed. Throws OutputError.
  explicit OutputFile(std::string path, bool keep_on_signal = false);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends text; throws OutputError when it cannot be written (a full disk).
  void write(std::string_view text);
  /// Hands what was written so far to the device without waiting for it (Linux's sync_file_range),
  /// so that the file system places it now, on the caller's thread, and not in commit(): ext4
  /// writes out a file's data when it replaces another by a rename (2 ms of the double four-bar's
  /// 1.6 MB table at commit, measured). Nothing to do for a device. Throws OutputError.
  void startWriteback();
  /// Flushes and closes; the text then replaces the target. Throws OutputError.
  void commit();
  /// Flushes and closes, then moves the text to `other` instead (a failed run's outputs go under
  /// names that say so); returns that path (or path() for a device, where the text already went).
  std::string commitTo(const std::string& other);
  std::string commitFailed() { return commitTo(failedPath(path_)); }

  /// The path as given.
  const std::string& path() const { return path_; }
  /// Written directly: the target is a device or a pipe.
  bool direct() const { return direct_; }

 private:
  void close();

  std::string path_, target_, temporary_;
  std::ofstream out_;
  bool direct_ = false, committed_ = false;
  int slot_ = -1;  ///< in the table of open temporaries handled on a signal
  int writeback_ = -1;  ///< a descriptor of the temporary file for startWriteback
};

/// Interrupted (SIGINT, SIGTERM, SIGHUP), the process renames every open OutputFile's temporary
/// file that keeps its rows to partialPath of its target (what had reached the disk) and removes
/// the others before it ends as the signal asks: nothing is left under a temporary name, and
/// nothing half-written under the requested one. Call once, from main.
void keepPartialOutputsOnSignal();

/// Writes `text` to `path` as an OutputFile does, at once. Throws OutputError on failure.
void writeFileAtomically(const std::string& path, const std::string& text);

/// Whether two paths lead to the same regular file (after symbolic links), or would be written to
/// the same place: an output must not replace the model it is computed from, nor another output.
/// (Two writes to one device, /dev/null say, are not a conflict.)
bool sameFile(const std::string& a, const std::string& b);

}  // namespace loopdyn::io
