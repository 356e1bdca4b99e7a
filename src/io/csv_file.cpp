#include "loopdyn/io/csv_file.hpp"

#include <charconv>

namespace loopdyn::io {

CsvFile::CsvFile(std::string path, const std::vector<std::string>& header) : file_(std::move(path), true) {
  for (std::size_t k = 0; k < header.size(); ++k) (line_ += k == 0 ? "" : ",") += header[k];
  line_ += '\n';
  file_.write(line_);
}

void CsvFile::writeRow(const std::vector<double>& row) {
  line_.clear();
  char buffer[32];
  for (std::size_t k = 0; k < row.size(); ++k) {
    if (k > 0) line_ += ',';
    // (+ 0: a zero is written 0 whatever its sign -- the sign of a zero is rounding's, not data)
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, row[k] + 0.0);
    line_.append(buffer, ec == std::errc{} ? end : buffer);
  }
  line_ += '\n';
  file_.write(line_);
}

}  // namespace loopdyn::io
