// The CSV output (csv_file.hpp): rows reach the target only on commit, numbers in the shortest
// form that reads back to the same double, a zero written 0 whatever its sign.

#include "loopdyn/io/csv_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace loopdyn::io {
namespace {

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path scratchPath(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("loopdyn_csv_file_test_" + name);
}

TEST(CsvFile, WritesRowsOnCommitInTheShortestRoundTripForm) {
  const std::filesystem::path path = scratchPath("commit.csv");
  std::filesystem::remove(path);
  {
    CsvFile csv(path.string(), {"t", "x", "y"});
    csv.writeRow({0.1, -0.0, 1.0 / 3.0});
    csv.writeRow({1e-300, 0.0, -2.5});
    EXPECT_FALSE(std::filesystem::exists(path));  // (not before commit)
    csv.commit();
  }
  const std::string text = contents(path);
  EXPECT_EQ(text, "t,x,y\n0.1,0,0.3333333333333333\n1e-300,0,-2.5\n");
  std::filesystem::remove(path);
}

TEST(CsvFile, LeavesTheTargetUntouchedWithoutCommit) {
  const std::filesystem::path path = scratchPath("untouched.csv");
  std::ofstream(path) << "before\n";
  {
    CsvFile csv(path.string(), {"t"});
    csv.writeRow({1.0});
  }
  EXPECT_EQ(contents(path), "before\n");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace loopdyn::io
