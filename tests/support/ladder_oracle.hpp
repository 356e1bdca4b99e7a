#pragma once
// The exact motion of the N-loop four-bar ladder on its parallelogram branch (issue 14), shared by
// the singular-passage test and the double four-bar benchmark.
//
// Every crank has the same angle theta from the upward vertical and the couplers translate, so
// the ladder of N loops of unit rods (1 m, 1 kg, I = 1/12, g = 9.81) is a pendulum with
// J = (N + 1)/3 + N (cranks about their pivots, couplers carried at the crank tips) and
// J theta'' = g ((N + 1)/2 + N) sin theta, theta(0) = 0, theta'(0) = 1 rad/s (clockwise positive);
// the tip of the first crank is B0 = (sin theta, cos theta).

#include <cmath>
#include <vector>

namespace loopdyn::test {

/// theta and theta' of the exact motion at the sample times k * sample, k = 0 .. end / sample:
/// classical Runge-Kutta in long double with sample / 100 steps (for 0.01 s samples local error
/// below 1e-20, rounding below 1e-15 over 1e5 steps).
struct LadderOracle {
  std::vector<long double> theta, rate;

  LadderOracle(int loops, double end, double sample) {
    const long double N = loops, J = (N + 1) / 3 + N, k = 9.81L * ((N + 1) / 2 + N) / J;
    auto f = [&](long double th, long double w, long double& dth, long double& dw) {
      dth = w;
      dw = k * std::sin(th);
    };
    long double th = 0, w = 1;
    const int per_sample = 100;
    const long double h = static_cast<long double>(sample) / per_sample;
    const long samples = std::lround(end / sample);
    for (long s = 0; s <= samples; ++s) {
      theta.push_back(th);
      rate.push_back(w);
      for (int step = 0; step < per_sample; ++step) {
        long double a1, b1, a2, b2, a3, b3, a4, b4;
        f(th, w, a1, b1);
        f(th + h / 2 * a1, w + h / 2 * b1, a2, b2);
        f(th + h / 2 * a2, w + h / 2 * b2, a3, b3);
        f(th + h * a3, w + h * b3, a4, b4);
        th += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
        w += h / 6 * (b1 + 2 * b2 + 2 * b3 + b4);
      }
    }
  }

  /// B0 = (sin theta, cos theta) and its velocity at sample k.
  void tip(std::size_t k, double& x, double& y, double& vx, double& vy) const {
    const long double th = theta[k], w = rate[k];
    x = static_cast<double>(std::sin(th));
    y = static_cast<double>(std::cos(th));
    vx = static_cast<double>(std::cos(th) * w);
    vy = static_cast<double>(-std::sin(th) * w);
  }
};

}  // namespace loopdyn::test
