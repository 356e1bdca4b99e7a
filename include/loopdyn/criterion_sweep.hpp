#pragma once
/// The projective criterion (paper 003, eqs. (23a), (23b)) over a driven sweep of one joint
/// coordinate, the paper's Fig. 3 (`loopdyn analyze --criterion --sweep JOINT.coordinate=a:b:n`,
/// Python's `Model.analyze(sweep=...)`; the reports write it: reports/criterion_sweep_report.hpp).
///
/// The model is compiled once more with a driver on the joint (angle: its rotation, distance:
/// its translation, as a model file's `drivers` define them) whose value at "time" k is
/// a + (b - a) k / (n - 1); each configuration is assembled from the previous one, and the
/// criterion is evaluated there for the model's own coordinates and constraints (the driver
/// only places the mechanism).

#include <string>
#include <vector>

#include "loopdyn/analysis/projective_criterion.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"
#include "loopdyn/model/model_spec.hpp"

namespace loopdyn {

struct SweepRequest {
  std::string joint, coordinate;  ///< coordinate: "angle" or "distance"
  Scalar from = 0, to = 0;
  int points = 0;
};

/// Parses "JOINT.coordinate=a:b:n"; returns the problem, empty on success.
std::string parseSweep(const std::string& text, SweepRequest& out);

struct SweepRow {
  Scalar value = 0;
  bool assembled = false;
  std::string problem;  ///< why not assembled
  ProjectiveCriterion criterion;
};

/// A sweep and its rows, one a point.
struct CriterionSweep {
  SweepRequest request;
  std::vector<SweepRow> rows;
};

/// Runs the sweep of the model compiled from `spec`, from its assembled state `start`. Throws
/// InvalidArgument (an unknown joint, or one without that coordinate: the problem named) and
/// ModelError (the driven model does not compile).
CriterionSweep sweepCriterion(const ModelSpec& spec, const Model& model, const State& start, const SweepRequest& request);

}  // namespace loopdyn
