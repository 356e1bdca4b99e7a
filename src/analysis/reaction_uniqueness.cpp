#include "loopdyn/analysis/reaction_uniqueness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "loopdyn/analysis/independent_rows.hpp"
#include "loopdyn/common/check.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"
#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

namespace {

/// Everything the element tests share: the scaled matrix, its scaling and one test per method.
struct Setup {
  ConstraintScaling scaling;
  Scalar length = 1;
  std::vector<UniquenessTest> tests;
  std::vector<std::vector<Decision>> components;  ///< per method, per row of C
};

/// K acting on the scaled multipliers (lambda = diag(row) lambda_s), with moment rows divided by
/// the characteristic length so that force and moment rows are comparable.
MatX scaledWrenchRows(const Setup& s, const WrenchMap& W, int row, int nc) {
  MatX K = MatX::Zero(6, nc);
  for (Eigen::Index i = 0; i < W.cols(); ++i) K.col(row + i) = W.col(i) * s.scaling.row(row + i);
  K.bottomRows(3) /= s.length;
  return K;
}

ComponentStatus classify(const Decision& d) { return d.unique ? ComponentStatus::Unique : ComponentStatus::NonUnique; }

/// Status of each physical component of a wrench map, per method (the first decides).
std::vector<ComponentStatus> physicalComponents(const Model& model, const Setup& s, const WrenchMap& W, int row,
                                                bool& agree, Scalar threshold) {
  const MatX K = scaledWrenchRows(s, W, row, model.nc());
  const Scalar largest = K.rowwise().norm().maxCoeff();
  std::vector<ComponentStatus> statuses;
  for (int k : wrenchComponents(model.dimension())) {
    if (K.row(k).norm() <= threshold * largest) {
      statuses.push_back(ComponentStatus::NotTransmitted);
      continue;
    }
    const ComponentStatus first = classify(s.tests.front().element(K.row(k)));
    for (std::size_t t = 1; t < s.tests.size(); ++t)
      if (classify(s.tests[t].element(K.row(k))) != first) agree = false;
    statuses.push_back(first);
  }
  return statuses;
}

/// An element whose reaction decisions are given per method, with its multipliers' decisions.
template <typename DecideReaction>
ElementUniqueness makeElement(const Setup& s, std::vector<int> equations, DecideReaction decide) {
  ElementUniqueness e;
  e.equations = std::move(equations);
  for (std::size_t t = 0; t < s.tests.size(); ++t) {
    MethodResult result;
    result.method = s.tests[t].method();
    result.reaction = decide(s.tests[t]);
    for (int row : e.equations) result.components.push_back(s.components[t][static_cast<std::size_t>(row)]);
    e.methods.push_back(std::move(result));
  }
  return e;
}

std::vector<int> rowRange(int row, int rows) {
  std::vector<int> out(static_cast<std::size_t>(rows));
  for (int k = 0; k < rows; ++k) out[static_cast<std::size_t>(k)] = row + k;
  return out;
}

PairUniqueness analyzePair(const Model& model, const KinematicsWorkspace& ws, const Setup& s, int index,
                           Scalar threshold) {
  const Pair& pair = model.pairs()[static_cast<std::size_t>(index)];
  PairUniqueness out;
  out.pair = index;
  out.reaction = makeElement(s, rowRange(pair.row, pair.rows),
                             [&](const UniquenessTest& test) { return test.pair(pair.row, pair.rows); });
  // physical reading: the wrench on the first body at the pair's point, world and joint axes
  const PairFrame frame = pairFrame(model, ws.motion, index);
  WrenchMap W;
  pairWrenchMap(model, ws.motion, index, frame.body, frame.point, W);
  out.global = physicalComponents(model, s, W, pair.row, out.physical_methods_agree, threshold);
  WrenchMap W_joint(6, W.cols());
  W_joint.topRows(3) = frame.orientation.transpose() * W.topRows(3);
  W_joint.bottomRows(3) = frame.orientation.transpose() * W.bottomRows(3);
  out.joint = physicalComponents(model, s, W_joint, pair.row, out.physical_methods_agree, threshold);
  return out;
}

GroupUniqueness analyzeGroup(const Model& model, const KinematicsWorkspace& ws, const Setup& s, const Group& group) {
  // resultant on the group's body, reduced to the world origin (ground) or its centre of mass
  const Vec3 point = group.body == kGround ? Vec3::Zero() : ws.motion[static_cast<std::size_t>(group.body)].r;
  MatX K = MatX::Zero(6, model.nc());
  std::vector<int> equations;
  WrenchMap W;
  for (int index : group.pairs) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(index)];
    pairWrenchMap(model, ws.motion, index, group.body, point, W);
    K += scaledWrenchRows(s, W, pair.row, model.nc());
    for (int row : rowRange(pair.row, pair.rows)) equations.push_back(row);
  }
  GroupUniqueness out;
  out.group = group;
  out.resultant = makeElement(s, std::move(equations), [&](const UniquenessTest& test) { return test.element(K); });
  return out;
}

}  // namespace

bool MethodResult::componentsUnique() const {
  return std::all_of(components.begin(), components.end(), [](const Decision& d) { return d.unique; });
}

std::vector<int> ElementUniqueness::uniqueComponents() const {
  std::vector<int> out;
  const MethodResult& first = methods.front();
  for (std::size_t k = 0; k < equations.size(); ++k)
    if (first.components[k].unique) out.push_back(equations[k]);
  return out;
}

bool ElementUniqueness::methodsAgree() const {
  const MethodResult& first = methods.front();
  for (const MethodResult& other : methods) {
    if (other.reaction.unique != first.reaction.unique) return false;
    for (std::size_t k = 0; k < first.components.size(); ++k)
      if (other.components[k].unique != first.components[k].unique) return false;
  }
  return true;
}

std::string_view componentStatusName(ComponentStatus status) {
  switch (status) {
    case ComponentStatus::Unique: return "unique";
    case ComponentStatus::NonUnique: return "non-unique";
    case ComponentStatus::NotTransmitted: return "not transmitted";
  }
  return "";
}

bool UniquenessReport::methodsAgree() const {
  for (const PairUniqueness& p : pairs)
    if (!p.reaction.methodsAgree() || !p.physical_methods_agree) return false;
  for (const GroupUniqueness& g : groups)
    if (!g.resultant.methodsAgree()) return false;
  return std::all_of(ranks.begin(), ranks.end(), [&](int r) { return r == rank; });
}

Scalar UniquenessReport::smallestMargin() const {
  Scalar margin = std::numeric_limits<Scalar>::infinity();
  for (const PairUniqueness& p : pairs) margin = std::min(margin, p.reaction.margin());
  for (const GroupUniqueness& g : groups) margin = std::min(margin, g.resultant.margin());
  return margin;
}

std::optional<OptionProblem> uniquenessOptionsProblem(const UniquenessOptions& options) {
  if (options.methods.empty()) return OptionProblem{"method", "at least one uniqueness method must be chosen"};
  if (std::string problem = fractionProblem(options.rank_threshold); !problem.empty())
    return OptionProblem{"threshold", std::move(problem)};
  if (std::string problem = fractionProblem(options.uniqueness_threshold); !problem.empty())
    return OptionProblem{"uniqueness_threshold", std::move(problem)};
  return std::nullopt;
}

namespace {

/// Margins are reported up to this many decades (uniqueness_methods.cpp's bound).
constexpr Scalar kMaxMargin = 20;

/// Every element decided unique by the sparse route, with the rank decision's margin.
ElementUniqueness uniqueElement(const UniquenessReport& report, std::vector<int> equations, Scalar margin) {
  ElementUniqueness e;
  e.equations = std::move(equations);
  for (UniquenessMethod method : report.methods) {
    MethodResult result;
    result.method = method;
    result.reaction.margin = margin;
    result.components.assign(e.equations.size(), result.reaction);
    e.methods.push_back(std::move(result));
  }
  return e;
}

/// A component is transmitted where its row of the wrench map, acting on the scaled multipliers
/// (scaledWrenchRows: only the pair's own columns are nonzero), is not negligible.
std::vector<ComponentStatus> transmittedComponents(const Model& model, const WrenchMap& W, int row, Scalar threshold) {
  const ConstraintScaling& scaling = model.scaling();
  MatX K(6, W.cols());
  for (Eigen::Index i = 0; i < W.cols(); ++i) K.col(i) = W.col(i) * scaling.row(row + i);
  K.bottomRows(3) /= model.characteristicLength();
  const Scalar largest = K.rowwise().norm().maxCoeff();
  std::vector<ComponentStatus> statuses;
  for (int k : wrenchComponents(model.dimension()))
    statuses.push_back(K.row(k).norm() <= threshold * largest ? ComponentStatus::NotTransmitted : ComponentStatus::Unique);
  return statuses;
}

/// The sparse route (independent_rows.hpp): every row of C certified independent at x, so the
/// null space of C^T is {0} and every reaction, multiplier and group resultant is unique for
/// every method; the margin is the rank decision's, read on sigma_min / sigma_max (a lower bound
/// of the dense route's, which reads |R_rr| / |R_11| >= it).
UniquenessReport independentRowsReport(const Model& model, const KinematicsWorkspace& ws,
                                       const UniquenessOptions& options, Scalar ratio) {
  UniquenessReport report;
  report.methods = options.methods;
  report.rank_threshold = options.rank_threshold;
  report.uniqueness_threshold = options.uniqueness_threshold;
  report.rank = model.nc();
  report.ranks.assign(options.methods.size(), report.rank);
  report.by_independent_rows = true;
  const Scalar margin = std::min(kMaxMargin, std::log10(ratio / options.rank_threshold));
  WrenchMap W;
  for (int index = 0; index < static_cast<int>(model.pairs().size()); ++index) {
    const Pair& pair = model.pairs()[static_cast<std::size_t>(index)];
    PairUniqueness out;
    out.pair = index;
    out.reaction = uniqueElement(report, rowRange(pair.row, pair.rows), margin);
    const PairFrame frame = pairFrame(model, ws.motion, index);
    pairWrenchMap(model, ws.motion, index, frame.body, frame.point, W);
    out.global = transmittedComponents(model, W, pair.row, options.uniqueness_threshold);
    WrenchMap W_joint(6, W.cols());
    W_joint.topRows(3) = frame.orientation.transpose() * W.topRows(3);
    W_joint.bottomRows(3) = frame.orientation.transpose() * W.bottomRows(3);
    out.joint = transmittedComponents(model, W_joint, pair.row, options.uniqueness_threshold);
    report.pairs.push_back(std::move(out));
  }
  const auto addGroup = [&](const Group& group) {
    std::vector<int> equations;
    for (int index : group.pairs) {
      const Pair& pair = model.pairs()[static_cast<std::size_t>(index)];
      for (int row : rowRange(pair.row, pair.rows)) equations.push_back(row);
    }
    report.groups.push_back({group, uniqueElement(report, std::move(equations), margin)});
  };
  for (const Group& group : model.groups()) addGroup(group);
  for (const Group& group : options.extra_groups) addGroup(group);
  return report;
}

}  // namespace

UniquenessReport analyzeReactionUniqueness(const Model& model, KinematicsWorkspace& ws, const State& x,
                                           const UniquenessOptions& options) {
  if (const std::optional<OptionProblem> problem = uniquenessOptionsProblem(options))
    throw InvalidArgument(problem->option + ": " + problem->message);
  evaluateConstraints(model, ws, x);
  if (options.sparse_route && sparseRouteSize(model))
    if (const Scalar ratio = singularValueRatio(model, ws); certifiesIndependence(ratio, options.rank_threshold))
      return independentRowsReport(model, ws, options, ratio);
  requireDenseSize(model, ws, "the reaction-uniqueness analysis");
  Setup s;
  s.scaling = model.scaling();
  s.length = model.characteristicLength();
  MatX C_s;
  scaledMatrix(s.scaling, ws.C.dense(), C_s);

  UniquenessReport report;
  report.methods = options.methods;
  report.rank_threshold = options.rank_threshold;
  report.uniqueness_threshold = options.uniqueness_threshold;
  for (UniquenessMethod method : options.methods) {
    s.tests.emplace_back(method, C_s, options.rank_threshold, options.uniqueness_threshold);
    report.ranks.push_back(s.tests.back().rank());
    // second step, row by row: done once and shared by pairs and groups
    std::vector<Decision> rows;
    for (int row = 0; row < model.nc(); ++row) rows.push_back(s.tests.back().component(row));
    s.components.push_back(std::move(rows));
  }
  report.rank = report.ranks.front();
  report.redundancy = model.nc() - report.rank;

  for (int index = 0; index < static_cast<int>(model.pairs().size()); ++index)
    report.pairs.push_back(analyzePair(model, ws, s, index, options.uniqueness_threshold));
  for (const Group& group : model.groups()) report.groups.push_back(analyzeGroup(model, ws, s, group));
  for (const Group& group : options.extra_groups) report.groups.push_back(analyzeGroup(model, ws, s, group));
  return report;
}

namespace {

/// Widens `into` by `other`: non-unique if either is, not transmitted only if both are.
void widen(std::vector<ComponentStatus>& into, const std::vector<ComponentStatus>& other) {
  for (std::size_t k = 0; k < into.size(); ++k) {
    if (into[k] == ComponentStatus::NonUnique || other[k] == ComponentStatus::NonUnique)
      into[k] = ComponentStatus::NonUnique;
    else if (into[k] == ComponentStatus::NotTransmitted && other[k] == ComponentStatus::Unique)
      into[k] = ComponentStatus::Unique;
  }
}

/// Widens an element's decisions: a decision that is non-unique elsewhere is taken from there.
void widen(ElementUniqueness& into, const ElementUniqueness& other) {
  for (std::size_t m = 0; m < into.methods.size(); ++m) {
    MethodResult& a = into.methods[m];
    const MethodResult& b = other.methods[m];
    if (!b.reaction.unique) a.reaction = b.reaction;
    for (std::size_t k = 0; k < a.components.size(); ++k)
      if (!b.components[k].unique) a.components[k] = b.components[k];
  }
}

}  // namespace

UniquenessReport analyzeReactionUniquenessNear(const Model& model, KinematicsWorkspace& ws, const State& x,
                                               const UniquenessOptions& options, const RankOptions& sampling) {
  UniquenessReport report = analyzeReactionUniqueness(model, ws, x, options);
  for (const State& y : configurationsNear(model, ws, x, sampling, true)) {
    const UniquenessReport there = analyzeReactionUniqueness(model, ws, y, options);
    for (std::size_t p = 0; p < report.pairs.size(); ++p) {
      widen(report.pairs[p].reaction, there.pairs[p].reaction);
      widen(report.pairs[p].global, there.pairs[p].global);
      widen(report.pairs[p].joint, there.pairs[p].joint);
    }
    for (std::size_t g = 0; g < report.groups.size(); ++g) widen(report.groups[g].resultant, there.groups[g].resultant);
  }
  evaluateConstraints(model, ws, x);
  return report;
}

std::vector<std::string> uniqueOnlyHere(const Model& model, const UniquenessReport& at, const UniquenessReport& near) {
  std::vector<std::string> out;
  const std::span<const int> components = wrenchComponents(model.dimension());
  for (std::size_t p = 0; p < at.pairs.size(); ++p)
    for (const bool joint : {false, true}) {
      const auto& here = joint ? at.pairs[p].joint : at.pairs[p].global;
      const auto& there = joint ? near.pairs[p].joint : near.pairs[p].global;
      for (std::size_t k = 0; k < here.size(); ++k)
        if (here[k] == ComponentStatus::Unique && there[k] == ComponentStatus::NonUnique)
          out.push_back(model.pairs()[p].name + " " + std::string(wrenchComponentName(components[k])) +
                        (joint ? " (joint frame)" : " (world axes)"));
    }
  return out;
}

}  // namespace loopdyn
