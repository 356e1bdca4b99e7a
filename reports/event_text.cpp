#include "event_text.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace loopdyn::reports {
namespace {

/// "{a, b}"
std::string nameSet(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return "{" + out + "}";
}

/// "W1.y of W1", or the pair's name when the equation is the pair's only one.
std::string equationText(const Model& model, int equation) {
  if (equation < 0 || equation >= static_cast<int>(model.equations().size())) return "an equation";
  const auto& e = model.equations()[static_cast<std::size_t>(equation)];
  const std::string& pair = model.pairs()[static_cast<std::size_t>(e.pair)].name;
  return e.name == pair ? pair : e.name + " of " + pair;
}

}  // namespace

std::string timeText(Scalar t) {
  std::ostringstream os;
  os.precision(6);
  os << "t = " << std::fixed << t << " s";
  return os.str();
}

std::string eventText(const Model& model, const RunEvent& e) {
  std::ostringstream os;
  os << timeText(e.t) << ": ";
  switch (e.kind) {
    case EventKind::SingularStart:
      os << "starts at a singular configuration (|R_rr|/|R_11| = " << e.ratio
         << (e.joint_coordinates ? " in joint coordinates" : "") << "): rank " << e.rank << " of " << e.rank_regular
         << ", " << e.new_motions << " extra admissible motion(s); the motion takes the branch of its initial "
         << (e.at_rest ? "acceleration" : "velocity") << " (misfit " << e.misfit << ")";
      if (e.between_branches)
        os << ": that direction lies between branches, and the rigid model does not decide which one the mechanism "
              "takes; this is the nearest";
      break;
    case EventKind::SingularPassage:
      os << "singular configuration (";
      // (sigma_r / sigma_1 from the Gram matrix C_s C_s^T resolves about sqrt(eps): 0 below it)
      if (e.sigma_ratio && e.ratio == 0) os << "sigma_r/sigma_1 below 1.5e-8";
      else os << (e.sigma_ratio ? "sigma_r/sigma_1" : "|R_rr|/|R_11|") << " = " << e.ratio;
      os << "): rank " << e.rank_regular << " -> " << e.rank
         << ", " << e.new_motions << " new admissible motion(s); ";
      if (!e.left_branch)
        os << "the motion continues on its branch" << (e.stepped_across ? " (stepped across)" : "");
      else if (e.at_rest)
        os << "the motion comes to rest there and leaves on another branch (tangent turned by sin " << e.branch_change
           << "): at rest at a singular configuration the rigid model does not decide which";
      else
        os << "the motion LEFT its branch (tangent turned by sin " << e.branch_change << ")";
      break;
    case EventKind::CoordinateSwitch:
      os << "independent coordinates " << nameSet(e.from) << " -> " << nameSet(e.to)
         << " (projective criterion: sigma_min " << e.quality_from << " < " << e.switch_ratio << " x " << e.quality_to
         << ")";
      break;
    case EventKind::EliminationSwitch:
      os << "equations eliminated " << nameSet(e.from) << " -> " << nameSet(e.to) << " (the rows kept had become "
         << "ill-conditioned: smallest |R_kk|/|R_11| " << e.quality_from << " < " << e.switch_ratio << " x "
         << e.quality_to << ")";
      break;
    case EventKind::RowsRechosen:
      os << "independent constraint rows re-chosen (C_KD ill-conditioned: reciprocal condition " << e.condition << ")";
      break;
    case EventKind::LockUp:
      os << "lock-up: since " << timeText(e.t_from) << " the rank of C rose from " << e.rank_regular << " to " << e.rank
         << " (" << equationText(model, e.equation) << " became independent of the others; |R_rr|/|R_11| = " << e.ratio
         << "): " << e.new_motions << " motion(s) admissible where the motion so far had " << e.new_motions + 1;
      break;
  }
  return os.str();
}

void writeEvent(io::TreeWriter& w, const Model& model, const RunEvent& e) {
  w.beginObject();
  w.key("kind").value(eventKindName(e.kind));
  w.key("t").value(e.t);
  w.key("text").value(eventText(model, e));
  switch (e.kind) {
    case EventKind::SingularStart:
      w.key("ratio").value(e.ratio).key("rank").value(e.rank).key("rank_regular").value(e.rank_regular);
      w.key("new_motions").value(e.new_motions).key("at_rest").value(e.at_rest).key("misfit").value(e.misfit);
      w.key("between_branches").value(e.between_branches).key("joint_coordinates").value(e.joint_coordinates);
      break;
    case EventKind::SingularPassage:
      w.key("ratio").value(e.ratio).key("ratio_of").value(e.sigma_ratio ? "sigma_r/sigma_1" : "|R_rr|/|R_11|");
      w.key("rank").value(e.rank).key("rank_regular").value(e.rank_regular);
      w.key("new_motions").value(e.new_motions).key("branch_change").value(e.branch_change);
      w.key("at_rest").value(e.at_rest).key("stepped_across").value(e.stepped_across);
      w.key("left_branch").value(e.left_branch);
      break;
    case EventKind::CoordinateSwitch:
    case EventKind::EliminationSwitch:
      w.key("from").array(e.from).key("to").array(e.to);
      w.key("quality_from").value(e.quality_from).key("quality_to").value(e.quality_to);
      w.key("switch_ratio").value(e.switch_ratio);
      break;
    case EventKind::RowsRechosen:
      w.key("condition").value(e.condition);
      break;
    case EventKind::LockUp:
      w.key("t_from").value(e.t_from).key("rank_regular").value(e.rank_regular).key("rank").value(e.rank);
      w.key("equation").value(e.equation >= 0 ? model.equations()[static_cast<std::size_t>(e.equation)].name
                                              : std::string());
      w.key("ratio").value(e.ratio).key("new_motions").value(e.new_motions);
      break;
  }
  w.endObject();
}

namespace {

/// x as a stream prints it (6 significant digits).
std::string number(Scalar x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

/// The energy check's blind spot (RunWarning::Kind::EnergyBlindSpot).
std::string blindSpotText(const RunWarning& w) {
  std::ostringstream os;
  os << "the energy check resolves drifts above " << w.value << " J (" << w.tolerance
     << " of the work of gravity over the characteristic length, " << w.bound << " J), but the motion's own energy "
     << "(largest kinetic energy plus change of potential energy) is " << w.raised << " J: ";
  if (w.value >= w.raised)
    os << "it could lose all of it unnoticed";
  else
    os << "it could lose " << std::lround(100 * w.value / w.raised) << " % of it unnoticed";
  if (w.suggested >= 1e-6)  // (the least energy tolerance rtol gives: 1e4 rtol, at least 1e-6)
    os << "; rtol " << number(1e-4 * w.suggested) << " or an energy tolerance of " << number(w.suggested)
       << " resolves a tenth of it";
  else
    os << "; an energy tolerance of " << number(w.suggested) << " resolves a tenth of it";
  return os.str();
}

}  // namespace

std::string warningText(const RunWarning& w) {
  std::ostringstream os;
  switch (w.kind) {
    case RunWarning::Kind::ProjectionBelowDrift:
      os << "the projection tolerance " << w.value << " is below what the integrator lets the constraints drift in a "
         << "step (max(rtol, atol / L) = " << w.bound << "): expect a projection after most steps"
         << (w.adams ? ", each restarting adams at order 1, until its step size may collapse (raise it, or lower atol)"
                     : "");
      break;
    case RunWarning::Kind::ThinBody:
      os << "hdca carries the joints' momenta, and body '" << w.name << "' is " << std::setprecision(3)
         << w.bound / w.value << "x easier to turn about one axis than another (principal inertias " << w.value
         << " and " << w.bound << " kg m^2): its spin follows from a momentum through 1 / " << w.value
         << ", and the run needs several times dca's steps (dca carries the velocities themselves: the same motion)";
      break;
    case RunWarning::Kind::RestLeftBranch:
      os << timeText(w.t) << ": the motion came to rest at a singular configuration and left it on another branch; "
         << "the rigid model does not decide which branch a motion at rest there takes";
      break;
    case RunWarning::Kind::AdamsRestarts:
      os << "adams restarted after " << w.count << " of its " << w.steps << " steps (" << w.projections
         << " after projections onto the constraints, the others where the formulation rewrote its variables: "
         << "projection without continuation does after every step); each restart drops it to order 1 and a small "
         << "step: a one-step integrator (dopri5, dop853) or the continuation avoids them";
      break;
    case RunWarning::Kind::VelocityFloor:
      os << w.name << "'s velocities held the velocity constraints to " << w.value
         << " (scaled, per unit of speed), above the projection trigger " << w.bound
         << ", which projections could not improve: the trigger for velocities rose to " << w.raised;
      break;
    case RunWarning::Kind::EnergyBlindSpot:
      return blindSpotText(w);
  }
  return os.str();
}

}  // namespace loopdyn::reports
