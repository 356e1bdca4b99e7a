// The actuation of a mechanism at its pose and along a sweep (include/loopdyn/actuation_analysis.hpp).

#include "loopdyn/actuation_analysis.hpp"

#include <algorithm>
#include <cmath>

#include "actuators.hpp"
#include "loopdyn/analysis/actuation.hpp"
#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/common/golden_section.hpp"
#include "loopdyn/common/spelling.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"
#include "loopdyn/kinematics/assembly.hpp"

namespace loopdyn {

namespace {

[[noreturn]] void refuse(const std::string& field, const std::string& message) {
  throw InvalidArgument(field + ": " + message);
}

/// spec with a driver per actuator, and each of its own drivers, holding its coordinate where
/// `pose` (of spec compiled) has it.
ModelSpec heldActuators(ModelSpec spec, const std::vector<std::string>& names, const State& pose,
                        std::vector<detail::Actuator>& actuators) {
  for (DriverSpec& d : spec.drivers) d.profile = Profile::constant(0);
  const std::size_t own = spec.drivers.size();
  for (const std::string& name : names) {
    const auto driven = std::find_if(spec.drivers.begin(), spec.drivers.begin() + static_cast<std::ptrdiff_t>(own),
                                     [&](const DriverSpec& d) { return d.name == name || (d.target != DriverTarget::Distance && d.joint == name); });
    if (driven != spec.drivers.begin() + static_cast<std::ptrdiff_t>(own)) {
      if (driven->name == name) continue;  // (the model's own driver: an actuator already)
      refuse("actuators", "joint '" + name + "' is driven by the model's driver '" + driven->name + "' already: name that");
    }
    if (std::any_of(actuators.begin(), actuators.end(), [&](const detail::Actuator& a) { return a.joint == name || a.driver == name; }))
      refuse("actuators", "'" + name + "' is named twice");
    actuators.push_back(detail::resolveActuator(spec, name));
    DriverSpec d;
    d.name = actuators.back().driver;
    d.target = detail::targetOf(spec, actuators.back());
    d.joint = actuators.back().joint;
    spec.drivers.push_back(d);  // (profile 0 for now: its equation's value is then the coordinate)
  }
  const Model zero = compile(spec);
  KinematicsWorkspace kin(zero);
  evaluateConstraints(zero, kin, pose);
  for (DriverSpec& d : spec.drivers) {
    const auto pair = std::find_if(zero.pairs().begin(), zero.pairs().end(),
                                   [&](const Pair& p) { return p.type == "driver" && p.name == d.name; });
    d.profile = Profile::constant(kin.Phi(pair->row));
  }
  return spec;
}

/// The point's rank, ratio (over the regular level) and singular flag on the actuated model.
ActuationPoint pointAt(const Model& model, KinematicsWorkspace& kin, const State& x, int generic_rank, Scalar level) {
  RankOptions options;
  options.generic_samples = 0;
  const RankReport report = analyzeConstraintsAt(model, kin, x, options);
  ActuationPoint p;
  p.assembled = true;
  p.rank = report.rank;
  p.ratio = pivotRatio(report, generic_rank) / level;
  p.singular = report.rank < generic_rank || p.ratio < kSingularRatio;
  if (!p.singular) return p;
  // the preloads of redundant actuation read at a configuration nearby, where none is singular
  RankOptions near;
  near.generic_samples = 2;
  const std::vector<State> nearby = configurationsNear(model, kin, x, near, true);
  const std::vector<VecX> preloads = nearby.empty() ? std::vector<VecX>{} : effortPreloads(model, nearby.front());
  p.unbounded = unboundedEfforts(model, x, nearby.empty() ? nullptr : &preloads, generic_rank,
                                 std::max(generic_rank - report.rank, 1));
  return p;
}

/// The sweep's path: the held actuators with the swept one's driver moving from `from` to `to` over
/// "time" 0 .. points - 1.
ModelSpec sweptSpec(ModelSpec held, const SweepRequest& sweep) {
  const auto on_joint = [&](const DriverSpec& d) { return d.target != DriverTarget::Distance && d.joint == sweep.joint; };
  const auto swept = std::find_if(held.drivers.begin(), held.drivers.end(), on_joint);
  std::vector<std::string> joints;
  for (const DriverSpec& d : held.drivers)
    if (d.target != DriverTarget::Distance) joints.push_back(d.joint);
  if (swept == held.drivers.end())
    refuse("sweep", "'" + sweep.joint + "' is not an actuated joint: the sweep moves one actuator while the others hold" +
                        didYouMean(sweep.joint, joints));
  DriverSpec& d = *swept;
  const bool angle = d.target == DriverTarget::JointRotation;
  if (angle != (sweep.coordinate == "angle"))
    refuse("sweep", "joint '" + sweep.joint + "' has no " + sweep.coordinate + " (its actuator drives its " +
                        (angle ? "angle" : "distance") + ")");
  d.profile = Profile::polynomial({sweep.from, (sweep.to - sweep.from) / (sweep.points - 1)});
  return held;
}

/// The sweep's points, and the singular ones found between two of them.
void sweepActuation(const Model& path, const State& start, int generic_rank, Scalar level, const SweepRequest& sweep,
                    ActuationReport& out) {
  KinematicsWorkspace kin(path);
  State guess = start;
  const auto valueAt = [&](Scalar k) { return sweep.from + (sweep.to - sweep.from) * k / (sweep.points - 1); };
  const auto placed = [&](Scalar k, const State& from, State& x) {
    State g = from;
    g.t = k;
    AssemblyResult a = assemblePositions(path, kin, g);
    x = std::move(a.state);
    return a.converged;
  };
  for (int k = 0; k < sweep.points; ++k) {
    State x;
    ActuationPoint p;
    const bool after = !out.sweep.empty() && out.sweep.back().assembled;
    bool ok = placed(k, guess, x);
    if (!ok && after) {  // closer steps from the point before, to the edge of reach if there is one
      Scalar lo = k - 1, hi = k;
      State last = guess;
      while (hi - lo > 1e-7 * std::max<Scalar>(1, std::abs(hi))) {
        const Scalar mid = (lo + hi) / 2;
        State y;
        if (placed(mid, last, y)) lo = mid, last = std::move(y);
        else hi = mid;
      }
      ok = placed(k, last, x);
      if (!ok && !out.sweep.back().singular) {  // (a singular point before is that edge)
        ActuationPoint edge = pointAt(path, kin, last, generic_rank, level);
        edge.value = valueAt(lo);
        edge.edge = true;
        out.crossings.push_back(std::move(edge));
      }
    }
    if (ok) {
      p = pointAt(path, kin, x, generic_rank, level);
      if (after && !out.sweep.back().singular && !p.singular && std::min(out.sweep.back().ratio, p.ratio) < kNearSingular) {
        Scalar lo = k - 1, hi = k;
        const State from = guess;
        const LineMinimum m = goldenSectionMinimum(
            [&](Scalar s) {
              State y;
              return placed(s, from, y) ? pointAt(path, kin, y, generic_rank, level).ratio : Scalar(1);
            },
            lo, hi, [](Scalar a, Scalar b) { return b - a <= 1e-7; });
        State y;
        if (m.value < kSingularRatio && placed(m.t, from, y)) {
          ActuationPoint c = pointAt(path, kin, y, generic_rank, level);
          c.value = valueAt(m.t);
          out.crossings.push_back(std::move(c));
        }
      }
      guess = x;
    } else {
      p.problem = "does not assemble";
    }
    p.value = valueAt(k);
    out.sweep.push_back(std::move(p));
  }
}

}  // namespace

ActuationReport analyzeActuation(const ModelSpec& spec, const ActuationRequest& request) {
  if (request.actuators.empty() && spec.drivers.empty())
    refuse("actuators", "name the actuators (joint efforts or revolute/prismatic joints): the model has no drivers");
  const Model model = compile(spec);
  KinematicsWorkspace kin(model);
  ActuationReport out;
  const AssemblyResult assembled = assemblePositions(model, kin, initialState(model));
  out.pose.assembled = assembled.converged;
  if (!assembled.converged) {
    out.pose.problem = assembled.message;
    return out;
  }
  std::vector<detail::Actuator> actuators;
  const ModelSpec held_spec = heldActuators(spec, request.actuators, assembled.state, actuators);
  const Model held = compile(held_spec);
  out.drivers = driverNames(held);
  ModelSpec passive = spec;
  passive.drivers.clear();
  const Model free = compile(passive);
  KinematicsWorkspace free_kin(free), held_kin(held);
  const RankReport free_rank = analyzeConstraints(free, free_kin, assembled.state);
  const RankReport held_rank = analyzeConstraints(held, held_kin, assembled.state);
  out.freedoms = free.nv() - free_rank.generic_rank;
  out.controlled = held_rank.generic_rank - free_rank.generic_rank;
  out.uncontrolled = out.freedoms - out.controlled;
  out.redundancy = static_cast<int>(out.drivers.size()) - out.controlled;
  const UniquenessReport uniqueness = analyzeReactionUniquenessNear(held, held_kin, assembled.state);
  for (std::size_t p = 0; p < held.pairs().size(); ++p)
    if (held.pairs()[p].type == "driver" && !uniqueness.pairs[p].reaction.unique())
      out.non_unique_efforts.push_back(held.pairs()[p].name);
  out.pose = pointAt(held, held_kin, assembled.state, held_rank.generic_rank, held_rank.generic_ratio);
  if (!out.pose.singular) out.preloads = effortPreloads(held, assembled.state);
  if (request.sweep.points == 0) return out;
  if (out.uncontrolled > 0)
    refuse("sweep", "the actuators leave " + std::to_string(out.uncontrolled) +
                        " freedom(s): with them held the path of the sweep is not determined");
  const Model path = compile(sweptSpec(held_spec, request.sweep));
  sweepActuation(path, assembled.state, held_rank.generic_rank, held_rank.generic_ratio, request.sweep, out);
  return out;
}

}  // namespace loopdyn
