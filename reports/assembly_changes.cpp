#include "assembly_changes.hpp"

#include <cmath>

#include <Eigen/Geometry>

#include "report_format.hpp"

namespace loopdyn::reports {

std::vector<BodyMove> assemblyMoves(const Model& model, const State& assembled) {
  std::vector<BodyMove> out;
  const VecX& written = model.initialPositions();
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const BodyMotion from = bodyMotion(model, written, VecX(), b), to = bodyMotion(model, assembled.q, VecX(), b);
    BodyMove move{b, (to.r - from.r).norm(), 0, to.r};
    move.turn = model.dimension() == 2 ? to.phi - from.phi
                                       : Eigen::AngleAxis<Scalar>(from.R.transpose() * to.R).angle();
    if (move.distance > 1e-9 * model.characteristicLength() || std::abs(move.turn) > 1e-9) out.push_back(move);
  }
  return out;
}

std::vector<VelocityChange> velocityChanges(const Model& model, const State& assembled) {
  std::vector<VelocityChange> out;
  const int k = model.vPerBody();
  for (BodyIndex b = 0; b < model.nb(); ++b) {
    const VecX given = model.initialVelocities().segment(b * k, k), used = assembled.v.segment(b * k, k);
    bool prescribed = false, changed = false;
    for (int i = 0; i < k; ++i) {
      const auto c = static_cast<std::size_t>(b * k + i);
      prescribed = prescribed || model.prescribedVelocities()[c];
      changed = changed || (model.prescribedVelocities()[c] && std::abs(used(i) - given(i)) > 1e-9 * (1 + std::abs(given(i))));
    }
    if (prescribed && changed) out.push_back({b, given, used});
  }
  return out;
}

std::string vectorText(const VecX& v) {
  std::string out = "(";
  for (Eigen::Index i = 0; i < v.size(); ++i) out += (i ? ", " : "") + formatNumber(v(i));
  return out + ")";
}

std::vector<std::string> assemblyChangeLines(const Model& model, const State& assembled) {
  std::vector<std::string> lines;
  for (const BodyMove& m : assemblyMoves(model, assembled))
    lines.push_back("moved " + model.bodyName(m.body) + " by " + formatNumber(m.distance) + " m and " +
                    formatNumber(m.turn) + " rad from the file's pose, to " +
                    vectorText(m.position.head(model.dimension())));
  for (const VelocityChange& c : velocityChanges(model, assembled))
    lines.push_back("velocity of " + model.bodyName(c.body) + ": given " + vectorText(c.given) + ", used " +
                    vectorText(c.used) + " (the constraints allow no other)");
  return lines;
}

}  // namespace loopdyn::reports
