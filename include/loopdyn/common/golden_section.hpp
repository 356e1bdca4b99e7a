#pragma once
/// Golden-section search for the minimum of a function of one variable on a bracket (Kiefer 1953):
/// each step keeps the part of the bracket that holds the smaller of two inner points, shrinking it
/// by 0.618 at one evaluation a step. Finds the minimum of a unimodal function; of another, a local one.

#include <algorithm>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

/// Where a search found its smallest value.
struct LineMinimum {
  Scalar t = 0;
  Scalar value = 0;
};

/// The minimum of f on [lo, hi] (60 steps at most), until `done(lo, hi)`; leaves the last bracket in
/// lo, hi and returns the better of its two inner points.
template <class F, class Done>
LineMinimum goldenSectionMinimum(const F& f, Scalar& lo, Scalar& hi, const Done& done) {
  constexpr Scalar g = 0.6180339887498949;  // (sqrt(5) - 1) / 2
  Scalar c = hi - g * (hi - lo), d = lo + g * (hi - lo), fc = f(c), fd = f(d);
  for (int it = 0; it < 60 && !done(lo, hi); ++it) {
    if (fc < fd) {
      hi = d, d = c, fd = fc, c = hi - g * (hi - lo), fc = f(c);
    } else {
      lo = c, c = d, fc = fd, d = lo + g * (hi - lo), fd = f(d);
    }
  }
  return {fc < fd ? c : d, std::min(fc, fd)};
}

}  // namespace loopdyn
