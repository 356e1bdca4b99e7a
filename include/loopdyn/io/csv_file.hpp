#pragma once
/// A CSV table written so that a reader never sees half of it: rows go to a temporary file beside
/// the target, which replaces the target only on commit(). A CsvFile destroyed without commit()
/// (an error, a failed simulation) removes its temporary file and leaves the target untouched.
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

  void writeRow(const std::vector<double>& row);
  /// Flushes, closes and renames onto the target path. Throws OutputError on failure.
  void commit();

  const std::string& path() const { return path_; }

 private:
  std::string path_, temporary_;
  std::ofstream out_;
  std::string line_;
  bool committed_ = false;
};

/// Writes `text` to `path` atomically (temporary file + rename). Throws OutputError on failure.
void writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace loopdyn::io
