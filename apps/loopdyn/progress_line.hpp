#pragma once
// A one-line progress display for long runs (issue 19): simulated time, percentage, wall time and
// the estimated time left, rewritten in place on stderr a few times a second -- only when stderr
// is a terminal, so logs and pipes stay clean.

#include <chrono>
#include <string>

namespace loopdyn::cli {

class ProgressLine {
 public:
  /// A run from t0 to t_end; shown when `enabled` (see stderrIsTerminal).
  ProgressLine(double t0, double t_end, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Says what the command is doing before the run (issue 48: a large model's start takes
  /// seconds): "  what ...", rewritten in place until the header.
  void stage(const std::string& what);
  /// Prints `text` on its own line (the run's header) when shown; the run's clock starts.
  void header(const std::string& text);
  /// The run has reached t: redraws the line at most every 0.2 s of wall time.
  void update(double t);
  /// Clears the line (the summary follows on stdout).
  void finish();

 private:
  double t0_, t_end_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

/// Whether stderr is a terminal (and TERM is not "dumb").
bool stderrIsTerminal();

}  // namespace loopdyn::cli
