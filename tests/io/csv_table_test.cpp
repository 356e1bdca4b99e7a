#include "loopdyn/io/csv_table.hpp"

#include <gtest/gtest.h>

#include "loopdyn/common/errors.hpp"

namespace loopdyn::io {
namespace {

TEST(CsvTable, ReadsNamesRowsAndTheirLines) {
  const CsvTable t = parseCsvTable("# a comment\nt,\"A.q1\", A.v1\n0,1.5,-2e-3\n\n0.5,2,3\n", "m.csv");
  ASSERT_EQ(t.names, (std::vector<std::string>{"t", "A.q1", "A.v1"}));
  EXPECT_EQ(t.rows(), 2);
  EXPECT_EQ(t.lines, (std::vector<int>{3, 5}));
  EXPECT_EQ(t.columns[2][0], -2e-3);
  EXPECT_EQ(t.find("A.q1"), 1);
  EXPECT_EQ(t.find("B"), -1);
}

/// The message of parsing `text` ("" when it parses).
std::string problem(const std::string& text) {
  try {
    parseCsvTable(text, "m.csv");
  } catch (const ModelError& e) {
    return e.what();
  }
  return {};
}

TEST(CsvTable, ProblemsNameTheFileLineAndColumn) {
  EXPECT_NE(problem("t,x\n0,1\n1,abc\n").find("m.csv:3:3: error: 'abc' in column 'x' is not a finite number"),
            std::string::npos)
      << problem("t,x\n0,1\n1,abc\n");
  EXPECT_NE(problem("t,x\n0,1,2\n").find("m.csv:2:1: error: 3 fields where the header has 2 columns"), std::string::npos);
  EXPECT_NE(problem("t,x,t\n0,1,2\n").find("m.csv:1:5: error: column 't' appears twice"), std::string::npos);
  EXPECT_NE(problem("t,,x\n").find("a column without a name"), std::string::npos);
  EXPECT_NE(problem("t,x\n").find("no rows after the header"), std::string::npos);
  EXPECT_NE(problem("\n# only\n").find("no header line"), std::string::npos);
  EXPECT_NE(problem("t\ninf\n").find("is not a finite number"), std::string::npos);
  EXPECT_NE(problem("t\n1.5x\n").find("is not a finite number"), std::string::npos);
  EXPECT_THROW(readCsvTable("/nonexistent/table.csv"), ModelError);
}

}  // namespace
}  // namespace loopdyn::io
