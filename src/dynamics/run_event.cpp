#include "loopdyn/dynamics/run_event.hpp"

#include <ostream>

namespace loopdyn {

const char* eventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::SingularStart: return "singular-start";
    case EventKind::SingularPassage: return "singular-passage";
    case EventKind::CoordinateSwitch: return "coordinate-switch";
    case EventKind::RowsRechosen: return "rows-rechosen";
    case EventKind::EliminationSwitch: return "elimination-switch";
    case EventKind::LockUp: return "lock-up";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, EventKind kind) { return os << eventKindName(kind); }

}  // namespace loopdyn
