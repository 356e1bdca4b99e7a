#pragma once
/// Why a formulation could not start, evaluate or step: a code with the numbers and names its
/// account is made of. The words are the front ends' (reports/problem_text.hpp); Kind::None (an
/// empty problem) is success. Each kind says the fields it fills.

#include <iosfwd>
#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

struct Problem {
  enum class Kind {
    None,
    TreeMassNotPositiveDefinite,       ///< the tree's mass matrix J^T M J (joint coordinates)
    ProjectedMassNotPositiveDefinite,  ///< projection's T^T M T
    TangentBasisLost,                  ///< projection's continued basis T lost a direction
    BranchUnreachable,                 ///< singular start: no configuration near it along the initial motion; detail (the assembly's)
    BranchOrthogonal,                  ///< singular start: the branch's tangent space is orthogonal to the admissible motions
    KeptRowsSingular,                  ///< elimination at (or within 1e-6 of) a singular configuration: matrix has rank of count kept; names (dependent)
    KeptRowsDependent,                 ///< elimination's kept equations names dependent at a regular configuration
    DependentCoordinatesSingular,      ///< partitioning: C_KD singular (value: reciprocal condition) with the independent names
    ReducedMassNotPositiveDefinite,    ///< partitioning: D M D^T, the independent names a singular choice (value: C_KD's rcond)
    PartitioningSingularStart,         ///< partitioning from a singular configuration: value (|R_rr| / |R_11|) at rank
    TooFarFromConstraints,             ///< the state too far from the constraints to project (value: scaled residual)
    NoJointCoordinates,                ///< no joint coordinates give the state; detail (why)
    NoInitialJointCoordinates,         ///< no joint coordinates give the initial state; detail (why)
    NonFiniteAccelerations,            ///< the accelerations are not finite on the bodies names
  };
  Kind kind = Kind::None;
  std::vector<std::string> names;  ///< equations, coordinates or bodies involved
  std::string matrix;              ///< KeptRowsSingular: the kept rows' matrix ("C_K", ...)
  std::string detail;              ///< the layer below's own words (an assembly's, an exception's)
  int rank = 0, count = 0;
  Scalar value = 0;
  /// Whether the problem stands at a singular start (projection's begin: "the initial
  /// configuration is singular: ..." before a branch problem).
  bool at_singular_start = false;

  bool empty() const { return kind == Kind::None; }
  explicit operator bool() const { return kind != Kind::None; }
  static Problem of(Kind kind) {
    Problem p;
    p.kind = kind;
    return p;
  }
};

/// "tree-mass-not-positive-definite", ...: the kind as a key (a diagnostic, a test's message).
const char* problemKindName(Problem::Kind kind);

/// The problem in one sentence (the words of `loopdyn simulate` and Python; "" for none).
std::string problemText(const Problem& problem);

/// The kind and fields in one line (a library user's log, a test's message); the front ends'
/// sentences are reports' problemText.
std::ostream& operator<<(std::ostream& os, const Problem& problem);

}  // namespace loopdyn
