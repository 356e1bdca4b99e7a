#include "loopdyn/io/csv_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <csignal>

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

/// Open temporaries and where a signal moves them, in fixed storage: the handler may only call
/// async-signal-safe functions (rename, signal, raise), no allocation.
struct PendingOutput {
  volatile std::sig_atomic_t used = 0;
  std::array<char, 4096> temporary{}, failed{};
};
std::array<PendingOutput, 8> pending;

int registerPending(const std::string& temporary, const std::string& failed) {
  if (temporary.size() >= 4096 || failed.size() >= 4096) return -1;
  for (std::size_t k = 0; k < pending.size(); ++k) {
    if (pending[k].used) continue;
    std::copy(temporary.begin(), temporary.end(), pending[k].temporary.begin());
    pending[k].temporary[temporary.size()] = '\0';
    std::copy(failed.begin(), failed.end(), pending[k].failed.begin());
    pending[k].failed[failed.size()] = '\0';
    pending[k].used = 1;
    return static_cast<int>(k);
  }
  return -1;
}

void releasePending(int slot) {
  if (slot >= 0) pending[static_cast<std::size_t>(slot)].used = 0;
}

extern "C" void onTerminatingSignal(int signal_number) {
  for (PendingOutput& p : pending) {
    if (!p.used) continue;
    std::rename(p.temporary.data(), p.failed.data());
    // says where (write(2) is async-signal-safe; the text was ready beforehand)
    static constexpr char kSaid[] = "\nloopdyn: interrupted; the samples so far are in ";
    (void)!::write(STDERR_FILENO, kSaid, sizeof kSaid - 1);
    (void)!::write(STDERR_FILENO, p.failed.data(), std::strlen(p.failed.data()));
    (void)!::write(STDERR_FILENO, "\n", 1);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

void keepPartialOutputsOnSignal() {
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, onTerminatingSignal);
}

/// True when `path` names something other than a regular file (a device, a pipe): it is written
/// directly, never replaced by a rename.
bool isSpecialFile(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
}

CsvFile::CsvFile(std::string path, const std::vector<std::string>& header)
    : path_(std::move(path)), temporary_(isSpecialFile(path_) ? path_ : temporaryName(path_)) {
  direct_ = temporary_ == path_;
  out_.open(temporary_, std::ios::out | std::ios::trunc);
  if (!out_) fail(path_, direct_ ? "write" : "create a file beside");
  if (!direct_) slot_ = registerPending(temporary_, partialPath(path_));
  for (std::size_t k = 0; k < header.size(); ++k) out_ << (k == 0 ? "" : ",") << header[k];
  out_ << '\n';
}

CsvFile::~CsvFile() {
  releasePending(slot_);
  if (committed_) return;
  out_.close();
  if (!direct_) std::remove(temporary_.c_str());
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
  out_ << line_;
  if (!out_) fail(path_, "write");
}

void CsvFile::commit() {
  releasePending(slot_);
  out_.flush();
  if (!out_) fail(path_, "write");
  out_.close();
  if (!direct_) renameOnto(temporary_, path_);
  committed_ = true;
}

std::string CsvFile::commitFailed() {
  releasePending(slot_);
  if (direct_) {
    out_.flush();
    committed_ = true;
    return path_;  // (a device or pipe: the rows went there)
  }
  const std::string failed = failedPath(path_);
  out_.flush();
  if (!out_) fail(failed, "write");
  out_.close();
  renameOnto(temporary_, failed);
  committed_ = true;
  return failed;
}

namespace {

/// "out.WORD.csv" for "out.csv" ("out.WORD" for "out").
std::string markedPath(const std::string& path, const char* word) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1)
    return path + "." + word;
  return path.substr(0, dot) + "." + word + path.substr(dot);
}

}  // namespace

std::string failedPath(const std::string& path) { return markedPath(path, "failed"); }

std::string partialPath(const std::string& path) { return markedPath(path, "partial"); }

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
