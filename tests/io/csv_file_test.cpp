// The CSV output (csv_file.hpp): rows reach the target only on commit, numbers in the shortest
// form that reads back to the same double, a zero written 0 whatever its sign; the writing thread
// keeps the rows' order under a full queue, and a full disk surfaces as OutputError.

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

// Rows of a third of the writing thread's queue, more than it holds: every row arrives, in order,
// and reads back to the same numbers.
TEST(CsvFile, WritesEveryRowInOrderThroughAFullQueue) {
  const std::filesystem::path path = scratchPath("queue.csv");
  const std::size_t width = CsvFile::kQueuedNumbers / 3;
  const int rows = 7;
  {
    CsvFile csv(path.string(), {"k"});
    std::vector<double> row(width);
    for (int k = 0; k < rows; ++k) {
      for (std::size_t j = 0; j < width; ++j) row[j] = k + static_cast<double>(j) / static_cast<double>(width);
      csv.writeRow(row);
    }
    csv.commit();
  }
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "k");
  int k = 0;
  for (; std::getline(in, line); ++k) {
    std::stringstream fields(line);
    std::string field;
    std::size_t j = 0;
    bool exact = true;
    for (; std::getline(fields, field, ','); ++j)
      exact = exact && std::stod(field) == k + static_cast<double>(j) / static_cast<double>(width);
    EXPECT_EQ(j, width) << "row " << k;
    EXPECT_TRUE(exact) << "row " << k;
  }
  EXPECT_EQ(k, rows);
  std::filesystem::remove(path);
}

// Many short rows: the thread writes them in chunks (at most kWrittenBytes, whenever the queue
// runs dry) and hands every kWritebackBytes to the device; the file has each row once, in order.
TEST(CsvFile, WritesManyShortRowsInOrderThroughItsChunks) {
  const std::filesystem::path path = scratchPath("short_rows.csv");
  const int rows = 40000;  // (about 1 MB: several chunks and writebacks)
  {
    CsvFile csv(path.string(), {"k", "x"});
    for (int k = 0; k < rows; ++k) csv.writeRow({static_cast<double>(k), k / 7.0});
    csv.commit();
  }
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "k,x");
  int k = 0;
  bool exact = true;
  for (; std::getline(in, line); ++k) {
    const std::size_t comma = line.find(',');
    exact = exact && comma != std::string::npos && std::stod(line.substr(0, comma)) == k &&
            std::stod(line.substr(comma + 1)) == k / 7.0;
  }
  EXPECT_EQ(k, rows);
  EXPECT_TRUE(exact);
  EXPECT_GT(std::filesystem::file_size(path), CsvFile::kWritebackBytes);
  std::filesystem::remove(path);
}

// A device with no room (/dev/full): the writing thread's failure reaches the caller as
// OutputError naming the file, at a later row or at the commit.
TEST(CsvFile, AFullDiskIsAnOutputErrorNamingTheFile) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  std::string message;
  try {
    CsvFile csv("/dev/full", {"t"});
    const std::vector<double> row(1000, 1.0 / 3.0);
    for (int k = 0; k < 200; ++k) csv.writeRow(row);
    csv.commit();
  } catch (const OutputError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("/dev/full"), std::string::npos) << message;
}

}  // namespace
}  // namespace loopdyn::io
