#include "analyze_report.hpp"

#include "loopdyn/analysis/independent_rows.hpp"
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"
#include "actuation_report.hpp"
#include "assembly_changes.hpp"
#include "criterion_sweep_report.hpp"
#include "relative_uniqueness_report.hpp"
#include "report_format.hpp"
#include "topology_report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "loopdyn/io/json_writer.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"

namespace loopdyn::reports {

namespace {

char statusLetter(ComponentStatus s) {
  switch (s) {
    case ComponentStatus::Unique: return 'U';
    case ComponentStatus::NonUnique: return 'N';
    case ComponentStatus::NotTransmitted: return '-';
  }
  return '?';
}

std::string statusColumns(const std::vector<ComponentStatus>& statuses) {
  std::string out;
  for (ComponentStatus s : statuses) out += std::string(1, statusLetter(s)) + "  ";
  return out;
}

std::string componentHeader(int dimension) {
  std::string out;
  for (int k : wrenchComponents(dimension)) {
    if (!out.empty()) out += ' ';
    out += wrenchComponentName(k);
  }
  return out;
}


void printStructure(std::ostringstream& os, const AnalysisResults& res) {
  const Model& model = *res.model;
  const RankReport& r = res.rank;
  os << "model        " << (model.name().empty() ? res.path : model.name()) << " (" << model.dimension() << "D, "
     << res.path << ")\n";
  if (!model.description().empty()) os << "             " << model.description() << '\n';
  if (const std::string units = unitsText(model.units()); !units.empty()) os << "units        " << units << '\n';
  os << "size         " << r.bodies << " bodies, n = " << r.n << " velocity coordinates, m = " << r.m
     << " holonomic equations (" << r.drivers << " from drivers), h = " << r.h << " nonholonomic\n";
  os << "assembly     converged in " << res.assembly.iterations << " Newton iterations, relative residual "
     << formatNumber(res.assembly.position_residual) << '\n';
  // what assembly changed of what the file says: a user must see it before trusting the rest
  for (const std::string& line : assemblyChangeLines(model, res.assembly.state)) os << "             " << line << '\n';
  os << "rank         C: " << r.rank << "    Phi_q: " << r.rank_holonomic << " of " << r.m;
  if (r.h > 0) os << "    Psi: " << r.rank_nonholonomic << " of " << r.h;
  os << "\n";
  os << "redundancy   p = m + h - rank = " << r.redundancy << '\n';
  os << "mobility     n - rank = " << r.mobility << "    (Grubler/Kutzbach count n - m - h = " << r.grubler << ")\n";
  if (r.generic_rank < 0) {
    os << "singular     not tested\n";
  } else if (r.singular) {
    os << "singular     YES: rank " << r.rank << " here, generic rank " << r.generic_rank << " -> "
       << r.generic_rank - r.rank << " extra admissible motion(s) at this configuration\n";
    if (r.generic_from_free_drivers)
      os << "             (generic rank from " << r.generic_samples_used << " configurations with the drivers released:\n"
         << "             with them held the mechanism cannot move from here; --motions lists the extra motions)\n";
  } else if (r.full_rank_by_structure) {
    os << "singular     never (every equation is a joint of the spanning tree: C has full rank at every\n"
       << "             configuration)\n";
  } else if (r.generic_samples_used == 0) {
    os << "singular     no nearby configuration could be sampled (the mechanism cannot move, or no sample\n"
       << "             assembled): generic rank taken as the rank here\n";
  } else {
    os << "singular     no (generic rank " << r.generic_rank << ", from " << r.generic_samples_used
       << " nearby assembled configurations)\n";
    if (r.generic_ratio < kRegularLevel)
      os << "             ill-conditioned everywhere: "
         << (watchedBySingularValues(model, r.generic_rank) ? "sigma_r / sigma_1" : "|R_rr| / |R_11|") << " = "
         << formatNumber(r.generic_ratio)
         << " here and nearby (a simulation reads its singular\n"
         << "             configurations as falls far below this level, docs/simulation.md)\n";
  }
  if (r.rows_certified_independent)
    os << "dependent    none    (every equation independent: sigma_min / sigma_max of the scaled C = "
       << formatNumber(r.singular_value_ratio) << ", the sparse route for large models; threshold "
       << formatNumber(r.rank_threshold) << ")\n";
  else
    os << "dependent    " << joinNames(equationNames(model, r.dependent_equations))
       << "    (QR with column pivoting of C^T; threshold " << formatNumber(r.rank_threshold) << ")\n";
}

/// The QR pivot order behind the rank (details: printed after the answers).
void printPivots(std::ostringstream& os, const AnalysisResults& res) {
  const Model& model = *res.model;
  const RankReport& r = res.rank;
  if (r.rows_certified_independent) {
    os << "\nQR pivot order: none formed (every equation certified independent by sigma_min / sigma_max = "
       << formatNumber(r.singular_value_ratio) << ", the sparse route)\n";
    return;
  }
  os << "\nQR pivot order: equation and scaled diagonal |R_kk|/|R_11|\n";
  std::vector<int> order = r.independent_equations;
  order.insert(order.end(), r.dependent_equations.begin(), r.dependent_equations.end());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::string& name = model.equations()[static_cast<std::size_t>(order[k])].name;
    const std::string value = k < r.scaled_diagonal.size() ? formatNumber(r.scaled_diagonal[k]) : "-";
    os << row("  %3zu  %-16s %-10s %s\n", k + 1, name.c_str(), value.c_str(),
              k < r.independent_equations.size() ? "kept" : "dependent");
  }
}

void printUniqueness(std::ostringstream& os, const AnalysisResults& res) {
  const Model& model = *res.model;
  const UniquenessReport& u = res.uniqueness;
  std::vector<std::string> methods;
  for (UniquenessMethod m : u.methods) methods.push_back(std::string(methodName(m)));
  // one name column wide enough for every pair and group
  int name_width = 5;
  for (const Pair& p : model.pairs()) name_width = std::max(name_width, static_cast<int>(p.name.size()));
  for (const GroupUniqueness& g : u.groups) name_width = std::max(name_width, static_cast<int>(g.group.name.size()));

  os << "\nreaction uniqueness (direct-sum test, paper 001 sect. 3; ";
  if (u.by_independent_rows)
    os << "every equation independent: C^T has no null space and every reaction is unique; the rank tests ("
       << joinNames(methods) << ") not run";
  else
    os << (methods.size() == 1 ? "method " + methods.front() + " alone (--method all: four tests)"
                               : "methods " + joinNames(methods) + ", " + methods.front() + " decides");
  os << "; thresholds: rank " << formatNumber(u.rank_threshold) << ", ||B||/||C_X|| "
     << formatNumber(u.uniqueness_threshold) << ")\n";
  os << row("  %-*s %-12s %4s  %-11s %-26s %6s  %s\n", name_width, "pair", "type", "rows", "reaction", "multipliers",
            "margin", "methods");
  for (const PairUniqueness& p : u.pairs) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(p.pair)];
    os << row("  %-*s %-12s %4d  %-11s %-26s %6.1f  %s\n", name_width, pair.name.c_str(), pair.type.c_str(),
              pair.rows, p.reaction.unique() ? "unique" : "NON-UNIQUE", multipliersText(model, p.reaction).c_str(),
              p.reaction.margin(),
              u.by_independent_rows ? "certified" : agreementText(p.reaction, p.physical_methods_agree).c_str());
  }
  if (u.redundancy > 0) {
    os << "  " << u.redundancy << " independent self-equilibrated multiplier set(s): a NON-UNIQUE reaction is whatever\n"
       << "  the solving method chooses, not a property of the mechanism (docs/uniqueness.md)\n";
  } else {
    os << "  C has full row rank: every reaction and every multiplier is unique\n";
  }

  const std::string header = componentHeader(model.dimension());
  const int block = static_cast<int>(header.size()) + 4;
  os << "\nreaction components: wrench on the pair's first body at the pair's point\n"
     << "(U unique, N non-unique, - zero: nothing transmitted in this direction at this configuration)\n";
  os << row("  %-*s %-12s  %-*s %s\n", name_width, "pair", "on body", block, "world axes", "joint axes");
  os << row("  %-*s %-12s  %-*s %s\n", name_width, "", "", block, header.c_str(), header.c_str());
  for (const PairUniqueness& p : u.pairs) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(p.pair)];
    std::string line = row("  %-*s %-12s  %-*s %s", name_width, pair.name.c_str(),
                           model.bodyName(pair.first.body).c_str(), block, statusColumns(p.global).c_str(),
                           statusColumns(p.joint).c_str());
    line.erase(line.find_last_not_of(' ') + 1);
    os << line << '\n';
  }

  if (!u.groups.empty()) {
    os << "\ngroups: resultant wrench of the pairs on the common body\n";
    os << row("  %-*s %-12s %-22s %-11s %-12s %6s  %s\n", name_width, "group", "body", "pairs", "resultant",
              "multipliers", "margin", "methods");
    for (const GroupUniqueness& g : u.groups) {
      os << row("  %-*s %-12s %-22s %-11s %-12s %6.1f  %s\n", name_width, g.group.name.c_str(),
                model.bodyName(g.group.body).c_str(), joinNames(groupPairNames(model, g.group)).c_str(),
                g.resultant.unique() ? "unique" : "NON-UNIQUE",
                g.resultant.componentsUnique() ? "unique" : "non-unique", g.resultant.margin(),
                agreementText(g.resultant).c_str());
    }
  }
}

void writeComponents(io::TreeWriter& w, int dimension, const std::vector<ComponentStatus>& statuses) {
  w.beginObject();
  std::size_t k = 0;
  for (int c : wrenchComponents(dimension)) w.key(std::string(wrenchComponentName(c))).value(std::string(componentStatusName(statuses[k++])));
  w.endObject();
}

}  // namespace

AnalysisResults computeAnalysis(const Model& model, const AssemblyResult& assembly, const std::string& path,
                                const AnalysisSettings& settings) {
  AnalysisResults results;
  static_cast<Analysis&>(results) = analyzeAt(model, assembly, settings);
  results.path = path;
  results.model = &model;
  results.topology = settings.topology;
  for (const AnalysisCaution& c : results.cautions) results.warnings.push_back(cautionText(c));
  return results;
}

std::string cautionText(const AnalysisCaution& c) {
  using Kind = AnalysisCaution::Kind;
  switch (c.kind) {
    case Kind::SingularConfiguration:
      return "the configuration is singular (rank " + std::to_string(c.rank) + ", generic rank " +
             std::to_string(c.generic_rank) +
             "): the uniqueness results hold at this configuration only; the mechanism's neighbouring configurations "
             "can give different answers";
    case Kind::MethodsDisagreeNearThreshold:
      return "the uniqueness methods disagree (see the methods column): the decision is close to a threshold; try "
             "--threshold / --uniqueness-threshold, or a configuration away from it";
    case Kind::MethodsDisagree:
      return "the uniqueness methods disagree (see the methods column) although every decision is more than " +
             formatNumber(kSmallMargin) + " decades from its threshold: a numerical defect in one method; please "
             "report this model";
    case Kind::RoutesDisagree:
      return "the DCA route and the absolute-coordinate analysis answer differently for " + joinNames(c.names) +
             ": a defect in one of them; please report this model";
    case Kind::GroundTestsNearThreshold:
      return "the tests on G decide within " + formatNumber(c.margin) + " decades of their thresholds";
    case Kind::DcaStepsContradictNullSpace:
      return "a step of paper 000's algorithm contradicts the null space built through the assembly tree: a defect; "
             "please report this model";
    case Kind::UniqueOnlyHere: {
      std::string list;
      for (const std::string& name : c.names) list += (list.empty() ? "" : ", ") + name;
      return "unique at this configuration only: " + list +
             "; at configurations near it on the motion (drivers free) they are not, so a simulation from here marks "
             "them * (not unique)";
    }
    case Kind::PairNearThreshold:
      return "pair '" + c.names.front() + "': the decision is within " + formatNumber(c.margin) +
             " decades of its threshold";
    case Kind::GroupNearThreshold:
      return "group '" + c.names.front() + "': the decision is within " + formatNumber(c.margin) +
             " decades of its threshold";
  }
  return {};
}

/// cos^2 alpha and cos^2 beta per velocity coordinate, and the chosen set (paper 003, sect. 3).
void printCriterion(std::ostream& os, const AnalysisResults& res) {
  const ProjectiveCriterion& c = *res.criterion;
  const std::vector<std::string> names = velocityCoordinateNames(*res.model);
  os << "\nprojective criterion (paper 003, eqs. (23a), (23b), kinetic-energy metric): "
     << names.size() - static_cast<std::size_t>(c.rank) << " independent coordinate(s) of " << names.size() << "\n";
  os << row("  %-22s %12s %12s\n", "coordinate", "cos2 alpha", "cos2 beta");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const bool chosen = std::find(c.best_set.begin(), c.best_set.end(), static_cast<int>(i)) != c.best_set.end();
    os << row("  %-22s %12.6f %12.6f%s\n", names[i].c_str(), c.cos2_alpha[i], c.cos2_beta[i], chosen ? "   chosen" : "");
  }
  os << "best set     ";
  for (std::size_t j = 0; j < c.best_set.size(); ++j)
    os << (j ? ", " : "") << names[static_cast<std::size_t>(c.best_set[j])] << " (pivot " << formatNumber(c.set_pivots[j]) << ")";
  if (!c.best_set.empty()) os << "; sigma_min " << formatNumber(c.set_sigma_min);
  os << "\n             (QR with column pivoting of the tangent projections: never a singular set where a regular one exists)\n";
}

/// The admissible motions as columns over the velocity coordinates (paper 004, Figs. 3, 6, 9).
void printMotions(std::ostream& os, const AnalysisResults& res) {
  const AdmissibleMotions& a = *res.motions;
  const std::vector<std::string> names = velocityCoordinateNames(*res.model);
  const auto count = a.motions.cols();
  const int regular = res.rank.generic_rank >= 0 ? res.model->nv() - res.rank.generic_rank : static_cast<int>(count);
  os << "\nadmissible motions (null space of C: QR with column pivoting of C_s^T, rank " << a.rank << "): " << count;
  if (count > regular)
    os << ", of which " << count - regular << " exist only at this singular configuration (" << regular
       << " at regular ones nearby; which of them continues a motion depends on the motion: `simulate --method "
          "projection` reports it)";
  os << "\n  each column is one motion (m/s and rad/s), of unit size in the scaled velocities (angular rates times L)\n";
  os << row("  %-22s", "coordinate");
  for (Eigen::Index j = 0; j < count; ++j) os << row(" %10s", ("motion " + std::to_string(j + 1)).c_str());
  os << '\n';
  for (std::size_t i = 0; i < names.size(); ++i) {
    os << row("  %-22s", names[i].c_str());
    for (Eigen::Index j = 0; j < count; ++j) {
      const Scalar value = a.motions(static_cast<Eigen::Index>(i), j);
      os << row(" %10.5f", std::abs(value) < 1e-12 ? 0.0 : value);
    }
    os << '\n';
  }
  for (std::size_t j = 0; j < a.words.size(); ++j)
    if (!a.words[j].empty()) os << "  motion " << j + 1 << ": " << a.words[j] << '\n';
}

std::string analysisText(const AnalysisResults& res) {
  std::ostringstream os;
  printStructure(os, res);
  if (res.relative)
    printRelativeUniqueness(os, *res.model, *res.relative);
  else
    printUniqueness(os, res);
  for (const std::string& w : res.warnings) os << "\nwarning: " << w;
  if (!res.warnings.empty()) os << '\n';
  printPivots(os, res);
  if (res.criterion) printCriterion(os, res);
  if (res.motions) printMotions(os, res);
  if (res.topology) os << topologyText(*res.model);
  if (res.sweep) os << sweepText(*res.model, *res.sweep);
  if (res.actuation) os << actuationText(*res.actuation, res.actuation_sweep);
  return os.str();
}

namespace {

void writeRankJson(io::TreeWriter& w, const Model& model, const RankReport& r) {
  w.key("bodies").value(r.bodies);
  w.key("n").value(r.n);
  w.key("m").value(r.m);
  w.key("h").value(r.h);
  w.key("drivers").value(r.drivers);
  w.key("rank").value(r.rank);
  w.key("rank_holonomic").value(r.rank_holonomic);
  w.key("rank_nonholonomic").value(r.rank_nonholonomic);
  w.key("redundancy").value(r.redundancy);
  w.key("mobility").value(r.mobility);
  w.key("grubler").value(r.grubler);
  w.key("singular").value(r.singular);
  w.key("generic_rank").value(r.generic_rank);
  w.key("generic_samples").value(r.generic_samples_used);
  w.key("generic_ratio").value(r.generic_ratio);
  w.key("generic_rank_with_drivers_released").value(r.generic_from_free_drivers);
  w.key("full_rank_by_structure").value(r.full_rank_by_structure);
  w.key("dependent_equations").array(equationNames(model, r.dependent_equations));
  w.key("independent_equations").array(equationNames(model, r.independent_equations));
  w.key("scaled_diagonal").array(r.scaled_diagonal);
  w.key("rank_threshold").value(r.rank_threshold);
  w.key("route").value(r.rows_certified_independent ? "sparse" : "dense");
  w.key("singular_value_ratio").value(r.singular_value_ratio);
}

/// "assembly": what assembly did to the file's state (iterations, residuals, moved bodies,
/// changed velocities).
void writeAssemblyJson(io::TreeWriter& w, const Model& model, const AssemblyResult& assembly) {
  w.key("assembly").beginObject();
  w.key("iterations").value(assembly.iterations);
  w.key("position_residual").value(assembly.position_residual);
  w.key("velocity_residual").value(assembly.velocity_residual);
  w.key("moved").beginArray();
  for (const BodyMove& m : assemblyMoves(model, assembly.state)) {
    w.beginObject();
    w.key("body").value(model.bodyName(m.body));
    w.key("distance").value(m.distance);
    w.key("turn").value(m.turn);
    w.key("position").beginArray();
    for (int i = 0; i < model.dimension(); ++i) w.value(m.position(i));
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.key("velocity_changed").beginArray();
  for (const VelocityChange& c : velocityChanges(model, assembly.state)) {
    w.beginObject();
    w.key("body").value(model.bodyName(c.body));
    w.key("given").beginArray();
    for (Eigen::Index i = 0; i < c.given.size(); ++i) w.value(c.given(i));
    w.endArray();
    w.key("used").beginArray();
    for (Eigen::Index i = 0; i < c.used.size(); ++i) w.value(c.used(i));
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

/// "uniqueness", "pairs", "groups": the absolute route's report.
void writeUniquenessJson(io::TreeWriter& w, const Model& model, const UniquenessReport& u) {
  w.key("uniqueness").beginObject();
  std::vector<std::string> methods;
  for (UniquenessMethod m : u.methods) methods.push_back(std::string(methodName(m)));
  w.key("methods").array(methods);
  w.key("ranks").array(u.ranks);
  w.key("uniqueness_threshold").value(u.uniqueness_threshold);
  w.key("methods_agree").value(u.methodsAgree());
  w.key("independent_rows").value(u.by_independent_rows);
  w.endObject();
  w.key("pairs").beginArray();
  for (const PairUniqueness& p : u.pairs) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(p.pair)];
    w.beginObject();
    w.key("name").value(pair.name);
    w.key("type").value(pair.type);
    w.key("rows").value(pair.rows);
    writeElement(w, model, p.reaction);
    w.key("physical").beginObject();
    w.key("body").value(model.bodyName(pair.first.body));
    w.key("global");
    writeComponents(w, model.dimension(), p.global);
    w.key("joint");
    writeComponents(w, model.dimension(), p.joint);
    w.key("methods_agree").value(p.physical_methods_agree);
    w.endObject();
    w.endObject();
  }
  w.endArray();
  w.key("groups").beginArray();
  for (const GroupUniqueness& g : u.groups) {
    w.beginObject();
    w.key("name").value(g.group.name);
    w.key("body").value(model.bodyName(g.group.body));
    w.key("pairs").array(groupPairNames(model, g.group));
    writeElement(w, model, g.resultant);
    w.endObject();
  }
  w.endArray();
}

void writeCriterionJson(io::TreeWriter& w, const Model& model, const ProjectiveCriterion& c) {
  const std::vector<std::string> names = velocityCoordinateNames(model);
  w.key("criterion").beginObject();
  w.key("coordinates").beginArray();
  for (std::size_t i = 0; i < names.size(); ++i) {
    w.beginObject();
    w.key("name").value(names[i]);
    w.key("cos2_alpha").value(c.cos2_alpha[i]);
    w.key("cos2_beta").value(c.cos2_beta[i]);
    w.endObject();
  }
  w.endArray();
  std::vector<std::string> set;
  for (const int i : c.best_set) set.push_back(names[static_cast<std::size_t>(i)]);
  w.key("best_set").array(set);
  w.key("set_pivots").array(c.set_pivots);
  w.key("set_sigma_min").value(c.set_sigma_min);
  w.endObject();
}

template <class Motions>
void writeMotionsJson(io::TreeWriter& w, const Model& model, const Motions& motions) {
  w.key("motions").beginObject();
  w.key("rank").value(motions.rank);
  w.key("coordinates").array(velocityCoordinateNames(model));
  w.key("columns").beginArray();
  for (Eigen::Index j = 0; j < motions.motions.cols(); ++j) {
    w.beginArray();
    for (Eigen::Index i = 0; i < motions.motions.rows(); ++i) w.value(motions.motions(i, j));
    w.endArray();
  }
  w.endArray();
  w.key("words").array(motions.words);
  w.endObject();
}

}  // namespace

void writeAnalysis(io::TreeWriter& w, const AnalysisResults& res) {
  const Model& model = *res.model;
  w.beginObject();
  w.key("model").value(model.name());
  w.key("file").value(res.path);
  w.key("dimension").value(model.dimension());
  w.key("units");
  writeUnits(w, model.units());
  w.key("model_warnings").array(model.warnings());
  writeRankJson(w, model, res.rank);
  w.key("characteristic_length").value(model.characteristicLength());
  writeAssemblyJson(w, model, res.assembly);
  writeUniquenessJson(w, model, res.uniqueness);
  if (res.criterion) writeCriterionJson(w, model, *res.criterion);
  if (res.actuation) {
    w.key("actuation");
    writeActuation(w, *res.actuation, res.actuation_sweep);
  }
  if (res.sweep) {
    w.key("criterion_sweep");
    writeSweep(w, model, *res.sweep);
  }
  if (res.motions) writeMotionsJson(w, model, *res.motions);
  if (res.relative) writeRelativeUniquenessJson(w, model, *res.relative, res.uniqueness);
  if (res.topology) {
    w.key("topology");
    writeTopologyJson(w, model);
  }
  w.key("unique_only_here").array(res.unique_only_here);
  w.key("warnings").array(res.warnings);
  w.endObject();
}

std::string analysisJson(const AnalysisResults& res) {
  io::JsonWriter w;
  writeAnalysis(w, res);
  return w.str() + '\n';
}

}  // namespace loopdyn::reports
