#pragma once
// Runs the loopdyn executable for end-to-end tests.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace loopdyn::test {

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout, then stderr when merge_stderr
};

/// `loopdyn <args>`; stderr is merged into the output unless merge_stderr is false (then it is
/// discarded).
inline CliRun runCli(const std::string& args, bool merge_stderr = true) {
  const std::string command = std::string(LOOPDYN_CLI_PATH) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  CliRun result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace loopdyn::test
