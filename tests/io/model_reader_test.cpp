// The model reader: bundled models load; every broken file in tests/data/broken gives the error
// its first line announces ("# expect: LINE: message fragment") with file:line:col.

#include "loopdyn/io/model_reader.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
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

// Issue 49.4: a model written in declared units reads as the same SI model -- every quantity the
// file can hold (positions, angles, masses, inertias, velocities, gravity, a spring's stiffness,
// damping and free length, loads and torques, each profile's values and times) in mm, deg, g,
// ms and kN (tests/data/units/arm_mm.yaml) against the model written in SI (arm_si.yaml).
TEST(ModelReader, DeclaredUnitsAreConvertedToSi) {
  const std::string units = std::string(LOOPDYN_TEST_DATA_DIR) + "/units/";
  const ModelSpec si = io::readModelFile(units + "arm_si.yaml");
  const ModelSpec mm = io::readModelFile(units + "arm_mm.yaml");
  EXPECT_FALSE(si.units.declared);
  EXPECT_EQ(mm.units.describe(), "length mm, angle deg, mass g, time ms, force kN");
  EXPECT_TRUE(mm.warnings.empty()) << mm.warnings.front().str("warning");
  const auto near = [](Scalar a, Scalar b) { return std::abs(a - b) <= 1e-12 * (1 + std::abs(a)); };
  const auto nearVec = [](const Vec3& a, const Vec3& b) { return (a - b).norm() <= 1e-12 * (1 + a.norm()); };
  EXPECT_TRUE(nearVec(si.gravity, mm.gravity)) << mm.gravity.transpose();
  for (std::size_t b = 0; b < si.bodies.size(); ++b) {
    const BodySpec &x = si.bodies[b], &y = mm.bodies[b];
    EXPECT_TRUE(near(x.mass, y.mass)) << y.mass;
    EXPECT_LE((x.inertia - y.inertia).norm(), 1e-12 * x.inertia.norm()) << y.inertia;
    EXPECT_TRUE(nearVec(x.position, y.position)) << y.position.transpose();
    EXPECT_TRUE(near(x.angle, y.angle)) << y.angle;
    EXPECT_LE((x.orientation - y.orientation).norm(), 1e-12);
    EXPECT_EQ(x.linear_velocity.has_value(), y.linear_velocity.has_value());
    if (x.linear_velocity) {
      EXPECT_TRUE(nearVec(*x.linear_velocity, *y.linear_velocity));
      EXPECT_TRUE(nearVec(*x.angular_velocity, *y.angular_velocity)) << y.angular_velocity->transpose();
    }
    for (std::size_t k = 0; k < x.markers.size(); ++k) {
      EXPECT_TRUE(nearVec(x.markers[k].position, y.markers[k].position));
      EXPECT_TRUE(near(x.markers[k].angle, y.markers[k].angle));
    }
  }
  const ForceSpec &spring = si.forces[0], &spring_mm = mm.forces[0];
  EXPECT_TRUE(near(spring.stiffness, spring_mm.stiffness)) << spring_mm.stiffness;
  EXPECT_TRUE(near(spring.damping, spring_mm.damping)) << spring_mm.damping;
  EXPECT_TRUE(near(spring.free_length, spring_mm.free_length)) << spring_mm.free_length;
  EXPECT_TRUE(nearVec(si.forces[3].force, mm.forces[3].force));
  EXPECT_TRUE(nearVec(si.forces[3].torque, mm.forces[3].torque)) << mm.forces[3].torque.transpose();
  // the profiles: a driver's sine (angles, Hz), a prismatic effort's polynomial (N), a revolute
  // effort's constant (N m) and a load's table (its times)
  const std::vector<std::pair<const Profile*, const Profile*>> profiles = {
      {&si.drivers[0].profile, &mm.drivers[0].profile}, {&si.forces[1].profile, &mm.forces[1].profile},
      {&si.forces[2].profile, &mm.forces[2].profile}, {&si.forces[3].profile, &mm.forces[3].profile}};
  for (const auto& [a, b] : profiles)
    for (const Scalar t : {0.0, 0.13, 0.5, 0.9}) {
      EXPECT_TRUE(near(a->evaluate(t).f, b->evaluate(t).f)) << t << ": " << b->evaluate(t).f;
      EXPECT_TRUE(near(a->evaluate(t).df, b->evaluate(t).df)) << t;
    }
}

// Numbers that look like the wrong unit are warned of where they stand (not refused): an angle of
// more than a turn written as a whole number, a body hundreds of metres across beside g = 9.81, and
// g = 9.81 in declared millimetres; a unit loopdyn does not know is an error.
TEST(ModelReader, NumbersThatLookLikeTheWrongUnitAreWarnedOf) {
  std::ifstream in(std::string(LOOPDYN_TEST_DATA_DIR) + "/units/arm_si.yaml");
  const std::string base((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    return text.replace(text.find(from), from.size(), to);
  };
  const auto with = [&](const std::string& from, const std::string& to) {
    return io::parseModel(replaced(base, from, to), "m.yaml");
  };
  const ModelSpec degrees = with("    angle: 0.5", "    angle: 90");
  ASSERT_EQ(degrees.warnings.size(), 1u);
  EXPECT_NE(degrees.warnings[0].str("warning").find("m.yaml:12:12: warning: body 'a' angle: 90 rad is more than a turn"),
            std::string::npos)
      << degrees.warnings[0].str("warning");
  EXPECT_TRUE(with("    angle: 0.5", "    angle: 9.5").warnings.empty());  // written as a decimal: meant
  EXPECT_TRUE(io::parseModel(replaced(replaced(base, "    angle: 0.5", "    angle: 90"), "dimension: 2",
                                     "dimension: 2\nunits: {angle: deg}"),
                            "m.yaml")
                  .warnings.empty());
  EXPECT_TRUE(with("[0.6, 0.1]", "[600, 100]").warnings.empty());  // far from the origin, but small
  const ModelSpec millimetres = with("[0.3, 0]", "[300, 0]");
  ASSERT_EQ(millimetres.warnings.size(), 1u);
  EXPECT_NE(millimetres.warnings[0].message.find("needs `units: {length: mm}`"), std::string::npos);
  const ModelSpec gravity = with("dimension: 2", "dimension: 2\nunits: {length: mm}");
  ASSERT_EQ(gravity.warnings.size(), 1u);
  EXPECT_NE(gravity.warnings[0].message.find("gravity 9.81 is read in mm/s^2 (0.00981 m/s^2)"), std::string::npos)
      << gravity.warnings[0].message;
  try {
    with("dimension: 2", "dimension: 2\nunits: {length: inch}");
    ADD_FAILURE() << "an unknown unit was read";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("m.yaml:3:17: error: units: unknown length unit 'inch'"), std::string::npos)
        << e.what();
  }
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
