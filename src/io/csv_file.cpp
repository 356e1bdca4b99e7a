#include "loopdyn/io/csv_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace loopdyn::io {

namespace {

std::string temporaryName(const std::string& path) {
  return path + ".tmp-" + std::to_string(static_cast<long>(::getpid()));
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw OutputError("cannot " + what + " '" + path + "': " + std::strerror(errno));
}

void renameOnto(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    const int saved = errno;
    std::remove(from.c_str());
    errno = saved;
    fail(to, "write");
  }
}

}  // namespace

CsvFile::CsvFile(std::string path, const std::vector<std::string>& header)
    : path_(std::move(path)), temporary_(temporaryName(path_)) {
  out_.open(temporary_, std::ios::out | std::ios::trunc);
  if (!out_) fail(path_, "create a file beside");
  for (std::size_t k = 0; k < header.size(); ++k) out_ << (k == 0 ? "" : ",") << header[k];
  out_ << '\n';
}

CsvFile::~CsvFile() {
  if (committed_) return;
  out_.close();
  std::remove(temporary_.c_str());
}

void CsvFile::writeRow(const std::vector<double>& row) {
  line_.clear();
  char buffer[32];
  for (std::size_t k = 0; k < row.size(); ++k) {
    if (k > 0) line_ += ',';
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, row[k]);
    line_.append(buffer, ec == std::errc{} ? end : buffer);
  }
  line_ += '\n';
  out_ << line_;
}

void CsvFile::commit() {
  out_.flush();
  if (!out_) fail(path_, "write");
  out_.close();
  renameOnto(temporary_, path_);
  committed_ = true;
}

std::string CsvFile::commitFailed() {
  const std::string failed = failedPath(path_);
  out_.flush();
  if (!out_) fail(failed, "write");
  out_.close();
  renameOnto(temporary_, failed);
  committed_ = true;
  return failed;
}

std::string failedPath(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1)
    return path + ".failed";
  return path.substr(0, dot) + ".failed" + path.substr(dot);
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = temporaryName(path);
  {
    std::ofstream out(temporary, std::ios::out | std::ios::trunc);
    if (!out) fail(path, "create a file beside");
    out << text;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      fail(path, "write");
    }
  }
  renameOnto(temporary, path);
}

}  // namespace loopdyn::io
