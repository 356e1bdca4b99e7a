#pragma once
/// Checks of numeric command-line options with plain messages. (CLI11's PositiveNumber lets NaN
/// through -- `--t-end nan` ran and exited 0 -- and states its range as the 309 digits of the
/// largest double.)

#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "loopdyn/common/errors.hpp"

namespace loopdyn::cli {

/// A finite number above zero (`positive`) or at least zero.
inline CLI::Validator finiteNumber(bool positive) {
  return CLI::Validator(
      [positive](std::string& text) -> std::string {
        double value = 0;
        std::size_t used = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::out_of_range&) {
          return "expected a finite number, got " + text + " (beyond the range of a double)";
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || used == 0) return "expected a number, got '" + text + "'";
        if (!std::isfinite(value)) return "expected a finite number, got " + text;
        if (positive ? !(value > 0) : !(value >= 0))
          return std::string("must be ") + (positive ? "greater than 0" : "0 or more") + ", got " + text;
        return {};
      },
      positive ? "POSITIVE" : "NON-NEGATIVE");
}

/// Prints a library range check's finding as the option's command-line flag ("rtol" -> "--rtol",
/// "t_end" -> "--t-end"); true when there was one (the command then exits 1).
/// A library message that starts with a request field's name ("eliminate: ...", "threads: ...")
/// in the command line's words ("--eliminate: ..."); any other message as it is.
inline std::string inCommandLineWords(const std::string& message) {
  const std::size_t colon = message.find(':');
  if (colon == std::string::npos || colon == 0 ||
      message.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != colon)
    return message;
  std::string field = message.substr(0, colon);
  if (field == "points") field = "point";  // the one option named in the singular (it repeats)
  std::string flag = "--" + field;
  for (char& c : flag) c = c == '_' ? '-' : c;
  return flag + message.substr(colon);
}

inline bool reportOptionProblem(const std::optional<OptionProblem>& problem) {
  if (!problem) return false;
  std::string flag = "--" + problem->option;
  for (char& c : flag) c = c == '_' ? '-' : c;
  std::cerr << "loopdyn: error: " << flag << ": " << problem->message << '\n';
  return true;
}

}  // namespace loopdyn::cli
