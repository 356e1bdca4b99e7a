// The model reader: bundled models load; every broken file in tests/data/broken gives the error
// its first line announces ("# expect: LINE: message fragment") with file:line:col.

#include "loopdyn/io/model_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "test_models.hpp"

namespace loopdyn {
namespace {

namespace fs = std::filesystem;

TEST(ModelReader, EveryBundledModelReadsAndCompiles) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(LOOPDYN_MODELS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW(compile(io::readModelFile(entry.path().string()))) << entry.path();
    ++count;
  }
  EXPECT_GE(count, 13);
}

TEST(ModelReader, ReadsOrientationsInertiaAndVelocities) {
  const ModelSpec spec = io::parseModel(R"(
dimension: 3
bodies:
  - name: box
    mass: 2
    inertia: {principal: [1, 2, 3], orientation: {axis_angle: {axis: [0, 0, 1], angle: 1.5707963267948966}}}
    orientation: {quaternion: [1, 0, 0, 0]}
    velocity: {linear: [1, 2, 3], angular: [0, 0, 4]}
    markers:
      - {name: a, position: [1, 0, 0], axis: [1, 0, 0]}
)", "inline.yaml");
  const BodySpec& box = spec.bodies.at(0);
  EXPECT_NEAR(box.inertia(0, 0), 2, 1e-14);  // principal axes turned by 90 degrees about z
  EXPECT_NEAR(box.inertia(1, 1), 1, 1e-14);
  EXPECT_EQ(*box.angular_velocity, Vec3(0, 0, 4));
  EXPECT_LT((box.markers[0].orientation.col(2) - Vec3::UnitX()).norm(), 1e-15);
}

struct BrokenCase {
  std::string path;
  int line = 0;
  std::string fragment;
};

std::vector<BrokenCase> brokenCases() {
  std::vector<BrokenCase> cases;
  const std::regex expect_line(R"(# expect: (\d+): (.*))");
  for (const auto& entry : fs::directory_iterator(std::string(LOOPDYN_TEST_DATA_DIR) + "/broken")) {
    std::ifstream in(entry.path());
    std::string first;
    std::getline(in, first);
    std::smatch match;
    if (std::regex_match(first, match, expect_line))
      cases.push_back({entry.path().string(), std::stoi(match[1]), match[2]});
    else
      ADD_FAILURE() << entry.path() << " has no '# expect: LINE: message' first line";
  }
  return cases;
}

TEST(ModelReader, BrokenFilesGiveLocatedErrors) {
  const std::vector<BrokenCase> cases = brokenCases();
  EXPECT_GE(cases.size(), 75u);  // the corpus of issue 22 (at least 60), none lost by accident
  for (const BrokenCase& c : cases) {
    try {
      compile(io::readModelFile(c.path));
      ADD_FAILURE() << c.path << ": no error";
    } catch (const ModelError& e) {
      bool found = false;
      for (const Diagnostic& d : e.diagnostics()) {
        const std::string prefix = c.path + ":" + std::to_string(c.line) + ":";
        if (d.str().rfind(prefix, 0) == 0 && d.message.find(c.fragment) != std::string::npos) found = true;
      }
      EXPECT_TRUE(found) << c.path << ": expected line " << c.line << " '" << c.fragment << "', got\n" << e.what();
    }
  }
}

TEST(ModelReader, MissingFileIsAModelError) {
  EXPECT_THROW(io::readModelFile("/nonexistent/model.yaml"), ModelError);
}

}  // namespace
}  // namespace loopdyn
