#include "loopdyn/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace loopdyn::io {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error = errno) {
  throw OutputError("cannot " + what + " '" + path + "': " + std::strerror(error));
}

/// Where `path` leads: the file at the end of its symbolic links (at most 40, as the kernel's
/// limit), or `path` itself.
std::string followLinks(const std::string& path) {
  fs::path p = path;
  std::error_code ec;
  for (int hop = 0; hop < 40 && fs::is_symlink(p, ec); ++hop) {
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) break;
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return p.string();
}

/// A target that exists and is not a regular file (a device, a pipe): written directly.
bool isSpecialFile(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
}

std::string temporaryName(const std::string& target) {
  return target + ".tmp-" + std::to_string(static_cast<long>(::getpid()));
}

void renameOnto(const std::string& from, const std::string& to, const std::string& shown) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    const int saved = errno;
    std::remove(from.c_str());
    fail(shown, "write", saved);
  }
}

/// Open temporaries and where a signal moves them (nowhere: removed), in fixed storage: the
/// handler may only call async-signal-safe functions (rename, unlink, write, signal, raise).
struct PendingOutput {
  volatile std::sig_atomic_t used = 0;
  std::array<char, 4096> temporary{}, partial{};
};
std::array<PendingOutput, 8> pending;

void copyTerminated(const std::string& text, std::array<char, 4096>& into) {
  std::copy(text.begin(), text.end(), into.begin());
  into[text.size()] = '\0';
}

int registerPending(const std::string& temporary, const std::string& partial) {
  if (temporary.size() >= 4096 || partial.size() >= 4096) return -1;
  for (std::size_t k = 0; k < pending.size(); ++k) {
    if (pending[k].used) continue;
    copyTerminated(temporary, pending[k].temporary);
    copyTerminated(partial, pending[k].partial);
    pending[k].used = 1;
    return static_cast<int>(k);
  }
  return -1;
}

void releasePending(int& slot) {
  if (slot >= 0) pending[static_cast<std::size_t>(slot)].used = 0;
  slot = -1;
}

extern "C" void onTerminatingSignal(int signal_number) {
  for (PendingOutput& p : pending) {
    if (!p.used) continue;
    if (p.partial[0] == '\0') {
      ::unlink(p.temporary.data());
      continue;
    }
    std::rename(p.temporary.data(), p.partial.data());
    // says where (write(2) is async-signal-safe; the text was ready beforehand)
    static constexpr char kSaid[] = "\nloopdyn: interrupted; the samples so far are in ";
    (void)!::write(STDERR_FILENO, kSaid, sizeof kSaid - 1);
    (void)!::write(STDERR_FILENO, p.partial.data(), std::strlen(p.partial.data()));
    (void)!::write(STDERR_FILENO, "\n", 1);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

/// "out.WORD.csv" for "out.csv" ("out.WORD" for "out").
std::string markedPath(const std::string& path, const char* word) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1)
    return path + "." + word;
  return path.substr(0, dot) + "." + word + path.substr(dot);
}

}  // namespace

void keepPartialOutputsOnSignal() {
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, onTerminatingSignal);
}

std::string failedPath(const std::string& path) { return markedPath(path, "failed"); }

std::string partialPath(const std::string& path) { return markedPath(path, "partial"); }

OutputFile::OutputFile(std::string path, bool keep_on_signal) : path_(std::move(path)), target_(followLinks(path_)) {
  if (path_.empty()) throw OutputError("an output file needs a name");
  direct_ = isSpecialFile(target_);
  temporary_ = direct_ ? target_ : temporaryName(target_);
  out_.open(temporary_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) fail(path_, direct_ ? "write" : "create a file beside");
  if (!direct_) slot_ = registerPending(temporary_, keep_on_signal ? partialPath(path_) : std::string());
}

OutputFile::~OutputFile() {
  if (writeback_ >= 0) ::close(writeback_);
  releasePending(slot_);
  if (committed_) return;
  out_.close();
  if (!direct_) std::remove(temporary_.c_str());
}

void OutputFile::write(std::string_view text) {
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out_) fail(path_, "write");
}

void OutputFile::startWriteback() {
  if (direct_) return;
  out_.flush();
  if (!out_) fail(path_, "write");
  if (writeback_ < 0) writeback_ = ::open(temporary_.c_str(), O_WRONLY | O_CLOEXEC);
  // (only a hint: where it cannot be given, commit() writes the data out as before)
  if (writeback_ >= 0) ::sync_file_range(writeback_, 0, 0, SYNC_FILE_RANGE_WRITE);
}

void OutputFile::close() {
  if (writeback_ >= 0) ::close(writeback_);
  writeback_ = -1;
  releasePending(slot_);
  out_.flush();
  if (!out_) fail(path_, "write");
  errno = 0;
  out_.close();  // (a device reports a full disk only here, when the last bytes leave)
  if (!out_) fail(path_, "write");
}

void OutputFile::commit() {
  close();
  if (!direct_) renameOnto(temporary_, target_, path_);
  committed_ = true;
}

std::string OutputFile::commitTo(const std::string& other) {
  close();
  committed_ = true;
  if (direct_) return path_;  // (a device or pipe: the text went there)
  renameOnto(temporary_, followLinks(other), other);
  return other;
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  OutputFile file(path);
  file.write(text);
  file.commit();
}

bool sameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(followLinks(a), ea), cb = fs::weakly_canonical(followLinks(b), eb);
  return !ea && !eb && ca == cb;
}

}  // namespace loopdyn::io
