// End-to-end: the loopdyn executable's output, exit codes and error lines.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <sys/wait.h>

#include "test_models.hpp"

namespace loopdyn {
namespace {

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CliRun run(const std::string& args) {
  const std::string command = std::string(LOOPDYN_CLI_PATH) + " " + args + " 2>&1";
  CliRun result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TEST(AnalyzeCommand, PrintsJsonWithTheStableKeys) {
  const CliRun r = run("analyze --json " + test::modelPath("double_four_bar_singular"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* key : {"\"n\": 15", "\"m\": 14", "\"h\": 0", "\"rank\": 12", "\"rank_holonomic\": 12",
                          "\"rank_nonholonomic\": 0", "\"redundancy\": 2", "\"mobility\": 3", "\"grubler\": 1",
                          "\"singular\": true", "\"dependent_equations\": ["})
    EXPECT_NE(r.output.find(key), std::string::npos) << key << " in\n" << r.output;
}

TEST(AnalyzeCommand, TextReportNamesSingularity) {
  const CliRun r = run("analyze " + test::modelPath("double_four_bar_singular"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("singular     YES: rank 12 here, generic rank 14"), std::string::npos) << r.output;
}

TEST(AnalyzeCommand, BrokenModelExitsWithCode2AndOneLocatedLine) {
  const std::string path = std::string(LOOPDYN_TEST_DATA_DIR) + "/broken/unknown_key.yaml";
  const CliRun r = run("analyze " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, path + ":8:5: error: unknown key 'mas' in body (did you mean 'mass'?)\n");
}

TEST(AnalyzeCommand, UsageErrorExitsWithCode1) {
  EXPECT_EQ(run("analyze").exit_code, 1);
  EXPECT_EQ(run("frobnicate").exit_code, 1);
}

}  // namespace
}  // namespace loopdyn
