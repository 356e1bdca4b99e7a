#include "inverse_summary.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "report_format.hpp"

namespace loopdyn::reports {

std::string inverseStatusName(InverseStatus status) {
  switch (status) {
    case InverseStatus::Completed: return "completed";
    case InverseStatus::MotionNotPrescribed: return "motion-not-prescribed";
    case InverseStatus::ActuationSingular: return "actuation-singular";
    case InverseStatus::AssemblyFailed: return "assembly-failed";
    case InverseStatus::EvaluationFailed: return "evaluation-failed";
    case InverseStatus::InconsistentMotion: return "inconsistent-motion";
    case InverseStatus::BranchJump: return "branch-jump";
    case InverseStatus::EffortLimitsExceeded: return "effort-limits-exceeded";
  }
  return "?";
}

namespace {

/// " along 0.58 leg1 - 0.58 leg2 + 0.58 leg3" (and "... and ..." for more than one direction).
std::string unboundedText(const InverseResult& r, const std::vector<std::string>& drivers) {
  if (r.unbounded_efforts.empty()) return {};
  std::string text = r.unbounded_with_preloads ? " within the span of " : " along ";
  for (std::size_t k = 0; k < r.unbounded_efforts.size(); ++k)
    text += (k ? " and " : "") + preloadText(r.unbounded_efforts[k], drivers);
  if (r.unbounded_with_preloads) text += " (with redundant actuation's preloads: no regular time before to tell them apart),";
  return text;
}

/// "drive1 12.3 (limits -10 to 10), ...": the efforts of the choice without bounds that leave theirs.
std::string beyondLimitsText(const InverseResult& r, const std::vector<std::string>& drivers) {
  std::string text;
  for (Eigen::Index i = 0; i < r.limited_efforts.size(); ++i) {
    const Scalar tau = r.limited_efforts(i);
    if (tau >= r.effort_lower(i) && tau <= r.effort_upper(i)) continue;
    text += (text.empty() ? "" : ", ") + drivers[static_cast<std::size_t>(i)] + " " + formatNumber(tau) + " (limits " +
            formatNumber(r.effort_lower(i)) + " to " + formatNumber(r.effort_upper(i)) + ")";
  }
  return text;
}

}  // namespace

std::string inverseFailureText(const InverseResult& r, const std::vector<std::string>& drivers) {
  const std::string at = "at t = " + formatNumber(r.t) + ": ";
  switch (r.status) {
    case InverseStatus::Completed: return {};
    case InverseStatus::MotionNotPrescribed:
      return "the actuators and drivers leave " + std::to_string(r.freedoms) +
             " freedom(s) of the mechanism unprescribed (generic rank " + std::to_string(r.generic_rank) +
             "): inverse dynamics needs the motion determined; add actuators";
    case InverseStatus::ActuationSingular:
      return at + "a singular configuration of the actuation: the constraints' rank falls below " +
             std::to_string(r.generic_rank) + " (or comes within a pivot ratio of 1e-3 of it), leaving " +
             std::to_string(r.freedoms) + " freedom(s) the actuators do not control: near it their efforts grow without "
             "bound" + unboundedText(r, drivers) +
             " unless the load has no part along that freedom, and at it they are not unique";
    case InverseStatus::AssemblyFailed: return at + "no configuration meets the prescribed motion: " + assemblyFailureText(r.assembly);
    case InverseStatus::EvaluationFailed: return at + "the equations of motion cannot be solved: " + problemText(r.problem);
    case InverseStatus::InconsistentMotion:
      return at + "the prescribed accelerations disagree by " + formatNumber(r.max_acceleration_residual) +
             " 1/s^2 (scaled; at most " + formatNumber(r.acceleration_bound) +
             " accepted): the trajectories of redundant actuators are not consistent (sample them finer, or give "
             "their rates)";
    case InverseStatus::BranchJump:
      return at + "the configuration assembled is not the one the motion from t = " + formatNumber(r.t_before) +
             " reaches (the bodies' points miss the Hermite rule by " + formatNumber(r.jump.miss) + " m in a step of " +
             formatNumber(r.jump.step) + " m): it jumped to another assembly branch, or the samples are too coarse to "
             "tell; sample finer";
    case InverseStatus::EffortLimitsExceeded:
      return at + "no efforts within the limits produce the motion (without the limits the weighted choice needs " +
             beyondLimitsText(r, drivers) + ")";
  }
  return {};
}

std::string preloadText(const VecX& preload, const std::vector<std::string>& drivers) {
  std::string text;
  for (Eigen::Index i = 0; i < preload.size(); ++i) {
    const Scalar c = preload(i);
    if (std::abs(c) < 1e-12) continue;
    text += text.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
    text += formatNumber(std::abs(c)) + " " + drivers[static_cast<std::size_t>(i)];
  }
  return text;
}

std::string inverseText(const InverseRun& run) {
  std::ostringstream out;
  out << "model        " << run.model_name << " (" << run.model_path << ")\n";
  out << "motion       " << (run.trajectory.empty() ? "the model's drivers" : run.trajectory) << '\n';
  std::string drivers;
  for (const std::string& d : run.drivers) drivers += (drivers.empty() ? "" : ", ") + d;
  out << "actuators    " << (drivers.empty() ? "(none)" : drivers) << '\n';
  out << "samples      " << run.result.samples << " of " << run.times << '\n';
  out << "residuals    positions " << formatNumber(run.result.max_position_residual) << ", velocities "
      << formatNumber(run.result.max_velocity_residual) << " 1/s, accelerations "
      << formatNumber(run.result.max_acceleration_residual) << " 1/s^2 (scaled, largest)\n";
  out << "continuity   " << formatNumber(run.result.max_continuity_miss)
      << " of a step at most (the bodies' points between consecutive times off one smooth motion; above "
      << formatNumber(run.result.continuity_bound) << " the run stops: a branch jump)\n";
  if (run.result.samples == 0 && !run.result.ok()) {
    out << "FAILED       " << inverseFailureText(run.result, run.drivers) << '\n';
    return out.str();
  }
  std::vector<std::string> efforts;
  for (const std::string& d : run.drivers)
    if (std::find(run.non_unique.begin(), run.non_unique.end(), d + ".effort") != run.non_unique.end())
      efforts.push_back(d);
  if (efforts.empty()) {
    out << "efforts      unique (the model determines every actuator's effort)\n";
  } else {
    std::string list;
    for (const std::string& e : efforts) list += (list.empty() ? "" : ", ") + e;
    out << "efforts      NOT unique: " << list << " (redundant actuation: their values are the " << run.resolution
        << " choice, one of many)\n";
    for (const VecX& preload : run.preloads)
      out << "preload      " << preloadText(preload, run.drivers)
          << " (efforts added in this ratio change no motion; at the start)\n";
  }
  out << "non-unique   " << run.non_unique.size() << " column(s)";
  if (!run.non_unique.empty()) out << " (listed in the columns sidecar)";
  out << '\n';
  if (!run.out_path.empty() && run.result.ok()) out << "output       " << run.out_path << '\n';
  if (!run.result.ok()) out << "FAILED       " << inverseFailureText(run.result, run.drivers) << '\n';
  return out.str();
}

}  // namespace loopdyn::reports
