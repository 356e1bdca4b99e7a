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

/// A pair's misfit with its names, and for a driver what it asks for at t and what the linkage
/// comes to (ws evaluated there).
NamedMisfit named(const Model& model, const KinematicsWorkspace& ws, const PairMisfit& m, Scalar t) {
  const Pair& pair = model.pairs()[static_cast<std::size_t>(m.pair)];
  NamedMisfit out{pair.type, pair.name, pair.nonholonomic, m.gap, m.angle};
  if (pair.driver >= 0) {
    const Driver& driver = model.drivers()[static_cast<std::size_t>(pair.driver)];
    out.driver = true;
    out.angular = model.equations()[static_cast<std::size_t>(pair.row)].kind == EquationKind::Angular;
    const Scalar asked = driver.profile.evaluate(t).f, unit = out.angular ? 180 / std::numbers::pi : 1;
    // the driver's equation is (its coordinate) - (what it asks for)
    out.asked = asked * unit;
    out.reached = (asked + ws.Phi(pair.row)) * unit;
  }
  return out;
}

/// "revolute 'B' open by 5.2 m" / "... misaligned by 3 deg" / "driver 'lift' asks for 1.016 m at
/// t = 0 s; the linkage reaches 1 m".
std::string misfitText(const NamedMisfit& m, Scalar t) {
  if (m.driver) {
    const char* unit = m.angular ? " deg" : " m";
    return detail::concat("driver '", m.name, "' asks for ", m.asked, unit, " at t = ", t,
                          " s; with every joint closed the linkage comes to ", m.reached, unit);
  }
  std::string text = detail::concat(m.type, " '", m.name, "'");
  if (m.nonholonomic) return text + detail::concat(" slips at ", m.gap, " m/s");
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

/// The drivers' misfits at the configuration nearest x whose joints close (what they ask for
/// against what the linkage comes to); empty where the joints do not close without them. Leaves
/// ws evaluated at x.
std::vector<NamedMisfit> unreachableDrivers(const Model& model, KinematicsWorkspace& ws, const State& x) {
  const std::optional<State> reach = closestDriverReach(model, ws, x);
  std::vector<NamedMisfit> drivers;
  if (reach)
    for (const PairMisfit& m : namedMisfits(model, pairMisfits(model, ws, *reach)))
      if (model.pairs()[static_cast<std::size_t>(m.pair)].driver >= 0) drivers.push_back(named(model, ws, m, x.t));
  evaluateConstraints(model, ws, x);
  return drivers;
}

}  // namespace

const char* assemblyFailureName(AssemblyFailure::Kind kind) {
  using K = AssemblyFailure::Kind;
  switch (kind) {
    case K::None: return "none";
    case K::Stalled: return "stalled";
    case K::OutOfIterations: return "out-of-iterations";
    case K::DriversUnreachable: return "drivers-unreachable";
    case K::TooLarge: return "too-large";
    case K::VelocitiesInconsistent: return "velocities-inconsistent";
  }
  return "none";
}

AssemblyFailure assemblyFailure(const Model& model, KinematicsWorkspace& ws, const State& x, int iterations,
                                bool stalled, Scalar residual, Scalar tolerance) {
  AssemblyFailure out;
  out.t = x.t;
  out.iterations = iterations;
  out.residual = residual;
  out.tolerance = tolerance;
  out.length = model.characteristicLength();
  if (stalled) {
    out.misfits = unreachableDrivers(model, ws, x);
    if (!out.misfits.empty()) {
      out.kind = AssemblyFailure::Kind::DriversUnreachable;
      return out;
    }
  }
  out.kind = stalled ? AssemblyFailure::Kind::Stalled : AssemblyFailure::Kind::OutOfIterations;
  for (const PairMisfit& m : namedMisfits(model, pairMisfits(model, ws, x))) {
    out.misfits.push_back(named(model, ws, m, x.t));
    if (out.loop.empty()) out.loop = loopOf(model, model.pairs()[static_cast<std::size_t>(m.pair)].joint);
  }
  for (BodyIndex b = 0; b < model.nb(); ++b)
    if (model.heldBodies()[static_cast<std::size_t>(b)]) out.held.push_back(model.bodyName(b));
  return out;
}

std::string assemblyFailureText(const AssemblyFailure& f) {
  using K = AssemblyFailure::Kind;
  const auto list = [](const std::vector<std::string>& names, const char* between) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : between) + name;
    return text;
  };
  switch (f.kind) {
    case K::None: return {};
    case K::TooLarge: return f.detail;
    case K::VelocitiesInconsistent:
      return "velocities could not be made consistent with the constraints (relative residual " +
             std::to_string(f.residual) + ")";
    case K::DriversUnreachable: {
      std::string text;
      for (const NamedMisfit& m : f.misfits) text += (text.empty() ? "" : ", ") + misfitText(m, f.t);
      return "the drivers ask for a pose the linkage cannot reach: " + text;
    }
    case K::Stalled:
    case K::OutOfIterations: break;
  }
  const bool stalled = f.kind == K::Stalled;
  std::string text = stalled ? detail::concat("the mechanism cannot be assembled: the closest configuration to the file's "
                                              "positions (", f.iterations, " Newton iterations; no step closes the joints "
                                              "further) leaves ")
                             : detail::concat("assembly did not converge in ", f.iterations, " Newton iterations: ");
  for (std::size_t k = 0; k < f.misfits.size(); ++k) text += (k ? ", " : "") + misfitText(f.misfits[k], f.t);
  if (!f.loop.empty())
    text += "; the loop " + list(f.loop, " - ") +
            (stalled ? " cannot close with its bodies' marker positions, or not near the file's positions" : " is still open");
  if (!f.held.empty()) text += "; held where the file puts them (hold: true): " + list(f.held, ", ");
  return text + detail::concat("; scaled residual ", f.residual, " > ", f.tolerance, " (in units of the model's length ",
                               f.length, " m)");
}

}  // namespace loopdyn
