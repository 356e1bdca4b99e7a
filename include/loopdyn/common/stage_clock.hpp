#pragma once
/// Where the time of a run goes (issue 48: "where the time goes, as data"): a clock that charges
/// the wall time to the stage in progress. A StageTimer enters a stage for its scope and returns to
/// the enclosing one at its end, so nested stages (the samples inside an integrator's step) are
/// charged to themselves alone. Two reads of a steady clock per stage entered: tens of
/// nanoseconds, nothing beside a step.

#include <array>
#include <chrono>
#include <cstddef>

namespace loopdyn {

template <class Stage, std::size_t N>
class StageClock {
 public:
  /// Starts in `first`.
  explicit StageClock(Stage first) : current_(first), since_(std::chrono::steady_clock::now()) {}

  /// Charges the time since the last switch to the current stage and makes `next` current;
  /// returns the stage left.
  Stage enter(Stage next) {
    const auto now = std::chrono::steady_clock::now();
    seconds_[static_cast<std::size_t>(current_)] += std::chrono::duration<double>(now - since_).count();
    since_ = now;
    const Stage left = current_;
    current_ = next;
    return left;
  }
  /// The seconds charged to each stage so far (the current one up to its last switch).
  const std::array<double, N>& seconds() const { return seconds_; }

 private:
  Stage current_;
  std::chrono::steady_clock::time_point since_;
  std::array<double, N> seconds_{};
};

/// Enters a stage for the scope and returns to the one it left.
template <class Clock, class Stage>
class StageTimer {
 public:
  StageTimer(Clock& clock, Stage stage) : clock_(clock), left_(clock.enter(stage)) {}
  ~StageTimer() { clock_.enter(left_); }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  Clock& clock_;
  Stage left_;
};

/// The wall time between laps: lap() returns the seconds since the last lap (or construction).
class LapTimer {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - since_).count();
    since_ = now;
    return seconds;
  }

 private:
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
};

}  // namespace loopdyn
