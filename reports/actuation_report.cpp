#include "actuation_report.hpp"

#include <cstdio>
#include <sstream>

#include "inverse_summary.hpp"
#include "report_format.hpp"

namespace loopdyn::reports {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// "singular: the efforts grow without bound along ..." or "regular (pivot ratio ... of its level)".
std::string pointText(const ActuationPoint& p, const std::vector<std::string>& drivers) {
  if (!p.singular) return "regular (pivot ratio " + formatNumber(p.ratio) + " of its regular level)";
  std::string text = "SINGULAR (rank " + std::to_string(p.rank) + ", pivot ratio " + formatNumber(p.ratio) +
                     "): the actuators stop controlling a freedom; near it the efforts grow without bound";
  for (std::size_t k = 0; k < p.unbounded.size(); ++k)
    text += (k ? " and " : " along ") + preloadText(p.unbounded[k], drivers);
  return text + " unless the load has no part along that freedom";
}

}  // namespace

std::string actuationText(const ActuationReport& r, const SweepRequest& sweep) {
  std::ostringstream os;
  os << "\nactuation (the actuators held where the pose has them)\n";
  os << "  actuators  " << joined(r.drivers) << '\n';
  os << "  control    " << r.controlled << " of the mechanism's " << r.freedoms << " freedom(s)";
  if (r.uncontrolled > 0) os << "; " << r.uncontrolled << " left free";
  os << "; redundancy of actuation " << r.redundancy << '\n';
  os << "  efforts    "
     << (r.non_unique_efforts.empty() ? "unique (the model determines every actuator's effort)"
                                      : "NOT unique: " + joined(r.non_unique_efforts))
     << '\n';
  for (const VecX& p : r.preloads)
    os << "  preload    " << preloadText(p, r.drivers) << " (efforts added in this ratio change no motion)\n";
  os << "  pose       " << pointText(r.pose, r.drivers) << '\n';
  if (sweep.points == 0) return os.str();
  const std::string name = sweep.joint + "." + sweep.coordinate;
  os << "\nactuation over " << name << " = " << formatNumber(sweep.from) << " .. " << formatNumber(sweep.to) << " ("
     << sweep.points << " points, the other actuators held)\n";
  char buf[64];
  std::snprintf(buf, sizeof buf, "  %12s %4s %12s\n", name.c_str(), "rank", "ratio");
  os << buf;
  for (const ActuationPoint& p : r.sweep) {
    if (!p.assembled) {
      std::snprintf(buf, sizeof buf, "  %12.6g", p.value);
      os << buf << "  not assembled: " << p.problem << '\n';
      continue;
    }
    std::snprintf(buf, sizeof buf, "  %12.6g %4d %12.4g", p.value, p.rank, p.ratio);
    os << buf << (p.singular ? "  SINGULAR" : "") << '\n';
  }
  for (const ActuationPoint& p : r.crossings)
    os << (p.edge ? "  edge       " : "  crossing   ") << name << " = " << formatNumber(p.value)
       << (p.edge ? " (the path turns back: the swept actuator cannot go further with the others held): "
                  : " (between points): ")
       << pointText(p, r.drivers) << '\n';
  for (const ActuationPoint& p : r.sweep)
    if (p.singular) os << "  point      " << name << " = " << formatNumber(p.value) << ": " << pointText(p, r.drivers) << '\n';
  return os.str();
}

namespace {

/// A vector over the drivers as an object driver -> coefficient.
void writeOverDrivers(io::TreeWriter& w, const VecX& v, const std::vector<std::string>& drivers) {
  w.beginObject();
  for (std::size_t i = 0; i < drivers.size(); ++i) w.key(drivers[i]).value(v(static_cast<Eigen::Index>(i)));
  w.endObject();
}

void writePoint(io::TreeWriter& w, const ActuationPoint& p, const std::vector<std::string>& drivers) {
  w.beginObject();
  w.key("value").value(p.value);
  w.key("assembled").value(p.assembled);
  w.key("rank").value(p.rank);
  w.key("ratio").value(p.ratio);
  w.key("singular").value(p.singular);
  w.key("edge").value(p.edge);
  w.key("unbounded_efforts").beginArray();
  for (const VecX& u : p.unbounded) writeOverDrivers(w, u, drivers);
  w.endArray();
  w.endObject();
}

}  // namespace

void writeActuation(io::TreeWriter& w, const ActuationReport& r, const SweepRequest& sweep) {
  w.beginObject();
  w.key("drivers").array(r.drivers);
  w.key("freedoms").value(r.freedoms);
  w.key("controlled").value(r.controlled);
  w.key("uncontrolled").value(r.uncontrolled);
  w.key("redundancy").value(r.redundancy);
  w.key("non_unique_efforts").array(r.non_unique_efforts);
  w.key("preloads").beginArray();
  for (const VecX& p : r.preloads) writeOverDrivers(w, p, r.drivers);
  w.endArray();
  w.key("pose");
  writePoint(w, r.pose, r.drivers);
  if (sweep.points > 0) {
    w.key("sweep").beginObject();
    w.key("coordinate").value(sweep.joint + "." + sweep.coordinate);
    w.key("points").beginArray();
    for (const ActuationPoint& p : r.sweep) writePoint(w, p, r.drivers);
    w.endArray();
    w.endObject();
    w.key("crossings").beginArray();
    for (const ActuationPoint& p : r.crossings) writePoint(w, p, r.drivers);
    w.endArray();
  }
  w.endObject();
}

}  // namespace loopdyn::reports
