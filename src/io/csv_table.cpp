#include "loopdyn/io/csv_table.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "loopdyn/common/errors.hpp"

namespace loopdyn::io {

namespace {

[[noreturn]] void fail(const std::string& path, int line, int column, const std::string& message) {
  throw ModelError({Diagnostic{SourceLocation{path, line, column}, message}});
}

/// The fields of one line with the 1-based column each starts at; quotes around a field removed.
std::vector<std::pair<std::string, int>> splitFields(const std::string& line) {
  std::vector<std::pair<std::string, int>> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    std::string field = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t first = field.find_first_not_of(" \t\r"), last = field.find_last_not_of(" \t\r");
    field = first == std::string::npos ? std::string() : field.substr(first, last - first + 1);
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"') field = field.substr(1, field.size() - 2);
    fields.emplace_back(field, static_cast<int>(start) + 1);
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

bool skipped(const std::string& line) {
  const std::size_t first = line.find_first_not_of(" \t\r");
  return first == std::string::npos || line[first] == '#';
}

void readHeader(const std::string& line, int number, CsvTable& table) {
  std::unordered_set<std::string> seen;
  for (auto& [name, column] : splitFields(line)) {
    if (name.empty()) fail(table.path, number, column, "a column without a name in the header");
    if (!seen.insert(name).second)
      fail(table.path, number, column, detail::concat("column '", printable(name), "' appears twice"));
    table.names.push_back(name);
  }
  table.columns.resize(table.names.size());
}

void readRow(const std::string& line, int number, CsvTable& table) {
  const auto fields = splitFields(line);
  if (fields.size() != table.names.size())
    fail(table.path, number, 1,
         detail::concat(fields.size(), " fields where the header has ", table.names.size(), " columns"));
  for (std::size_t j = 0; j < fields.size(); ++j) {
    const std::string& text = fields[j].first;
    Scalar value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
      fail(table.path, number, fields[j].second,
           detail::concat("'", printable(text), "' in column '", printable(table.names[j]), "' is not a finite number"));
    table.columns[j].push_back(value);
  }
  table.lines.push_back(number);
}

}  // namespace

int CsvTable::find(const std::string& name) const {
  for (std::size_t j = 0; j < names.size(); ++j)
    if (names[j] == name) return static_cast<int>(j);
  return -1;
}

CsvTable parseCsvTable(const std::string& text, const std::string& path) {
  CsvTable table;
  table.path = path;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (skipped(line)) continue;
    if (table.names.empty()) {
      table.header_line = number;
      readHeader(line, number, table);
    } else {
      readRow(line, number, table);
    }
  }
  if (table.names.empty()) fail(path, 0, 0, "no header line (the column names)");
  if (table.lines.empty()) fail(path, number, 0, "no rows after the header");
  return table;
}

CsvTable readCsvTable(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error) && !std::filesystem::is_fifo(path, error))
    fail(path, 0, 0, std::filesystem::exists(path, error) ? "not a regular file" : "no such file");
  if (std::filesystem::is_regular_file(path, error) && std::filesystem::file_size(path, error) > kMaxTableBytes)
    fail(path, 0, 0, detail::concat("larger than ", kMaxTableBytes >> 20, " MB"));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, 0, 0, "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parseCsvTable(text.str(), path);
}

}  // namespace loopdyn::io
