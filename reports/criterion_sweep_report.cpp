#include "criterion_sweep_report.hpp"

#include <cstdio>
#include <sstream>

namespace loopdyn::reports {

namespace {

std::string setNames(const std::vector<std::string>& names, const std::vector<int>& set) {
  std::string out;
  for (const int i : set) out += (out.empty() ? "" : ", ") + names[static_cast<std::size_t>(i)];
  return out;
}

}  // namespace

std::string sweepText(const Model& model, const CriterionSweep& sweep) {
  const SweepRequest& request = sweep.request;
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
  for (const SweepRow& row : sweep.rows) {
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

void writeSweepRows(io::CsvFile& csv, const Model& model, const CriterionSweep& sweep) {
  const auto n = static_cast<std::size_t>(model.nv());
  std::vector<double> values;
  for (const SweepRow& row : sweep.rows) {
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


void writeSweep(io::TreeWriter& w, const Model& model, const CriterionSweep& sweep) {
  const SweepRequest& request = sweep.request;
  const std::vector<std::string> names = velocityCoordinateNames(model);
  const auto column = [&](const auto& value_of) {
    w.beginArray();
    for (const SweepRow& row : sweep.rows) value_of(row);
    w.endArray();
  };
  const auto per_coordinate = [&](const std::vector<Scalar> ProjectiveCriterion::*values) {
    column([&](const SweepRow& row) {
      w.beginArray();
      for (std::size_t i = 0; i < names.size(); ++i) w.value(row.assembled ? (row.criterion.*values)[i] : 0.0);
      w.endArray();
    });
  };
  w.beginObject();
  w.key("coordinate").value(request.joint + "." + request.coordinate);
  w.key("from").value(request.from);
  w.key("to").value(request.to);
  w.key("coordinates").array(names);
  w.key("values").beginArray();
  for (const SweepRow& row : sweep.rows) w.value(row.value);
  w.endArray();
  w.key("assembled");
  column([&](const SweepRow& row) { w.value(row.assembled); });
  w.key("problems");
  column([&](const SweepRow& row) { w.value(row.problem); });
  w.key("rank");
  column([&](const SweepRow& row) { w.value(row.assembled ? row.criterion.rank : 0); });
  w.key("cos2_alpha");
  per_coordinate(&ProjectiveCriterion::cos2_alpha);
  w.key("cos2_beta");
  per_coordinate(&ProjectiveCriterion::cos2_beta);
  w.key("best_set");
  column([&](const SweepRow& row) {
    std::vector<std::string> set;
    for (const int i : row.criterion.best_set) set.push_back(names[static_cast<std::size_t>(i)]);
    w.array(set);
  });
  w.key("set_sigma_min");
  column([&](const SweepRow& row) { w.value(row.assembled ? row.criterion.set_sigma_min : 0.0); });
  w.endObject();
}

}  // namespace loopdyn::reports
