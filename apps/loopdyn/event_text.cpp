#include "event_text.hpp"

#include <sstream>

namespace loopdyn::cli {
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
      os << "singular configuration (|R_rr|/|R_11| = " << e.ratio << "): rank " << e.rank_regular << " -> " << e.rank
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

void writeEvent(io::JsonWriter& w, const Model& model, const RunEvent& e) {
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
      w.key("ratio").value(e.ratio).key("rank").value(e.rank).key("rank_regular").value(e.rank_regular);
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

}  // namespace loopdyn::cli
