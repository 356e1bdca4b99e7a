// The public facade (include/loopdyn/loopdyn.hpp): the same answers as the command line, because
// programs that use loopdyn as a library must get what `loopdyn analyze` and `simulate` report.

#include "loopdyn/loopdyn.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/cli_run.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

TEST(Facade, LoadsAndAnalyzesAsThePapersSay) {
  // paper 001, sect. 4.2: n = 21, m = 17, h = 5, rank 20, redundancy 2; B, C, W1..W4 not unique
  const Analysis a = analyze(loadModel(test::modelPath("mobile_robot")));
  ASSERT_TRUE(a.assembly.converged) << a.assembly.message;
  EXPECT_EQ(a.rank.n, 21);
  EXPECT_EQ(a.rank.rank, 20);
  EXPECT_EQ(a.rank.redundancy, 2);
  int non_unique = 0;
  for (const PairUniqueness& p : a.uniqueness.pairs) non_unique += p.reaction.unique() ? 0 : 1;
  EXPECT_EQ(non_unique, 6);
}

// The cautions are codes with their fields (the words are the front ends'): at the double
// four-bar's singular start (rank 12 of 14, paper 004) the facade says so, as `loopdyn analyze`
// does in words; with the DCA route asked for, its report comes along and agrees.
TEST(Facade, AnalysisCautionsAreCodesWithTheirFields) {
  const Model model = loadModel(test::modelPath("double_four_bar_singular"));
  AnalysisRequest request;
  request.relative = true;
  KinematicsWorkspace kin(model);
  const Analysis a = analyzeAt(model, assemble(model, kin, initialState(model)), request);
  ASSERT_FALSE(a.cautions.empty());
  const AnalysisCaution& c = a.cautions.front();
  EXPECT_EQ(c.kind, AnalysisCaution::Kind::SingularConfiguration);
  EXPECT_EQ(c.rank, 12);
  EXPECT_EQ(c.generic_rank, 14);
  ASSERT_TRUE(a.relative.has_value());
  EXPECT_TRUE(a.routes_disagree.empty());
  EXPECT_TRUE(analyze(loadModel(test::modelPath("four_bar_planar"))).cautions.empty());
}

TEST(Facade, BadModelTextIsAModelErrorWithItsLine) {
  try {
    modelFromYaml("dimension: 2\nbodies:\n  - {name: bar, mass: -1, inertia: 0.1}\n", "inline.yaml");
    ADD_FAILURE() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("inline.yaml:3:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loadModel("/nonexistent.yaml"), ModelError);
  SimulationRequest bad;
  bad.integrator = "euler";
  EXPECT_THROW(simulateModel(loadModel(test::modelPath("four_bar_planar")), bad), InvalidArgument);
}

/// A CSV written by the CLI: header and rows.
std::pair<std::vector<std::string>, std::vector<std::vector<double>>> readCsv(const std::string& path) {
  std::ifstream in(path);
  std::string line, cell;
  std::getline(in, line);
  std::vector<std::string> header;
  std::istringstream names(line);
  while (std::getline(names, cell, ',')) header.push_back(cell);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::istringstream values(line);
    rows.emplace_back();
    while (std::getline(values, cell, ',')) rows.back().push_back(std::stod(cell));
  }
  return {header, rows};
}

TEST(Facade, SimulatesExactlyAsTheCommandLine) {
  // the double four-bar for 2 s (through its first singular crossing at 0.714 s): the same
  // columns and, row by row, the same numbers as `loopdyn simulate` (the CSV holds shortest
  // round-trip decimals: equal to the bit)
  const std::string model_path = test::modelPath("double_four_bar");
  const fs::path csv = fs::temp_directory_path() / ("facade_" + std::to_string(::getpid()) + ".csv");
  const test::CliRun cli = test::runCli("simulate " + model_path + " --t-end 2 --out " + csv.string());
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  const auto [header, rows] = readCsv(csv.string());
  fs::remove(csv);

  SimulationRequest request;
  request.t_end = 2;
  const Trajectory run = simulateModel(loadModel(model_path), request);
  ASSERT_TRUE(run.result.ok) << run.result.failure;
  EXPECT_EQ(run.formulation, "lagrange");
  EXPECT_EQ(run.columns, header);
  ASSERT_EQ(run.values.rows(), static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      ASSERT_EQ(run.values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)), rows[i][j])
          << header[j] << " at row " << i;
  EXPECT_EQ(run.result.passages.size(), 2u);  // 0.714 s and 1.714 s (paper 004, Fig. 4)
}

TEST(Facade, VersionIsTheProjects) {
  EXPECT_STREQ(version(), "0.1.0");
  const test::CliRun cli = test::runCli("--version");
  EXPECT_EQ(cli.exit_code, 0);
  EXPECT_EQ(cli.output, "loopdyn 0.1.0\n");
}

}  // namespace
}  // namespace loopdyn
