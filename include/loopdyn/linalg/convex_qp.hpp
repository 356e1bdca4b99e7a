#pragma once
/// A strictly convex quadratic program with linear inequality constraints by the dual active-set
/// method of Goldfarb and Idnani (Math. Programming 27, 1983, pp. 1-33): it starts at the
/// unconstrained minimum, adds the most violated constraint, and moves primal and dual variables
/// together -- dropping an active constraint whose multiplier would turn negative -- until that
/// constraint holds; every iterate is optimal for the constraints active, so the method either ends
/// at the solution or meets a violated constraint no step can satisfy: the constraints admit no
/// point. Dense and small: the projections are formed anew each step (O(n^3) a step), meant for a
/// few variables (a redundant actuation's preloads).

#include "loopdyn/common/types.hpp"

namespace loopdyn {

struct QpSolution {
  VecX x;
  bool feasible = false;  ///< false: no x meets A^T x >= b (x is the last iterate)
  int active = 0;         ///< constraints active at the solution
  /// The constraints' multipliers (size m, >= 0, zero where inactive): G x + g = A u.
  VecX multipliers;
};

/// min 1/2 x^T G x + g^T x subject to A^T x >= b: G (n x n) symmetric positive definite, A n x m
/// (one constraint a column), b size m. A constraint counts as met within 1e-12 of its scale
/// (|b_j| + |a_j| |x|).
QpSolution solveConvexQp(const MatX& G, const VecX& g, const MatX& A, const VecX& b);

}  // namespace loopdyn
