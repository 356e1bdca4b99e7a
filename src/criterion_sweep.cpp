#include "loopdyn/criterion_sweep.hpp"

#include <algorithm>
#include <cstdio>

#include "loopdyn/common/check.hpp"
#include "loopdyn/common/spelling.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/assembly.hpp"

namespace loopdyn {

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

namespace {

/// The model driven along the sweep: a driver on the joint whose value at "time" k is point k's.
Model drivenModel(ModelSpec spec, const SweepRequest& request) {
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
  return compile(spec);
}

}  // namespace

CriterionSweep sweepCriterion(const ModelSpec& spec, const Model& model, const State& start, const SweepRequest& request) {
  const Model driven = drivenModel(spec, request);
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
  return CriterionSweep{request, std::move(rows)};
}

}  // namespace loopdyn
