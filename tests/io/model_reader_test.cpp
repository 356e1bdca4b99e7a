// The model reader: bundled models load; every broken file in tests/data/broken gives the error
// its first line announces ("# expect: LINE: message fragment") with file:line:col.

#include "loopdyn/io/model_reader.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>

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

// A 3D marker's x-axis: the documented rule when only `axis` is given, `x_axis` when the model
// fixes it (docs/model-format.md, issue 49.10).
TEST(ModelReader, AMarkersXAxisFollowsTheRuleOrTheFile) {
  const ModelSpec spec = io::parseModel(R"(
dimension: 3
bodies:
  - name: box
    mass: 2
    inertia: [1, 1, 1]
    markers:
      - {name: z, axis: [0, 0, 1]}
      - {name: x, axis: [2, 0, 0]}
      - {name: xy, axis: [1, 1, 0]}
      - {name: fixed, axis: [0, 0, 1], x_axis: [1, 1, 0.5]}
)", "inline.yaml");
  const std::vector<MarkerSpec>& m = spec.bodies.at(0).markers;
  const auto expect_x = [&](std::size_t k, const Vec3& x) {
    EXPECT_LT((m[k].orientation.col(0) - x).norm(), 1e-15) << m[k].name << ": " << m[k].orientation.col(0).transpose();
    EXPECT_LT((m[k].orientation.transpose() * m[k].orientation - Mat3::Identity()).norm(), 1e-15);
    EXPECT_NEAR(m[k].orientation.determinant(), 1, 1e-15);
  };
  expect_x(0, Vec3::UnitX());
  expect_x(1, Vec3::UnitY());
  expect_x(2, Vec3::UnitZ());
  expect_x(3, Vec3(1, 1, 0).normalized());
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

// Every problem of a file at once (issue 49.5): a body's negative mass and its malformed inertia,
// each at its own line, in one error.
TEST(ModelReader, EveryProblemOfAFileAtOnce) {
  const std::string path = std::string(LOOPDYN_TEST_DATA_DIR) + "/broken/every_problem_of_a_body.yaml";
  try {
    compile(io::readModelFile(path));
    FAIL() << "no error";
  } catch (const ModelError& e) {
    std::vector<std::string> lines;
    for (const Diagnostic& d : e.diagnostics()) lines.push_back(d.str());
    ASSERT_EQ(lines.size(), 2u) << e.what();
    EXPECT_EQ(lines[0], path + ":7:11: error: body 'bar': mass must be positive, got -1");
    EXPECT_EQ(lines[1], path + ":8:37: error: body 'bar' inertia: expected a list of 3 numbers, got a list of 2");
  }
}

TEST(ModelReader, MissingFileIsAModelError) {
  EXPECT_THROW(io::readModelFile("/nonexistent/model.yaml"), ModelError);
}

/// The message of the ModelError that reading `path` throws ("" when it reads).
std::string readingError(const std::string& path) {
  try {
    io::readModelFile(path);
  } catch (const ModelError& e) {
    return e.what();
  }
  return {};
}

// Devices never end (/dev/zero was read until out of memory), directories are not models, a path
// cut at a NUL byte named another file, and a 100 MB model used 7.7 GB before std::bad_alloc.
TEST(ModelReader, ReadsFilesAndPipesOfBoundedSizeOnly) {
  EXPECT_NE(readingError("/dev/zero").find("/dev/zero: error: is a device, not a model file"), std::string::npos);
  EXPECT_NE(readingError(LOOPDYN_MODELS_DIR).find("is a directory"), std::string::npos);
  const std::string model = test::modelPath("four_bar_planar");
  EXPECT_NE(readingError(model + std::string(1, '\0') + "x").find("the file name holds a NUL byte"), std::string::npos);
  const std::string big(io::kMaxModelBytes + 1, ' ');
  try {
    io::parseModel(big, "big.yaml");
    ADD_FAILURE() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("big.yaml: error: the model is 64 MB, more than the 64 MB loopdyn reads"),
              std::string::npos)
        << e.what();
  }
  // a pipe (a shell's <(generate)) is read
  const fs::path fifo = fs::temp_directory_path() / "loopdyn_model_reader_fifo.yaml";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(std::system(("cat " + model + " > " + fifo.string() + " &").c_str()), 0);
  EXPECT_EQ(readingError(fifo.string()), "");
  fs::remove(fifo);
}

}  // namespace
}  // namespace loopdyn
