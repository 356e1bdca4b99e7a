// End-to-end: `loopdyn inverse` -- simulate's CSV back in as a trajectory, the summary, the
// sidecar, and each door's errors: exit codes, file and line, no file left behind.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "apps/cli_run.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

fs::path scratchDirectory(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("loopdyn_inverse_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(InverseCommand, TakesSimulatesOutputAsItsTrajectory) {
  const fs::path dir = scratchDirectory("round_trip");
  const std::string model = test::modelPath("five_bar");
  ASSERT_EQ(test::runCli("simulate " + model + " --t-end 0.2 --sample 0.001 --rtol 1e-11 --columns joints,efforts --out " +
                         (dir / "motion.csv").string()).exit_code,
            0);
  const test::CliRun run =
      test::runCli("inverse " + model + " --actuators B --trajectory " + (dir / "motion.csv").string() + " --out " +
                   (dir / "inverse.csv").string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(contains(run.output, "actuators    drive1, drive2, B.actuator")) << run.output;
  EXPECT_TRUE(contains(run.output, "efforts      NOT unique: drive1, drive2, B.actuator")) << run.output;
  EXPECT_TRUE(contains(run.output, "samples      201 of 201")) << run.output;
  std::ifstream csv(dir / "inverse.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_TRUE(contains(header, ",B.actuator.effort")) << header;
  std::ifstream sidecar(dir / "inverse.columns.json");
  const std::string sidecar_text((std::istreambuf_iterator<char>(sidecar)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(sidecar_text, "\"B.actuator.effort\"")) << sidecar_text;
}

// Jansen's crank turning 72 degrees between times: the continuity check cannot vouch that the
// configuration assembled is the motion's branch (the Hermite rule's remainder is of the step's
// order) and the run stops, exit 3, with the rows before; 36 degrees a step passes.
TEST(InverseCommand, SamplesTooCoarseToVouchForTheBranchStopTheRun) {
  const fs::path dir = scratchDirectory("coarse");
  const std::string model = test::modelPath("jansen_linkage"), out = (dir / "legs.csv").string();
  test::CliRun run = test::runCli("inverse " + model + " --t-end 0.6 --sample 0.2 --out " + out);
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_TRUE(contains(run.output, "at t = 0.4: the configuration assembled is not the one the motion from t = 0.2 reaches"))
      << run.output;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::exists(dir / "legs.failed.csv"));
  run = test::runCli("inverse " + model + " --t-end 0.6 --sample 0.1 --out " + out);
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

// Redundant actuators' efforts are a named choice: the summary says which; limits that no split
// keeps stop the run (exit 3) naming the effort; a limit on no actuator is the option's error.
TEST(InverseCommand, ResolutionIsNamedAndLimitsStopTheRun) {
  const fs::path dir = scratchDirectory("resolution");
  const std::string model = test::modelPath("parallelogram_lift_two_motors"), out = (dir / "lift.csv").string();
  test::CliRun run = test::runCli("inverse " + model + " --t-end 0.5 --resolution bounded --motor-constants motor2=2 "
                                  "--effort-limits motor2=100 --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(contains(run.output, "efforts      NOT unique: motor1, motor2 (redundant actuation: their values are the "
                                   "bounded choice, one of many)"))
      << run.output;
  run = test::runCli("inverse " + model + " --t-end 0.5 --resolution bounded --effort-limits motor1=50,motor2=-10:60 --out " +
                     (dir / "tight.csv").string());
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_TRUE(contains(run.output, "at t = 0: no efforts within the limits produce the motion")) << run.output;
  EXPECT_TRUE(contains(run.output, "motor1 56.4 (limits -50 to 50)")) << run.output;
  run = test::runCli("inverse " + model + " --t-end 0.5 --resolution bounded --effort-limits motr1=50 --out " +
                     (dir / "typo.csv").string());
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(contains(run.output, "--effort-limits: 'motr1' is not an actuator of the run (did you mean 'motor1'?)"))
      << run.output;
  EXPECT_FALSE(fs::exists(dir / "tight.csv"));
  EXPECT_FALSE(fs::exists(dir / "typo.csv"));
}

TEST(InverseCommand, BadInputNamesTheFileLineAndWritesNothing) {
  const fs::path dir = scratchDirectory("bad_input");
  const std::string model = test::modelPath("slider_crank"), out = (dir / "out.csv").string();
  std::ofstream(dir / "short.csv") << "t,O.q1\n0,1\n0.1,1.1\n0.2,x\n";
  test::CliRun run = test::runCli("inverse " + model + " --actuators motor --trajectory " + (dir / "short.csv").string() +
                                  " --out " + out);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.output, "short.csv:4:5: error: 'x' in column 'O.q1' is not a finite number")) << run.output;
  std::ofstream(dir / "other.csv") << "t,A.q1\n0,1\n0.1,1\n0.2,1\n0.3,1\n";
  run = test::runCli("inverse " + model + " --actuators motor --trajectory " + (dir / "other.csv").string() + " --out " + out);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.output, "other.csv:1:1: error: no column 'O.q1'")) << run.output;
  std::ofstream(dir / "no_rates.csv") << "t,O.q1,O.a1\n0,1,0\n0.1,1,0\n0.2,1,0\n0.3,1,0\n";
  run = test::runCli("inverse " + model + " --actuators motor --trajectory " + (dir / "no_rates.csv").string() + " --out " + out);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.output, "no_rates.csv:1:1: error: column 'O.a1' (the accelerations) needs 'O.v1'")) << run.output;
  run = test::runCli("inverse " + model + " --actuators motr --trajectory " + (dir / "other.csv").string() + " --out " + out);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.output, "--actuators: 'motr' is neither a joint effort nor a joint")) << run.output;
  run = test::runCli("inverse " + test::modelPath("double_four_bar") + " --t-end 1 --out " + out);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_TRUE(contains(run.output, "leave 1 freedom(s) of the mechanism unprescribed")) << run.output;
  run = test::runCli("inverse " + model + " --actuators motor --trajectory " + out + " --out " + out);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir / "out.failed.csv"));
  EXPECT_FALSE(fs::exists(dir / "out.columns.json"));
}

}  // namespace
}  // namespace loopdyn
