#include "progress_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace loopdyn::cli {

bool stderrIsTerminal() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) == 1 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

ProgressLine::ProgressLine(double t0, double t_end, bool enabled)
    : t0_(t0), t_end_(t_end), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::stage(const std::string& what) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r  %s ...\033[K", what.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::header(const std::string& text) {
  if (!enabled_) return;
  finish();
  std::fprintf(stderr, "%s\n", text.c_str());
  start_ = last_ = std::chrono::steady_clock::now();
}

void ProgressLine::update(double t) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  drawn_ = true;
  const double wall = std::chrono::duration<double>(now - start_).count();
  const double done = t_end_ > t0_ ? std::clamp((t - t0_) / (t_end_ - t0_), 0.0, 1.0) : 1.0;
  constexpr int kWidth = 30;
  char bar[kWidth + 1];
  const int filled = static_cast<int>(done * kWidth);
  for (int k = 0; k < kWidth; ++k) bar[k] = k < filled ? '#' : '.';
  bar[kWidth] = '\0';
  char eta[32] = "?";
  if (done > 0.01) std::snprintf(eta, sizeof eta, "%.1f s", wall * (1 - done) / done);
  // \r and "erase to the end of the line": the line is rewritten in place
  std::fprintf(stderr, "\r  t = %.4g of %.4g s [%s] %3.0f%%  wall %.1f s  left %s\033[K", t, t_end_, bar, 100 * done,
               wall, eta);
  std::fflush(stderr);
}

void ProgressLine::finish() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace loopdyn::cli
