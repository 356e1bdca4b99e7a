#pragma once
/// Building a formulation by name, the one place the command line, the benchmarks and the tests
/// share: which formulation, with which options, and whether it can start at the given state.

#include <memory>
#include <string>
#include <vector>

#include "loopdyn/dynamics/formulation.hpp"

namespace loopdyn {

struct FormulationChoice {
  std::string method = "lagrange";  ///< lagrange, elimination, partitioning, projection, dca, hdca (the last two in joint coordinates)
  /// absolute (every body's own coordinates) or relative (joint coordinates on the spanning tree,
  /// kinematics/coordinates.hpp: lagrange, elimination, partitioning and projection on
  /// joint_space_equations.hpp; dca and hdca always)
  std::string coordinates = "absolute";
  bool continuation = true;         ///< projection: continue the tangent basis (else refactorise)
  bool switching = true;            ///< partitioning: switch degraded coordinate sets (else keep)
  /// elimination: the equations to eliminate by name ("C.y", "W4"); empty: chosen by QR with
  /// column pivoting (and re-chosen where they turn dependent at a regular configuration).
  std::vector<std::string> eliminate;
  /// dca: threads of its passes over the assembly tree (DivideAndConquer::setThreads); the other
  /// formulations run on one.
  int threads = 1;
};

struct BuiltFormulation {
  std::unique_ptr<Formulation> formulation;  ///< null when it cannot be built: see problem
  std::string problem;
  std::vector<std::string> eliminated;  ///< elimination: the names of the eliminated equations
  int generic_rank = 0;                 ///< rank of C on the motion (analyzeConstraints at x0)
  Scalar generic_ratio = 1;             ///< its regular |R_rr| / |R_11| (RankReport::generic_ratio)
};

/// The formulation `choice` names, for a motion from the assembled state x0. Elimination refuses a
/// singular x0 (QR there would remove equations that are dependent at that instant only) and a
/// user's list that does not remove exactly the redundant equations; every refusal says why.
BuiltFormulation buildFormulation(const Model& model, const State& x0, const FormulationChoice& choice);

}  // namespace loopdyn
