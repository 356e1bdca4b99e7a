// End-to-end: the loopdyn executable's output, exit codes and error lines.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "apps/cli_run.hpp"
#include "test_models.hpp"

#include <unistd.h>

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

using test::CliRun;

CliRun run(const std::string& args) { return test::runCli(args); }

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

// A regular mechanism ill-conditioned everywhere (issue 46) says so, with its level: the 27-body
// ladder's |R_rr| / |R_11| is 2.2e-5 at every configuration; the double four-bar's 0.41 is not.
TEST(AnalyzeCommand, NamesAMechanismIllConditionedEverywhere) {
  const std::string ladder = std::string(LOOPDYN_TEST_DATA_DIR) + "/reproducers/ladder27_relative_route.yaml";
  const CliRun r = run("analyze " + ladder);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ill-conditioned everywhere: |R_rr| / |R_11| = 2.21e-05"), std::string::npos) << r.output;
  const CliRun json = run("analyze --json " + ladder);
  EXPECT_NE(json.output.find("\"generic_ratio\": 2.21"), std::string::npos) << json.output;
  const CliRun regular = run("analyze " + test::modelPath("double_four_bar"));
  EXPECT_EQ(regular.output.find("ill-conditioned"), std::string::npos) << regular.output;
}

// A driven platform at a singular pose (issue 14): not "assembly failed", but the singularity with
// its rank, the generic rank, the extra motion and where that rank came from.
TEST(AnalyzeCommand, DrivenPlatformAtASingularPoseIsReportedSingular) {
  const CliRun r = run("analyze " + test::modelPath("three_rpr_singular"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("singular     YES: rank 20 here, generic rank 21 -> 1 extra admissible motion(s)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("with the drivers released"), std::string::npos) << r.output;
}

// --actuators: the actuation block, and with --sweep the edge where the slider stops turning the
// crank; a sweep without --criterion or --actuators, or of both, is refused.
TEST(AnalyzeCommand, ActuatorsGetTheirBlockAndTheirSweep) {
  CliRun r = run("analyze " + test::modelPath("slider_crank") + " --actuators rail --sweep rail.distance=0.7:0.9:4");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("  control    1 of the mechanism's 1 freedom(s); redundancy of actuation 0"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("  edge       rail.distance = 0.8 (the path turns back"), std::string::npos) << r.output;
  r = run("analyze " + test::modelPath("slider_crank") + " --sweep rail.distance=0.7:0.9:4");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--sweep needs --criterion"), std::string::npos) << r.output;
  r = run("analyze " + test::modelPath("slider_crank") + " --actuators rial");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--actuators: 'rial' is neither a joint effort nor a joint of the model (did you mean 'rail'?)"),
            std::string::npos)
      << r.output;
}

TEST(AnalyzeCommand, BrokenModelExitsWithCode2AndOneLocatedLine) {
  const std::string path = std::string(LOOPDYN_TEST_DATA_DIR) + "/broken/unknown_key.yaml";
  const CliRun r = run("analyze " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, path + ":8:5: error: unknown key 'mas' in body (did you mean 'mass'?)\n");
}

/// The pair or group named `name` in a JSON array of objects.
YAML::Node entry(const YAML::Node& list, const std::string& name) {
  for (const YAML::Node& item : list)
    if (item["name"].as<std::string>() == name) return item;
  ADD_FAILURE() << "no entry '" << name << "'";
  return YAML::Node();
}

TEST(AnalyzeCommand, JsonReportsPairsAndGroupsWithTheirUniqueness) {
  // JSON is YAML: yaml-cpp reads the report back
  const CliRun r = run("analyze --json --samples 0 " + test::modelPath("spatial_parallelogram") +
                       " --group BD=B,D@platform --group KL=K,L@rod5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const YAML::Node report = YAML::Load(r.output);
  const YAML::Node pairs = report["pairs"];
  ASSERT_EQ(pairs.size(), 15u);
  const YAML::Node K = entry(pairs, "K"), A = entry(pairs, "A");
  EXPECT_TRUE(K["unique"].as<bool>());
  EXPECT_TRUE(K["components_unique"].as<bool>());
  EXPECT_EQ(K["unique_components"].size(), 3u);
  EXPECT_FALSE(A["unique"].as<bool>());
  EXPECT_EQ(A["unique_components"].size(), 0u);
  EXPECT_EQ(A["physical"]["global"]["Fx"].as<std::string>(), "non-unique");
  EXPECT_EQ(A["physical"]["global"]["Mx"].as<std::string>(), "not transmitted");
  for (const char* method : {"qr", "rank", "svd", "nullspace"})
    EXPECT_FALSE(A["methods"][method]["unique"].as<bool>()) << method;
  EXPECT_TRUE(A["methods_agree"].as<bool>());
  EXPECT_GT(A["margin"].as<double>(), 5);
  // groups from the model file first, then from the command line
  const YAML::Node groups = report["groups"];
  ASSERT_EQ(groups.size(), 5u);
  EXPECT_EQ(groups[0]["name"].as<std::string>(), "KM");
  EXPECT_TRUE(entry(groups, "ACEG")["unique"].as<bool>());
  EXPECT_FALSE(entry(groups, "ACEG")["components_unique"].as<bool>());
  EXPECT_FALSE(entry(groups, "BD")["unique"].as<bool>());
  EXPECT_TRUE(entry(groups, "KL")["unique"].as<bool>());
  EXPECT_EQ(entry(groups, "KL")["body"].as<std::string>(), "rod5");
  EXPECT_EQ(report["warnings"].size(), 0u);
}

// `--coordinates relative` (issue 17): paper 000's answer with the deciding step per pair and G's
// size and rank, as text and as JSON; --method chooses the test on G.
TEST(AnalyzeCommand, RelativeCoordinatesReportTheDcaRouteWithItsSteps) {
  const CliRun text = run("analyze --samples 0 --coordinates relative " + test::modelPath("spatial_parallelogram"));
  ASSERT_EQ(text.exit_code, 0) << text.output;
  for (const char* line : {"step 2: the complete assembly to ground through A, C, E, G, K, M",
                           "18 x 18, rank qr 17, rank 17, svd 17, nullspace 17",
                           "step 8 (round 2)", "it confirms every step's decision"})
    EXPECT_NE(text.output.find(line), std::string::npos) << line << " in\n" << text.output;

  const CliRun r = run("analyze --json --samples 0 --coordinates relative --method svd " +
                       test::modelPath("spatial_parallelogram"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const YAML::Node relative = YAML::Load(r.output)["relative_uniqueness"];
  ASSERT_TRUE(relative.IsMap()) << r.output;
  EXPECT_EQ(relative["ground_connection"]["G_size"].as<int>(), 18);
  ASSERT_EQ(relative["ground_connection"]["G_ranks"].size(), 1u);
  EXPECT_EQ(relative["ground_connection"]["G_ranks"][0].as<int>(), 17);
  EXPECT_GT(relative["ground_connection"]["smallest_margin"].as<double>(), 4);
  const YAML::Node A = entry(relative["ground_connection"]["elements"], "A");
  EXPECT_FALSE(A["methods"]["svd"]["unique"].as<bool>());
  const YAML::Node pairs = relative["pairs"];
  EXPECT_EQ(entry(pairs, "P")["step"].as<std::string>(), "step 8");
  EXPECT_EQ(entry(pairs, "R")["step"].as<std::string>(), "step 4");
  EXPECT_FALSE(entry(pairs, "B")["unique"].as<bool>());
  EXPECT_EQ(relative["redundancy"].as<int>(), 1);
  EXPECT_EQ(relative["absolute_disagreements"].size(), 0u);
  EXPECT_EQ(entry(relative["ground_connection"]["groups"], "KM")["unique"].as<bool>(), true);

  // a redundant loop closed inside the assembly: named, and its pairs decided by the null space
  const CliRun inner = run("analyze --samples 0 --coordinates relative " + test::modelPath("modified_2x2_four_bar"));
  ASSERT_EQ(inner.exit_code, 0) << inner.output;
  EXPECT_NE(inner.output.find("multijoint connection inside the assembly"), std::string::npos) << inner.output;
  EXPECT_NE(inner.output.find("null space"), std::string::npos) << inner.output;
}

// The answer first, the details after (issue 19); on a large model the default runs the QR test
// alone, on a small one all four.
TEST(AnalyzeCommand, AnswerComesBeforeThePivotDetailsAndLargeModelsRunOneTest) {
  const CliRun large = run("analyze --samples 0 " + test::modelPath("stewart_platform"));
  ASSERT_EQ(large.exit_code, 0) << large.output;
  const std::size_t answer = large.output.find("reaction uniqueness"), details = large.output.find("QR pivot order");
  ASSERT_NE(answer, std::string::npos) << large.output;
  ASSERT_NE(details, std::string::npos) << large.output;
  EXPECT_LT(answer, details);
  EXPECT_NE(large.output.find("method qr alone"), std::string::npos) << large.output;
  const CliRun all = run("analyze --samples 0 --method all --json " + test::modelPath("stewart_platform"));
  ASSERT_EQ(all.exit_code, 0);
  EXPECT_EQ(YAML::Load(all.output)["uniqueness"]["methods"].size(), 4u);
  const CliRun small = run("analyze --samples 0 " + test::modelPath("double_four_bar"));
  EXPECT_NE(small.output.find("methods qr, rank, svd, nullspace, qr decides"), std::string::npos) << small.output;
}

TEST(AnalyzeCommand, OneMethodOnRequestAndSingularWarning) {
  const CliRun r = run("analyze --json --method svd " + test::modelPath("double_four_bar_singular"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const YAML::Node report = YAML::Load(r.output);
  ASSERT_EQ(report["uniqueness"]["methods"].size(), 1u);
  EXPECT_EQ(report["uniqueness"]["methods"][0].as<std::string>(), "svd");
  ASSERT_GE(report["warnings"].size(), 1u);
  EXPECT_NE(report["warnings"][0].as<std::string>().find("singular"), std::string::npos);
}

TEST(AnalyzeCommand, TextTableShowsTheRobotsNonUniqueJoints) {
  const CliRun r = run("analyze --samples 0 " + test::modelPath("mobile_robot"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto line = [&](const std::string& start) {
    const std::size_t at = r.output.find("\n  " + start);
    return at == std::string::npos ? std::string() : r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(line("B   ").find("NON-UNIQUE  only B.x unique"), std::string::npos) << r.output;
  EXPECT_NE(line("W5  ").find("unique      unique"), std::string::npos) << r.output;
  EXPECT_NE(line("robot_wheels").find("unique      non-unique"), std::string::npos) << r.output;
  // B.x is unique at straight steering only: with the default nearby samples the report says so
  const CliRun sampled = run("analyze " + test::modelPath("mobile_robot"));
  EXPECT_NE(sampled.output.find("unique at this configuration only: B Fx (world axes)"), std::string::npos)
      << sampled.output;
  const CliRun json = run("analyze --json " + test::modelPath("mobile_robot"));
  const YAML::Node only_here = YAML::Load(json.output)["unique_only_here"];
  ASSERT_TRUE(only_here.IsSequence()) << json.output;
  EXPECT_EQ(only_here.size(), 4u);
  EXPECT_EQ(only_here[1].as<std::string>(), "B Fx (joint frame)");
}

TEST(AnalyzeCommand, BadGroupExitsWithCode1AndSaysWhy) {
  const CliRun r = run("analyze " + test::modelPath("spatial_parallelogram") + " --group KM=K,X@ground --group Z=K");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--group 'KM=K,X@ground': group 'KM': unknown joint or driver 'X'"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--group 'Z=K': expected NAME=PAIR,PAIR,...@BODY"), std::string::npos) << r.output;
  const CliRun wrong_body = run("analyze " + test::modelPath("spatial_parallelogram") + " --group X=A@platform");
  EXPECT_EQ(wrong_body.exit_code, 1);
  EXPECT_NE(wrong_body.output.find("'A' does not act on body 'platform'"), std::string::npos) << wrong_body.output;
}

TEST(AnalyzeCommand, UsageErrorExitsWithCode1) {
  EXPECT_EQ(run("analyze --method lu " + test::modelPath("mobile_robot")).exit_code, 1);
  EXPECT_EQ(run("analyze").exit_code, 1);
  EXPECT_EQ(run("frobnicate").exit_code, 1);
}

TEST(AnalyzeCommand, SaysWhatAssemblyChangedOfTheFile) {
  // a pendulum written with its pin 2 cm off, and a velocity along the bar, which the pin forbids:
  // assembly moves it and changes the velocity, and the report says so
  const fs::path file = fs::temp_directory_path() / ("moved_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << R"(dimension: 2
ground:
  markers: [{name: o, position: [0, 0]}]
bodies:
  - {name: bar, mass: 1, inertia: 0.1, position: [0.52, 0], velocity: {linear: [5, 0], angular: 0},
     markers: [{name: a, position: [-0.5, 0]}]}
joints:
  - {name: pin, type: revolute, between: [ground.o, bar.a]}
)";
  const CliRun text = run("analyze " + file.string() + " --samples 0");
  const CliRun json = run("analyze " + file.string() + " --samples 0 --json");
  fs::remove(file);
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("moved bar by 0.02 m and 0 rad from the file's pose, to (0.5, 0)"), std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("velocity of bar: given (5, 0, 0), used (0, 0, 0)"), std::string::npos) << text.output;
  EXPECT_NE(json.output.find("\"moved\": ["), std::string::npos) << json.output;
  EXPECT_NE(json.output.find("\"velocity_changed\": ["), std::string::npos) << json.output;
}

TEST(AnalyzeCommand, MisspeltOptionsGetTheNearestKnownOne) {
  const CliRun misspelt = run("analyze " + test::modelPath("four_bar_planar") + " --topolgy");
  EXPECT_EQ(misspelt.exit_code, 1);
  EXPECT_NE(misspelt.output.find("unknown option '--topolgy' (did you mean '--topology'?)"), std::string::npos)
      << misspelt.output;
  const CliRun unrelated = run("analyze " + test::modelPath("four_bar_planar") + " --frobnicate");
  EXPECT_EQ(unrelated.exit_code, 1);
  EXPECT_NE(unrelated.output.find("unknown option '--frobnicate'\n"), std::string::npos) << unrelated.output;
}

TEST(AnalyzeCommand, MisspeltCommandsGetTheNearestKnownOne) {
  const CliRun r = run("analyse " + test::modelPath("double_four_bar"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("unknown command 'analyse' (did you mean 'analyze'?) (commands: analyze, simulate, inverse)"),
            std::string::npos) << r.output;
}

TEST(AnalyzeCommand, CriterionPrintsEveryCoordinateAndTheChosenSet) {
  // four-bar: 9 coordinates, 1 degree of freedom -> one coordinate marked chosen
  const CliRun text = run("analyze " + test::modelPath("four_bar_planar") + " --criterion");
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("1 independent coordinate(s) of 9"), std::string::npos) << text.output;
  std::size_t chosen = 0;
  for (std::size_t at = text.output.find("   chosen"); at != std::string::npos; at = text.output.find("   chosen", at + 1)) ++chosen;
  EXPECT_EQ(chosen, 1u) << text.output;
  const CliRun json = run("analyze " + test::modelPath("mobile_robot") + " --criterion --json");
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_NE(json.output.find("\"criterion\":"), std::string::npos);
  EXPECT_NE(json.output.find("\"best_set\":"), std::string::npos);
}

// paper 004, Fig. 3: at the horizontal pose of the double four-bar, 3 admissible motions (rank
// 12), two of them only there; at a regular pose one.
TEST(AnalyzeCommand, MotionsListTheExtraAdmissibleMotionsOfASingularConfiguration) {
  const CliRun singular = run("analyze " + test::modelPath("double_four_bar_singular") + " --motions");
  EXPECT_EQ(singular.exit_code, 0) << singular.output;
  EXPECT_NE(singular.output.find("rank 12): 3, of which 2 exist only at this singular configuration"), std::string::npos)
      << singular.output;
  const CliRun regular = run("analyze " + test::modelPath("double_four_bar") + " --motions --json");
  EXPECT_EQ(regular.exit_code, 0);
  const YAML::Node j = YAML::Load(regular.output);
  EXPECT_EQ(j["motions"]["rank"].as<int>(), 14);
  EXPECT_EQ(j["motions"]["columns"].size(), 1u);
  EXPECT_EQ(j["motions"]["words"].size(), 1u);
}

// Issue 49.8: a motion of one body alone is named in words -- the RSSR coupler's idle spin, and
// each of the spatial parallelogram's six S-S rods (the idle spins of a Delta robot's rods).
TEST(AnalyzeCommand, MotionsOfOneBodyAloneAreNamed) {
  const CliRun rssr = run("analyze " + test::modelPath("rssr") + " --motions");
  EXPECT_NE(rssr.output.find("motion 1: coupler spins about the line through joints A and B"), std::string::npos)
      << rssr.output;
  EXPECT_EQ(rssr.output.find("motion 2:"), std::string::npos) << rssr.output;
  const CliRun rods = run("analyze " + test::modelPath("spatial_parallelogram") + " --motions --json");
  ASSERT_EQ(rods.exit_code, 0) << rods.output;
  const YAML::Node words = YAML::Load(rods.output)["motions"]["words"];
  for (int k = 1; k <= 6; ++k)
    EXPECT_EQ(words[k - 1].as<std::string>().rfind("rod" + std::to_string(k) + " spins about the line through joints", 0),
              0u)
        << words[k - 1].as<std::string>();
}

// The criterion over a crank turn of paper 003's four-bar (its Fig. 3 as a table): the crank's
// centre velocity along x vanishes where the crank is horizontal (0, pi, 2 pi) and along y where
// it is vertical (pi/2, 3 pi/2), so those coordinates are singular choices there (cos^2 alpha
// below 1e-20: rounding of sin(pi) squared); the chosen coordinate is never a poor one.
TEST(AnalyzeCommand, CriterionSweepTabulatesACrankTurnAndWritesCsv) {
  const std::filesystem::path csv = std::filesystem::temp_directory_path() / "loopdyn_analyze_test_sweep.csv";
  std::filesystem::remove(csv);
  const CliRun r = run("analyze " + test::modelPath("paper003_four_bar") +
                       " --criterion --sweep O1.angle=0:6.283185307179586:25 --csv " + csv.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("projective criterion over O1.angle"), std::string::npos) << r.output;
  std::ifstream in(csv);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  std::vector<std::string> header;
  for (std::stringstream ss(line); std::getline(ss, line, ',');) header.push_back(line);
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t x = column("crank.x.cos2_alpha"), y = column("crank.y.cos2_alpha");
  ASSERT_LT(y, header.size());
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    for (std::stringstream ss(line); std::getline(ss, line, ',');) row.push_back(std::stod(line));
    rows.push_back(row);
  }
  ASSERT_EQ(rows.size(), 25u);
  for (const std::size_t k : {0u, 12u, 24u}) EXPECT_LT(rows[k][x], 1e-20) << k;
  for (const std::size_t k : {6u, 18u}) EXPECT_LT(rows[k][y], 1e-20) << k;
  const std::size_t alpha0 = column("crank.x.cos2_alpha"), chosen0 = column("crank.x.chosen");
  for (const auto& row : rows) {
    ASSERT_EQ(row[column("assembled")], 1);
    for (std::size_t i = 0; i < 9; ++i)
      if (row[chosen0 + i] == 1) {
        EXPECT_GT(row[alpha0 + i], 0.2) << row[0];
      }
  }
  const CliRun bad = run("analyze " + test::modelPath("paper003_four_bar") + " --criterion --sweep O7.angle=0:1:5");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("unknown joint 'O7'"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace loopdyn
