#pragma once
/// The words of an inverse-dynamics run (`loopdyn inverse`, include/loopdyn/inverse.hpp): why it
/// stopped, and its summary.

#include <string>
#include <vector>

#include "loopdyn/inverse.hpp"

namespace loopdyn::reports {

/// The status's name in the Python module and reports: completed, motion-not-prescribed,
/// actuation-singular, assembly-failed, evaluation-failed, inconsistent-motion, branch-jump,
/// effort-limits-exceeded.
std::string inverseStatusName(InverseStatus status);

/// One sentence: why the run stopped before its last time ("" when it completed); `drivers` name
/// the entries of the unbounded efforts' directions (driverNames).
std::string inverseFailureText(const InverseResult& result, const std::vector<std::string>& drivers);

/// What the summary says of a run.
struct InverseRun {
  std::string model_name, model_path, trajectory, out_path;
  std::vector<std::string> drivers;       ///< every driver of the prescribed model (the actuators')
  std::vector<std::string> non_unique;    ///< the columns whose values the model does not determine
  std::vector<VecX> preloads;             ///< InverseSetup::preloads (over drivers)
  std::size_t times = 0;
  InverseResult result;
  std::string resolution = "least-norm";  ///< the choice among non-unique efforts (effortResolutionName)
};

/// A preload in words: "0.63 drive1 - 0.43 drive2 + 0.64 B.actuator" (the drivers' efforts in
/// this ratio change no motion).
std::string preloadText(const VecX& preload, const std::vector<std::string>& drivers);

/// The text summary: the actuators, samples, residuals, which efforts and reactions are unique.
std::string inverseText(const InverseRun& run);

}  // namespace loopdyn::reports
