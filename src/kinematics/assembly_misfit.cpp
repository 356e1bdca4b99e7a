#include "loopdyn/kinematics/assembly_misfit.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <Eigen/QR>
#include <Eigen/SVD>

#include "loopdyn/common/check.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

std::vector<PairMisfit> pairMisfits(const Model& model, const KinematicsWorkspace& ws, const State& x) {
  VecX velocity_residual = ws.b;
  ws.C.times(x.v, velocity_residual);
  velocity_residual += ws.b;
  std::vector<PairMisfit> out;
  for (std::size_t p = 0; p < model.pairs().size(); ++p) {
    const Pair& pair = model.pairs()[p];
    Scalar gap2 = 0, angle2 = 0;
    for (int r = pair.row; r < pair.row + pair.rows; ++r) {
      const Scalar e = pair.nonholonomic ? velocity_residual(r) : ws.Phi(r);
      (model.equations()[static_cast<std::size_t>(r)].kind == EquationKind::Angular ? angle2 : gap2) += e * e;
    }
    if (gap2 > 0 || angle2 > 0 || std::isnan(gap2 + angle2))
      out.push_back({static_cast<int>(p), std::sqrt(gap2), std::sqrt(angle2)});
  }
  const Scalar L = model.characteristicLength();
  const auto size = [&](const PairMisfit& m) {
    const Scalar s = m.gap + L * m.angle;
    return std::isnan(s) ? std::numeric_limits<Scalar>::infinity() : s;
  };
  std::stable_sort(out.begin(), out.end(), [&](const PairMisfit& a, const PairMisfit& b) { return size(a) > size(b); });
  return out;
}

std::vector<std::string> loopOf(const Model& model, int joint) {
  const Topology& topology = model.topology();
  if (joint < 0 || topology.roles[static_cast<std::size_t>(joint)] == JointRole::Tree) return {};
  const Joint& cut = model.joints()[static_cast<std::size_t>(joint)];
  std::vector<std::string> up, down;  // from the first body up to the common ancestor; from the second
  BodyIndex a = cut.first.body, b = cut.second.body;
  const auto depth = [&](BodyIndex body) { return body == kGround ? 0 : topology.links[static_cast<std::size_t>(body)].depth; };
  const auto climb = [&](BodyIndex& body, std::vector<std::string>& names) {
    const TreeLink& link = topology.links[static_cast<std::size_t>(body)];
    names.push_back(link.joint < 0 ? model.bodyName(body) + " (free)" : model.joints()[static_cast<std::size_t>(link.joint)].name);
    body = link.parent;
  };
  while (a != b) {
    if (depth(a) >= depth(b)) climb(a, up);
    else climb(b, down);
  }
  std::vector<std::string> loop{cut.name};
  loop.insert(loop.end(), down.begin(), down.end());
  loop.insert(loop.end(), up.rbegin(), up.rend());
  return loop;
}

namespace {

/// "revolute 'B' open by 5.2 m" / "... misaligned by 3 deg" / "driver 'lift' asks for 1.016 m at
/// t = 0 s; the linkage reaches 1 m".
std::string misfitText(const Model& model, const KinematicsWorkspace& ws, const PairMisfit& m, Scalar t) {
  const Pair& pair = model.pairs()[static_cast<std::size_t>(m.pair)];
  if (pair.driver >= 0) {
    const Driver& driver = model.drivers()[static_cast<std::size_t>(pair.driver)];
    const bool angle = model.equations()[static_cast<std::size_t>(pair.row)].kind == EquationKind::Angular;
    const Scalar asked = driver.profile.evaluate(t).f, unit = angle ? 180 / std::numbers::pi : 1;
    const char* name = angle ? " deg" : " m";
    // the driver's equation is (its coordinate) - (what it asks for)
    return detail::concat("driver '", pair.name, "' asks for ", asked * unit, name, " at t = ", t,
                          " s; with every joint closed the linkage comes to ", (asked + ws.Phi(pair.row)) * unit, name);
  }
  std::string text = detail::concat(pair.type, " '", pair.name, "'");
  if (pair.nonholonomic) return text + detail::concat(" slips at ", m.gap, " m/s");
  if (m.gap > 0) text += detail::concat(" open by ", m.gap, " m");
  if (m.angle > 0) text += detail::concat(m.gap > 0 ? " and" : "", " misaligned by ", m.angle * 180 / std::numbers::pi, " deg");
  return text;
}

/// The least-squares solution of A y = b of least norm, ignoring the singular values of A below
/// `cutoff` (an absolute one: a relative threshold would invert a matrix of rounding errors).
VecX truncatedSolve(const MatX& A, const VecX& b, Scalar cutoff) {
  // (no unknowns -- the joints leave no freedom -- or no equations: nothing to solve, and Eigen's
  // SVD of an empty matrix reads past it)
  if (A.rows() == 0 || A.cols() == 0) return VecX::Zero(A.cols());
  const Eigen::JacobiSVD<MatX> svd(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const VecX& sigma = svd.singularValues();
  VecX c = svd.matrixU().transpose() * b;
  for (Eigen::Index k = 0; k < sigma.size(); ++k) c(k) = sigma(k) > cutoff ? c(k) / sigma(k) : 0;
  return svd.matrixV() * c;
}

/// Up to this many velocity coordinates the message looks for the drivers' reach (dense QRs).
constexpr int kLargestReachModel = 600;

/// The configuration nearest x whose joints all hold and whose drivers come as close to their
/// targets as those joints allow: Gauss-Newton on the drivers' equations in the null space of the
/// joints' (each step the joints' minimum-norm correction plus the drivers' least-squares step
/// within the joints' null space). Nothing when the joints do not close either, or the model is
/// large.
std::optional<State> closestDriverReach(const Model& model, KinematicsWorkspace& ws, State x) {
  if (model.drivers().empty() || model.nv() > kLargestReachModel) return std::nullopt;
  std::vector<Eigen::Index> joint_rows, driver_rows;
  for (const Pair& pair : model.pairs())
    for (int r = pair.row; r < pair.row + pair.rows && !pair.nonholonomic; ++r)
      (pair.driver >= 0 ? driver_rows : joint_rows).push_back(r);
  const ConstraintScaling& s = model.scaling();
  const Scalar L = model.characteristicLength();
  for (int iteration = 0; iteration < 100; ++iteration) {
    evaluateConstraints(model, ws, x);
    const MatX C = s.row.head(model.m()).asDiagonal() * ws.C.dense().topRows(model.m()) * s.col.asDiagonal();
    const VecX Phi = s.row.head(model.m()).cwiseProduct(ws.Phi);
    const MatX J = C(joint_rows, Eigen::all), D = C(driver_rows, Eigen::all);
    // the joints' minimum-norm correction and their null space (the trailing columns of the
    // pivoted QR of J^T); a model of drivers alone has neither correction nor restriction
    VecX joint_step = VecX::Zero(C.cols());
    MatX N = MatX::Identity(C.cols(), C.cols());
    if (!joint_rows.empty()) {
      joint_step = Eigen::CompleteOrthogonalDecomposition<MatX>(J).solve(VecX(-Phi(joint_rows)));
      const Eigen::ColPivHouseholderQR<MatX> qr(J.transpose());
      N = MatX(qr.householderQ()).rightCols(J.cols() - qr.rank());
    }
    // (a direction along which no driver's coordinate changes takes no part: D N may vanish
    // altogether, as at a driver's reach limit)
    const VecX y = truncatedSolve(D * N, -Phi(driver_rows) - D * joint_step, 1e-10 * std::max(Scalar{1}, D.norm()));
    const VecX step = joint_step + N * y;
    VecX q;
    displacePositions(model, x.q, s.col.cwiseProduct(step), q);
    x.q = q;
    if (step.norm() <= 1e-10 * L) break;
  }
  evaluateConstraints(model, ws, x);
  Scalar joints = 0;
  for (const Eigen::Index r : joint_rows) joints += std::pow(s.row(r) * ws.Phi(r), 2);
  if (std::sqrt(joints) <= 1e-9 * L) return x;
  return std::nullopt;
}

/// The pairs a message names: the largest misfits, down to a hundredth of the largest, four at most.
std::vector<PairMisfit> namedMisfits(const Model& model, std::vector<PairMisfit> misfits) {
  const Scalar L = model.characteristicLength();
  const Scalar largest = misfits.empty() ? 0 : misfits.front().gap + L * misfits.front().angle;
  std::size_t k = 0;
  while (k < misfits.size() && k < 4 && !(misfits[k].gap + L * misfits[k].angle < 0.01 * largest)) ++k;
  misfits.resize(k);
  return misfits;
}

/// "the drivers ask for a pose the linkage cannot reach: driver 'lift' asks for 1.5 m at t = 0 s;
/// with every joint closed it comes to 1 m", where the joints close without the drivers; empty
/// otherwise. Leaves ws evaluated at x.
std::string unreachableDrivers(const Model& model, KinematicsWorkspace& ws, const State& x) {
  const std::optional<State> reach = closestDriverReach(model, ws, x);
  std::string text;
  if (reach)
    for (const PairMisfit& m : namedMisfits(model, pairMisfits(model, ws, *reach)))
      if (model.pairs()[static_cast<std::size_t>(m.pair)].driver >= 0)
        text += (text.empty() ? "" : ", ") + misfitText(model, ws, m, x.t);
  evaluateConstraints(model, ws, x);
  if (text.empty()) return text;
  return "the drivers ask for a pose the linkage cannot reach: " + text;
}

}  // namespace

std::string assemblyFailure(const Model& model, KinematicsWorkspace& ws, const State& x, int iterations,
                            bool stalled, Scalar residual, Scalar tolerance) {
  if (stalled)
    if (std::string drivers = unreachableDrivers(model, ws, x); !drivers.empty()) return drivers;
  const std::vector<PairMisfit> misfits = namedMisfits(model, pairMisfits(model, ws, x));
  std::string text = stalled ? detail::concat("the mechanism cannot be assembled: the closest configuration to the file's "
                                              "positions (", iterations, " Newton iterations; no step closes the joints "
                                              "further) leaves ")
                             : detail::concat("assembly did not converge in ", iterations, " Newton iterations: ");
  for (std::size_t k = 0; k < misfits.size(); ++k) text += (k ? ", " : "") + misfitText(model, ws, misfits[k], x.t);
  for (const PairMisfit& m : misfits) {
    const std::vector<std::string> loop = loopOf(model, model.pairs()[static_cast<std::size_t>(m.pair)].joint);
    if (loop.empty()) continue;
    std::string names;
    for (const std::string& name : loop) names += (names.empty() ? "" : " - ") + name;
    text += "; the loop " + names + (stalled ? " cannot close with its bodies' marker positions, or not near the file's "
                                              "positions" : " is still open");
    break;
  }
  std::string held;
  for (BodyIndex b = 0; b < model.nb(); ++b)
    if (model.heldBodies()[static_cast<std::size_t>(b)]) held += (held.empty() ? "" : ", ") + model.bodyName(b);
  if (!held.empty()) text += "; held where the file puts them (hold: true): " + held;
  return text + detail::concat("; scaled residual ", residual, " > ", tolerance, " (in units of the model's length ",
                               model.characteristicLength(), " m)");
}

}  // namespace loopdyn
