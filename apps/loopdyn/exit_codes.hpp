#pragma once
/// Exit codes of the loopdyn command (see README).

namespace loopdyn::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
inline constexpr int kExitModelError = 2;
inline constexpr int kExitNumericalFailure = 3;
inline constexpr int kExitOutputError = 4;

}  // namespace loopdyn::cli
