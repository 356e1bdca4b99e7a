#include "run_diagnostics.hpp"

#include <cmath>
#include <algorithm>
#include <sstream>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/dynamics/singular_watch.hpp"

namespace loopdyn::detail {

namespace {

/// A motion smaller than this share of the gravity floor is rounding: nothing to lose
constexpr Scalar kRoundingEnergy = 1e-12;
/// The energy check is said to be blind to a motion whose loss of this share would pass it
constexpr Scalar kResolvedShare = 0.1;

}  // namespace

std::vector<std::string> bodiesWithNonFinite(const Model& model, const VecX& a) {
  std::vector<std::string> out;
  for (int b = 0; b < model.nb(); ++b)
    if (!a.segment(b * model.vPerBody(), model.vPerBody()).allFinite())
      out.push_back(model.bodies()[static_cast<std::size_t>(b)].name);
  return out;
}

void violations(const Model& model, const DynamicsWorkspace& ws, const State& x, Scalar& position, Scalar& velocity) {
  const Scalar L = model.characteristicLength();
  position = ws.scaling.row.head(model.m()).cwiseProduct(ws.kin.Phi).norm() / L;
  Scalar sum = 0;  // |diag(row) (C v + b)|^2, row by row
  for (Eigen::Index i = 0; i < model.nc(); ++i) {
    const Scalar e = ws.scaling.row(i) * (ws.kin.C.rowTimes(i, x.v) + ws.kin.b(i));
    sum += e * e;
  }
  velocity = std::sqrt(sum) / L;
}

std::optional<NearSingularity> nearSingularity(const Model& model, State x, int rank) {
  KinematicsWorkspace kin(model);
  RankOptions options;
  options.rank_threshold = kSingularRatio;
  options.generic_samples = 0;
  x.v.setZero(model.nv());  // C does not depend on v
  const RankReport r = analyzeConstraintsAt(model, kin, x, options);
  if (r.rank >= rank) return std::nullopt;
  NearSingularity near;
  near.rank_regular = rank;
  near.rank = r.rank;
  for (int row : r.dependent_equations) {
    const std::string& name = model.pairs()[static_cast<std::size_t>(model.equations()[static_cast<std::size_t>(row)].pair)].name;
    if (std::find(near.pairs.begin(), near.pairs.end(), name) == near.pairs.end()) near.pairs.push_back(name);
  }
  return near;
}

std::string timeLabel(Scalar t) {
  std::ostringstream os;
  os.precision(6);
  os << "t = " << std::fixed << t << " s";
  return os.str();
}

std::string numberText(Scalar x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

std::optional<RunWarning> energyBlindSpot(Scalar motion, Scalar floor, Scalar tolerance) {
  const Scalar resolved = tolerance * floor;
  if (motion <= kRoundingEnergy * floor || resolved <= kResolvedShare * motion) return std::nullopt;
  RunWarning warning;
  warning.kind = RunWarning::Kind::EnergyBlindSpot;
  warning.value = resolved;
  warning.bound = floor;
  warning.raised = motion;
  warning.tolerance = tolerance;
  warning.suggested = kResolvedShare * motion / floor;
  return warning;
}

}  // namespace loopdyn::detail
