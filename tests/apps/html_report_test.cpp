// `simulate --report` in a real browser (issue 19): Debian's chromium, headless, opens the reports
// of a 2D and a 3D model from disk (nothing fetched: the page embeds its libraries), and the page's
// self-test (#loopdyn-selftest, reports/page/report.js) must show no error, a drawn view
// (pixels other than the background) and the expected plot series with one point per sample. A
// screenshot of each is kept in the build tree (test-artifacts/) for a person to look at.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <yaml-cpp/yaml.h>

#include "apps/cli_run.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

struct Browser {
  int exit_code = -1;
  std::string dom, log;
};

/// chromium --headless on `page`: the DOM after the page's scripts ran, and chromium's own log
/// (console messages included); a screenshot to `screenshot` when given.
Browser openInChromium(const fs::path& page, const fs::path& scratch, const fs::path& screenshot = {}) {
  const std::string flags = "--headless --no-sandbox --disable-dev-shm-usage --enable-unsafe-swiftshader "
                            "--use-angle=swiftshader --virtual-time-budget=5000 --window-size=1500,1000 "
                            "--enable-logging=stderr --v=0 --user-data-dir=" + (scratch / "profile").string();
  const fs::path log = scratch / "chromium.log";
  std::string command = "timeout 120 chromium " + flags + " --dump-dom file://" + page.string() + " 2>" + log.string();
  Browser b;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return b;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) b.dom += buffer.data();
  const int status = pclose(pipe);
  b.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  b.log = ss.str();
  if (!screenshot.empty()) {
    command = "timeout 120 chromium " + flags + " --screenshot=" + screenshot.string() + " file://" + page.string() +
              " 2>/dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }
  return b;
}

/// The page's self-test record, read from the DOM.
YAML::Node selftestOf(const std::string& dom) {
  const std::string open = "<pre id=\"loopdyn-selftest\">";
  const std::size_t at = dom.find(open);
  if (at == std::string::npos) return {};
  const std::size_t end = dom.find("</pre>", at);
  return YAML::Load(dom.substr(at + open.size(), end - at - open.size()));
}

struct Case {
  const char* model;
  const char* t_end;
  const char* reaction_pair;  ///< the reaction plot shown first
};

// (gtest prints the parameter in test names and failures: the model's name)
void PrintTo(const Case& c, std::ostream* os) { *os << c.model; }

class HtmlReport : public ::testing::TestWithParam<Case> {};

TEST_P(HtmlReport, OpensInChromiumDrawsTheMotionAndPlotsEverySample) {
  const Case c = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("loopdyn_report_test_" + std::string(c.model));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path page = dir / "report.html";
  const test::CliRun run = test::runCli("simulate " + test::modelPath(c.model) + " --t-end " + c.t_end + " --out " +
                                        (dir / "run.csv").string() + " --report " + page.string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("report       " + page.string()), std::string::npos) << run.output;

  // self-contained: no script, style sheet or image from elsewhere
  std::ifstream in(page);
  std::stringstream html;
  html << in.rdbuf();
  for (const char* external : {"<script src", "<link", "<img", "@import"})
    EXPECT_EQ(html.str().find(external), std::string::npos) << external;

  const fs::path artifacts = fs::path(LOOPDYN_TEST_ARTIFACTS_DIR);
  fs::create_directories(artifacts);
  const Browser b = openInChromium(page, dir, artifacts / ("report_" + std::string(c.model) + ".png"));
  ASSERT_EQ(b.exit_code, 0) << "chromium (Debian package, scripts/setup.sh) did not run:\n" << b.log;
  EXPECT_EQ(b.log.find("Uncaught"), std::string::npos) << b.log;
  const YAML::Node selftest = selftestOf(b.dom);
  ASSERT_TRUE(selftest.IsMap()) << "the page's self-test did not run; chromium said:\n" << b.log;
  EXPECT_TRUE(selftest["ready"].as<bool>());
  EXPECT_EQ(selftest["errors"].size(), 0u) << YAML::Dump(selftest["errors"]);
  // the view is drawn: a 720 x 480 picture with the mechanism's lines and joints on it
  EXPECT_GT(selftest["pixels"].as<int>(), 500);
  // every body is drawn (a solid in 3D, whatever its markers), every joint as its type, every
  // spring-damper (and in 3D every body load) as a coil or an arrow (issue 49.7)
  const Model model = test::loadModel(c.model);
  int pairs = 0, forces = 0;
  for (const Pair& p : model.pairs()) pairs += p.type != "driver";
  for (const Force& f : model.forces())
    forces += f.spec.type == ForceType::SpringDamper || (model.dimension() == 3 && f.spec.type == ForceType::BodyLoad);
  const YAML::Node scene = selftest["scene"];
  ASSERT_TRUE(scene.IsMap());
  EXPECT_EQ(scene["bodies"].as<int>(), model.nb());
  EXPECT_EQ(scene["joints"].as<int>(), pairs);
  EXPECT_EQ(scene["forces"].as<int>(), forces);

  const int samples = selftest["samples"].as<int>();
  EXPECT_GT(samples, 100);
  const YAML::Node plots = selftest["plots"];
  ASSERT_TRUE(plots["energy, J"].IsMap());
  EXPECT_EQ(plots["energy, J"]["series"].size(), 4u);
  EXPECT_EQ(plots["energy, J"]["points"].as<int>(), samples);
  ASSERT_TRUE(plots["constraint violation"].IsMap());
  EXPECT_EQ(plots["constraint violation"]["series"][0].as<std::string>(), "violation.position");
  const std::string reaction = "reaction of " + std::string(c.reaction_pair) + " (world axes)";
  ASSERT_TRUE(plots[reaction].IsMap()) << YAML::Dump(plots);
  EXPECT_GE(plots[reaction]["series"].size(), 3u);
  EXPECT_EQ(plots[reaction]["points"].as<int>(), samples);
}

// Names and descriptions come from the user's file: the page shows them as text, never as markup
// (a description with a tag in it stays a description; the page's scripts still run).
TEST(HtmlReportText, UserTextIsShownAsText) {
  const fs::path dir = fs::temp_directory_path() / "loopdyn_report_test_text";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "m.yaml") << "name: pendulum\ndescription: a <b>bold</b> pendulum & \"friends\"\ndimension: 2\n"
                                   "gravity: [0, -9.81]\nground: {markers: [{name: O, position: [0, 0]}]}\n"
                                   "bodies:\n  - {name: bar, mass: 1, inertia: 0.1, position: [0.5, 0], markers: "
                                   "[{name: O, position: [-0.5, 0]}]}\n"
                                   "joints:\n  - {name: O, type: revolute, between: [ground.O, bar.O]}\n";
  const fs::path page = dir / "m.html";
  const test::CliRun run = test::runCli("simulate " + (dir / "m.yaml").string() + " --t-end 0.5 --out " +
                                        (dir / "m.csv").string() + " --report " + page.string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::ifstream in(page);
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_NE(html.str().find("a &lt;b&gt;bold&lt;/b&gt; pendulum &amp; &quot;friends&quot;"), std::string::npos);
  EXPECT_EQ(html.str().find("<b>bold</b>"), std::string::npos);
  const Browser b = openInChromium(page, dir);
  ASSERT_EQ(b.exit_code, 0) << b.log;
  const YAML::Node selftest = selftestOf(b.dom);
  ASSERT_TRUE(selftest.IsMap()) << b.log;
  EXPECT_EQ(selftest["errors"].size(), 0u);
}

// A name "<!--<script>" in the embedded JSON put the HTML parser into the script element's escaped
// state, where the element did not end: no drawing, no plots, no tables, a console error.
TEST(HtmlReportText, ACommentOpeningAScriptInNamesLeavesThePageWhole) {
  const fs::path dir = fs::temp_directory_path() / "loopdyn_report_test_comment";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path page = dir / "m.html";
  const test::CliRun run = test::runCli("simulate " + std::string(LOOPDYN_TEST_DATA_DIR) +
                                        "/reproducers/report_comment_script.yaml --t-end 0.5 --out " +
                                        (dir / "m.csv").string() + " --report " + page.string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const Browser b = openInChromium(page, dir);
  ASSERT_EQ(b.exit_code, 0) << b.log;
  const YAML::Node selftest = selftestOf(b.dom);
  ASSERT_TRUE(selftest.IsMap()) << b.log;
  EXPECT_TRUE(selftest["ready"].as<bool>());
  EXPECT_EQ(selftest["errors"].size(), 0u) << YAML::Dump(selftest["errors"]);
  EXPECT_GT(selftest["pixels"].as<int>(), 500);
  EXPECT_EQ(selftest["samples"].as<int>(), 51);
}

INSTANTIATE_TEST_SUITE_P(Models, HtmlReport,
                         ::testing::Values(Case{"double_four_bar", "3", "O1"}, Case{"spatial_parallelogram", "1", "A"},
                                           Case{"stewart_platform", "1", "U1"}),
                         [](const auto& info) { return std::string(info.param.model); });

}  // namespace
}  // namespace loopdyn
