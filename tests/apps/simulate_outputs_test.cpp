// What `loopdyn simulate` and `analyze` write, and what they never touch (issue 45): devices and
// symbolic links are written through, never replaced; standard output is checked like a file; the
// model is never an output; every output is opened before the run and nothing is committed under
// the requested names when the exit code says failure.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>
#include <sstream>
#include <string>

#include "apps/cli_run.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

fs::path scratchDirectory(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("loopdyn_outputs_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The directory's entries other than `except`, by name.
std::vector<std::string> entries(const fs::path& dir, const std::set<std::string>& except = {}) {
  std::vector<std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (!except.count(e.path().filename().string())) out.push_back(e.path().filename().string());
  return out;
}

const std::string kDoubleFourBar = "double_four_bar";

TEST(SimulateOutputs, ReactionsNoneStillWritesTheDriversEffortsWithTheirMarks) {
  // segfaulted on every bundled model with a driver (the efforts read an empty uniqueness report)
  const fs::path dir = scratchDirectory("reactions_none");
  for (const char* name : {"mobile_robot", "five_bar", "knife_edge_car", "three_rpr"}) {
    const fs::path out = dir / (std::string(name) + ".csv");
    const test::CliRun r =
        test::runCli("simulate " + test::modelPath(name) + " --t-end 0.05 --reactions none --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.output;
    const std::string header = contents(out).substr(0, contents(out).find('\n'));
    EXPECT_NE(header.find(".effort"), std::string::npos) << name;
    EXPECT_EQ(header.find("@"), std::string::npos) << name << ": no reaction column";
    EXPECT_NE(contents(fs::path(out).replace_extension(".columns.json")).find("\"non_unique\""), std::string::npos);
  }
}

TEST(SimulateOutputs, SymbolicLinksAreFollowedNotReplaced) {
  const fs::path dir = scratchDirectory("links");
  fs::create_directories(dir / "data");
  fs::create_symlink("data/run.csv", dir / "run.csv");
  fs::create_symlink("data/page.html", dir / "page.html");
  const test::CliRun r = test::runCli("simulate " + test::modelPath(kDoubleFourBar) + " --t-end 0.1 --out " +
                                      (dir / "run.csv").string() + " --report " + (dir / "page.html").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir / "run.csv"));
  EXPECT_TRUE(fs::is_symlink(dir / "page.html"));
  EXPECT_EQ(contents(dir / "data" / "run.csv").rfind("t,crank1.x", 0), 0u);
  EXPECT_EQ(contents(dir / "data" / "page.html").rfind("<!doctype html>", 0), 0u);
}

TEST(SimulateOutputs, AReportToAPipeIsWrittenIntoItAndTheFifoStays) {
  // (as root, --report /dev/null turned /dev/null into a 1 MB regular file: a FIFO stands for it)
  const fs::path dir = scratchDirectory("fifo");
  const fs::path fifo = dir / "page.html", sink = dir / "sink.html";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(std::system(("cat " + fifo.string() + " > " + sink.string() + " &").c_str()), 0);
  const test::CliRun r = test::runCli("simulate " + test::modelPath(kDoubleFourBar) + " --t-end 0.1 --out " +
                                      (dir / "run.csv").string() + " --report " + fifo.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_fifo(fifo));
  for (int wait = 0; wait < 100 && contents(sink).find("</html>") == std::string::npos; ++wait)
    std::system("sleep 0.05");  // (cat finishes after the writer closed)
  EXPECT_EQ(contents(sink).rfind("<!doctype html>", 0), 0u);
}

TEST(SimulateOutputs, AReportThatCannotBeWrittenCommitsNothing) {
  // --report /dev/full exited 0 with the page lost
  const fs::path dir = scratchDirectory("report_full");
  const test::CliRun r = test::runCli("simulate " + test::modelPath(kDoubleFourBar) + " --t-end 0.1 --out " +
                                      (dir / "run.csv").string() + " --report /dev/full");
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("/dev/full"), std::string::npos) << r.output;
  EXPECT_EQ(entries(dir), std::vector<std::string>{}) << "no CSV, sidecar or temporary file";
}

TEST(SimulateOutputs, AnUnwritableReportDirectoryFailsBeforeTheRun) {
  // found only after the whole run (28 s on a large model), with the CSV already committed
  const fs::path dir = scratchDirectory("report_dir");
  const test::CliRun r = test::runCli("simulate " + test::modelPath(kDoubleFourBar) + " --t-end 0.1 --out " +
                                      (dir / "run.csv").string() + " --report " + (dir / "missing" / "r.html").string());
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find((dir / "missing" / "r.html").string()), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("steps"), std::string::npos) << "no run, no summary:\n" << r.output;
  EXPECT_EQ(entries(dir), std::vector<std::string>{});
}

TEST(SimulateOutputs, AFullStandardOutputIsAnOutputErrorAndCommitsNothing) {
  // analyze --json, analyze and simulate --json > /dev/full all exited 0
  const fs::path dir = scratchDirectory("stdout_full");
  const std::string model = test::modelPath(kDoubleFourBar);
  EXPECT_EQ(test::runCli("analyze " + model + " --json > /dev/full", false).exit_code, 4);
  EXPECT_EQ(test::runCli("analyze " + model + " > /dev/full", false).exit_code, 4);
  const std::string csv = (dir / "sweep.csv").string();
  EXPECT_EQ(test::runCli("analyze " + test::modelPath("paper003_four_bar") +
                             " --criterion --sweep O1.angle=0:1:3 --csv " + csv + " > /dev/full", false)
                .exit_code,
            4);
  const test::CliRun r = test::runCli("simulate " + model + " --t-end 0.1 --json --out " + (dir / "run.csv").string() +
                                          " > /dev/full",
                                      false);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(entries(dir), std::vector<std::string>{});
}

TEST(SimulateOutputs, TheModelFileIsNeverAnOutput) {
  // simulate m.yaml --out m.yaml (or --report m.yaml) exited 0 with the model replaced
  const fs::path dir = scratchDirectory("model_kept");
  const fs::path model = dir / "m.yaml";
  fs::copy_file(test::modelPath(kDoubleFourBar), model);
  fs::create_symlink("m.yaml", dir / "link.csv");
  const std::string original = contents(model), m = model.string(), d = dir.string();
  for (const std::string& args : {"--out " + m, "--out " + d + "/x.csv --report " + m, "--out " + d + "/link.csv",
                                  "--out " + d + "/x.csv --report " + d + "/x.csv"}) {
    const test::CliRun r = test::runCli("simulate " + m + " --t-end 0.1 " + args);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.output;
    EXPECT_EQ(contents(model), original) << args;
  }
  const fs::path swept = dir / "p.yaml";
  fs::copy_file(test::modelPath("paper003_four_bar"), swept);
  const test::CliRun r = test::runCli("analyze " + swept.string() + " --criterion --sweep O1.angle=0:1:3 --csv " +
                                      swept.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(contents(swept), contents(test::modelPath("paper003_four_bar")));
  EXPECT_EQ(entries(dir, {"m.yaml", "link.csv", "p.yaml"}), std::vector<std::string>{});
}

}  // namespace
}  // namespace loopdyn
