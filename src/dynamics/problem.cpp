#include "loopdyn/dynamics/problem.hpp"

#include <ostream>
#include <sstream>

namespace loopdyn {

const char* problemKindName(Problem::Kind kind) {
  using K = Problem::Kind;
  switch (kind) {
    case K::None: return "none";
    case K::TreeMassNotPositiveDefinite: return "tree-mass-not-positive-definite";
    case K::ProjectedMassNotPositiveDefinite: return "projected-mass-not-positive-definite";
    case K::TangentBasisLost: return "tangent-basis-lost";
    case K::BranchUnreachable: return "branch-unreachable";
    case K::BranchOrthogonal: return "branch-orthogonal";
    case K::KeptRowsSingular: return "kept-rows-singular";
    case K::KeptRowsDependent: return "kept-rows-dependent";
    case K::DependentCoordinatesSingular: return "dependent-coordinates-singular";
    case K::ReducedMassNotPositiveDefinite: return "reduced-mass-not-positive-definite";
    case K::PartitioningSingularStart: return "partitioning-singular-start";
    case K::TooFarFromConstraints: return "too-far-from-constraints";
    case K::NoJointCoordinates: return "no-joint-coordinates";
    case K::NoInitialJointCoordinates: return "no-initial-joint-coordinates";
    case K::NonFiniteAccelerations: return "non-finite-accelerations";
  }
  return "none";
}

namespace {

std::string joined(const std::vector<std::string>& names, const char* none) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? none : out;
}

/// The problems of a formulation's own matrices and bases.
std::string matrixText(const Problem& p) {
  using K = Problem::Kind;
  switch (p.kind) {
    case K::TreeMassNotPositiveDefinite: return "the tree's mass matrix J^T M J is not positive definite";
    case K::ProjectedMassNotPositiveDefinite: return "the projected mass matrix T^T M T is not positive definite";
    case K::TangentBasisLost: return "the tangent basis T lost a direction";
    case K::KeptRowsSingular:
      return "a singular configuration (or within 1e-6 of one): " + p.matrix + " has rank " + std::to_string(p.rank) +
             " here, below the " + std::to_string(p.count) + " equations kept after elimination (dependent: " +
             joined(p.names, "?") + ")";
    case K::KeptRowsDependent:
      return "the equations kept after elimination are dependent here (" + joined(p.names, "?") +
             ") although the mechanism is not singular: eliminate other equations";
    case K::DependentCoordinatesSingular:
      return "the dependent velocity coordinates cannot be solved for: C_KD is singular (reciprocal condition " +
             std::to_string(p.value) + ") with the independent coordinates {" + joined(p.names, "") +
             "} (at a singular configuration of the mechanism every set is singular: the projection formulation passes it)";
    case K::ReducedMassNotPositiveDefinite:
      return "the reduced mass matrix D M D^T is not positive definite: the independent coordinates {" +
             joined(p.names, "") + "} are (nearly) a singular choice here (C_KD reciprocal condition " +
             std::to_string(p.value) + ")";
    default: return {};
  }
}

/// The problems of a state and of a start.
std::string stateText(const Problem& p) {
  using K = Problem::Kind;
  std::ostringstream os;
  switch (p.kind) {
    case K::BranchUnreachable:
      return "no configuration of the mechanism near the singular one along the initial motion: " + p.detail;
    case K::BranchOrthogonal:
      return "the tangent space of the branch along the initial motion is orthogonal to the admissible motions";
    case K::PartitioningSingularStart:
      os << "the initial configuration is singular (|R_rr| / |R_11| = " << p.value << " at rank " << p.rank
         << "): no set of independent coordinates exists there; start from a regular configuration or use "
            "the projection formulation (which finds the branch the motion takes) or lagrange";
      return os.str();
    case K::TooFarFromConstraints:
      return "the state is too far from the constraints to be projected onto them (scaled residual " +
             std::to_string(p.value) + ")";
    case K::NoJointCoordinates: return "no joint coordinates give this state: " + p.detail;
    case K::NoInitialJointCoordinates: return "no joint coordinates give the initial state: " + p.detail;
    case K::NonFiniteAccelerations: {
      std::vector<std::string> bodies;
      for (const std::string& b : p.names) bodies.push_back("body '" + b + "'");
      return "the accelerations are not finite (NaN or infinite) on " + joined(bodies, "no body");
    }
    default: return {};
  }
}

}  // namespace

std::string problemText(const Problem& p) {
  if (p.empty()) return {};
  const std::string words = matrixText(p).empty() ? stateText(p) : matrixText(p);
  return p.at_singular_start ? "the initial configuration is singular: " + words : words;
}

std::ostream& operator<<(std::ostream& os, const Problem& p) {
  os << problemKindName(p.kind);
  for (std::size_t k = 0; k < p.names.size(); ++k) os << (k ? ", " : " (") << p.names[k] << (k + 1 == p.names.size() ? ")" : "");
  if (p.value != 0) os << ", value " << p.value;
  if (p.rank != 0 || p.count != 0) os << ", rank " << p.rank << " of " << p.count;
  if (!p.detail.empty()) os << ": " << p.detail;
  return os;
}

}  // namespace loopdyn
