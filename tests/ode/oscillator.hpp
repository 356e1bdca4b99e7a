#pragma once
// The test problem of the integrator tests: y'' = -y as y = (y, y'), from (1, 0): y = cos t.

#include "loopdyn/common/types.hpp"
#include "loopdyn/ode/integrator.hpp"

namespace loopdyn::ode::test {

inline const Rhs kOscillator = [](Scalar, const Scalar* y, Scalar* ydot) {
  ydot[0] = y[1];
  ydot[1] = -y[0];
  return 0;
};

inline const VecX kOscillatorStart = (VecX(2) << 1, 0).finished();

}  // namespace loopdyn::ode::test
