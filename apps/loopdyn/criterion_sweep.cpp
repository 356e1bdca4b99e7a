#include "criterion_sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "loopdyn/common/check.hpp"
#include "loopdyn/common/spelling.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/io/csv_file.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"

namespace loopdyn::cli {

std::string parseSweep(const std::string& text, SweepRequest& out) {
  const std::string expected = "expected JOINT.angle=FROM:TO:POINTS or JOINT.distance=FROM:TO:POINTS (e.g. O1.angle=0:6.2832:73)";
  const std::size_t eq = text.find('='), dot = text.rfind('.', eq);
  if (eq == std::string::npos || dot == std::string::npos || dot == 0) return expected;
  out.joint = text.substr(0, dot);
  out.coordinate = text.substr(dot + 1, eq - dot - 1);
  if (out.coordinate != "angle" && out.coordinate != "distance")
    return "unknown joint coordinate '" + out.coordinate + "': " + expected;
  double from = 0, to = 0;
  int points = 0;
  char tail = 0;
  if (std::sscanf(text.c_str() + eq + 1, "%lf:%lf:%d%c", &from, &to, &points, &tail) != 3) return expected;
  if (points < 2) return "POINTS must be at least 2";
  out.from = from;
  out.to = to;
  out.points = points;
  return {};
}

std::vector<SweepRow> sweepCriterion(const std::string& model_path, const Model& model, const State& start,
                                     const SweepRequest& request) {
  ModelSpec spec = io::readModelFile(model_path);
  std::vector<std::string> joint_names;
  for (const JointSpec& j : spec.joints) joint_names.push_back(j.name);
  const auto joint = std::find_if(spec.joints.begin(), spec.joints.end(),
                                  [&](const JointSpec& j) { return j.name == request.joint; });
  LOOPDYN_CHECK(joint != spec.joints.end(), "unknown joint '", request.joint, "'", didYouMean(request.joint, joint_names));
  const bool angle = request.coordinate == "angle";
  const bool fits = angle ? (joint->type == JointType::Revolute || joint->type == JointType::Cylindrical)
                          : (joint->type == JointType::Prismatic || joint->type == JointType::Cylindrical);
  LOOPDYN_CHECK(fits, "joint '", request.joint, "' has no ", request.coordinate, " (",
                angle ? "revolute and cylindrical joints have one" : "prismatic and cylindrical joints have one", ")");
  DriverSpec driver;
  driver.name = "sweep." + request.joint;
  driver.target = angle ? DriverTarget::JointRotation : DriverTarget::JointTranslation;
  driver.joint = request.joint;
  driver.profile = Profile::polynomial({request.from, (request.to - request.from) / (request.points - 1)});
  spec.drivers.push_back(driver);
  const Model driven = compile(spec);

  KinematicsWorkspace driven_ws(driven), ws(model);
  State guess = start;
  std::vector<SweepRow> rows;
  MatX M;
  for (int k = 0; k < request.points; ++k) {
    SweepRow row;
    row.value = request.from + (request.to - request.from) * k / (request.points - 1);
    guess.t = k;
    const AssemblyResult placed = assemblePositions(driven, driven_ws, guess);
    row.assembled = placed.converged;
    if (!placed.converged) {
      row.problem = placed.message;
    } else {
      guess = placed.state;
      State x = placed.state;
      x.t = start.t;
      evaluateConstraints(model, ws, x);
      massMatrix(model, ws.motion, M);
      row.criterion = projectiveCriterion(model, ws, M, x);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

std::string setNames(const std::vector<std::string>& names, const std::vector<int>& set) {
  std::string out;
  for (const int i : set) out += (out.empty() ? "" : ", ") + names[static_cast<std::size_t>(i)];
  return out;
}

}  // namespace

std::string sweepText(const Model& model, const SweepRequest& request, const std::vector<SweepRow>& rows) {
  const std::vector<std::string> names = velocityCoordinateNames(model);
  std::ostringstream os;
  char buf[64];
  os << "\nprojective criterion over " << request.joint << "." << request.coordinate << " = " << request.from << " .. "
     << request.to << " (" << request.points << " points): cos^2 alpha per coordinate (eq. (23a)), best set\n";
  std::snprintf(buf, sizeof buf, "  %12s %4s", (request.joint + "." + request.coordinate).c_str(), "rank");
  os << buf;
  for (const std::string& n : names) {
    std::snprintf(buf, sizeof buf, " %10s", n.c_str());
    os << buf;
  }
  os << "  best set (sigma_min)\n";
  for (const SweepRow& row : rows) {
    std::snprintf(buf, sizeof buf, "  %12.6g", row.value);
    os << buf;
    if (!row.assembled) {
      os << "  not assembled: " << row.problem << '\n';
      continue;
    }
    std::snprintf(buf, sizeof buf, " %4d", row.criterion.rank);
    os << buf;
    for (const Scalar c : row.criterion.cos2_alpha) {
      std::snprintf(buf, sizeof buf, " %10.6f", c);
      os << buf;
    }
    std::snprintf(buf, sizeof buf, " (%.3g)", row.criterion.set_sigma_min);
    os << "  " << setNames(names, row.criterion.best_set) << buf << '\n';
  }
  return os.str();
}

std::vector<std::string> sweepCsvHeader(const Model& model, const SweepRequest& request) {
  const std::vector<std::string> names = velocityCoordinateNames(model);
  std::vector<std::string> header{request.joint + "." + request.coordinate, "assembled", "rank"};
  for (const char* suffix : {".cos2_alpha", ".cos2_beta", ".chosen"})
    for (const std::string& n : names) header.push_back(n + suffix);
  header.push_back("set_sigma_min");
  return header;
}

void writeSweepRows(io::CsvFile& csv, const Model& model, const std::vector<SweepRow>& rows) {
  const auto n = static_cast<std::size_t>(model.nv());
  std::vector<double> values;
  for (const SweepRow& row : rows) {
    values.assign(3 * n + 4, 0.0);
    values[0] = row.value;
    values[1] = row.assembled ? 1 : 0;
    if (row.assembled) {
      const ProjectiveCriterion& c = row.criterion;
      values[2] = c.rank;
      for (std::size_t i = 0; i < n; ++i) {
        values[3 + i] = c.cos2_alpha[i];
        values[3 + n + i] = c.cos2_beta[i];
      }
      for (const int i : c.best_set) values[3 + 2 * n + static_cast<std::size_t>(i)] = 1;
      values.back() = c.set_sigma_min;
    }
    csv.writeRow(values);
  }
}

}  // namespace loopdyn::cli
