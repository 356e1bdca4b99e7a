// The facade's analysis (loopdyn.hpp): what `loopdyn analyze` computes, for every door.
#include "loopdyn/dynamics/mass_and_forces.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/loopdyn.hpp"

namespace loopdyn {

namespace {

/// Analysis::cautions from its reports (see AnalysisCaution).
void collectCautions(const Model& model, Analysis& a) {
  using Kind = AnalysisCaution::Kind;
  const auto add = [&](Kind kind, std::vector<std::string> names = {}, double margin = 0) {
    a.cautions.push_back(AnalysisCaution{kind, std::move(names), margin, a.rank.rank, a.rank.generic_rank});
  };
  const UniquenessReport& u = a.uniqueness;
  if (a.rank.singular) add(Kind::SingularConfiguration);
  if (!u.methodsAgree()) {
    // (every decision clear-cut: a method is wrong, not the thresholds; issue 22)
    const double margin = u.smallestMargin();
    add(margin < kSmallMargin ? Kind::MethodsDisagreeNearThreshold : Kind::MethodsDisagree, {}, margin);
  }
  if (a.relative) {
    if (!a.routes_disagree.empty()) add(Kind::RoutesDisagree, a.routes_disagree);
    if (a.relative->ground.smallest_margin < kSmallMargin)
      add(Kind::GroundTestsNearThreshold, {}, a.relative->ground.smallest_margin);
    if (!a.relative->stepsAgreeWithNullSpace()) add(Kind::DcaStepsContradictNullSpace);
  }
  if (!a.unique_only_here.empty()) add(Kind::UniqueOnlyHere, a.unique_only_here);
  for (const PairUniqueness& p : u.pairs)
    if (p.reaction.margin() < kSmallMargin)
      add(Kind::PairNearThreshold, {model.pairs()[static_cast<std::size_t>(p.pair)].name}, p.reaction.margin());
  for (const GroupUniqueness& g : u.groups)
    if (g.resultant.margin() < kSmallMargin)
      add(Kind::GroupNearThreshold, {g.group.name}, g.resultant.margin());
}

}  // namespace

std::vector<UniquenessMethod> uniquenessMethods(const Model& model, const std::string& name) {
  if (name == "all" || (name == "auto" && model.nc() <= kAllMethodsEquations)) return UniquenessOptions{}.methods;
  if (name == "auto") return {UniquenessMethod::QR};
  if (const auto one = methodFromName(name)) return {*one};
  return {};
}

Analysis analyze(const Model& model, const RankOptions& rank_options, const UniquenessOptions& uniqueness_options) {
  KinematicsWorkspace ws(model);
  const AssemblyResult assembly = assemble(model, ws, initialState(model));
  if (!assembly.converged) {
    Analysis out;
    out.assembly = assembly;
    return out;
  }
  AnalysisRequest request;
  request.rank = rank_options;
  request.uniqueness = uniqueness_options;
  return analyzeAt(model, assembly, request);
}

Analysis analyzeAt(const Model& model, const AssemblyResult& assembly, const AnalysisRequest& request) {
  KinematicsWorkspace ws(model);
  Analysis a;
  a.assembly = assembly;
  const State& x = assembly.state;
  a.rank = analyzeConstraints(model, ws, x, request.rank);
  a.uniqueness = analyzeReactionUniqueness(model, ws, x, request.uniqueness);
  if (request.rank.generic_samples > 0)
    a.unique_only_here =
        uniqueOnlyHere(model, a.uniqueness, analyzeReactionUniquenessNear(model, ws, x, request.uniqueness, request.rank));
  if (request.criterion) {
    evaluateConstraints(model, ws, x);
    MatX M;
    massMatrix(model, ws.motion, M);
    a.criterion = projectiveCriterion(model, ws, M, x);
  }
  if (request.motions) {
    evaluateConstraints(model, ws, x);
    a.motions = admissibleMotions(model, ws, request.rank.rank_threshold);
  }
  if (request.relative) {
    a.relative = analyzeReactionUniquenessDca(model, x, request.uniqueness);
    a.routes_disagree = routesDisagree(model, *a.relative, a.uniqueness);
  }
  collectCautions(model, a);
  return a;
}

}  // namespace loopdyn
