#pragma once
/// Time profiles f(t) with exact first and second derivatives, used by drivers and tabulated loads.

#include <string>
#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn {

/// Value and time derivatives of a profile at one instant.
struct ProfileValue {
  Scalar f = 0;
  Scalar df = 0;   ///< df/dt
  Scalar ddf = 0;  ///< d2f/dt2
};

/// A smooth function of time. Kinds:
/// - constant: f = c
/// - polynomial: f = sum_k c_k t^k
/// - sine: f = offset + amplitude * sin(omega t + phase), omega = 2 pi frequency
/// - table: clamped cubic spline through (t_i, f_i) with zero end slopes, so f is C2 inside
///   [t_0, t_N] and C1 everywhere; outside that range f holds its end value.
/// - trajectory: a measured or planned motion through (t_i, f_i), with its rates f'_i where they
///   are known: f, f' and f'' take the knots' values exactly and a quintic Hermite polynomial joins
///   each pair of knots (C2 everywhere; outside [t_0, t_N] the end pieces continue). From values
///   alone f' and f'' are the not-a-knot cubic spline's (de Boor, A Practical Guide to Splines,
///   ch. IV; errors O(h^3) and O(h^2), h the knots' spacing, exact for cubic motions); with rates,
///   f''_i is the slope of the not-a-knot spline through the rates (error O(h^3)); with rates and
///   accelerations f''_i given too, the quintics take them (exact at every knot). Interpolation, not
///   smoothing: at a trajectory's first and last few knots the end condition's error (and the
///   data's own, differentiated one-sided) decays inwards by 2 - sqrt(3) a knot (measured: the
///   slider-crank's motor torque from simulate's 1 ms samples, 1e-10 relative inside, 3.4e-7 at
///   the last knot); measured (noisy) data should be smoothed first.
class Profile {
 public:
  enum class Kind { Constant, Polynomial, Sine, Table, Trajectory };

  static Profile constant(Scalar value);
  static Profile polynomial(std::vector<Scalar> coefficients);
  static Profile sine(Scalar offset, Scalar amplitude, Scalar frequency_hz, Scalar phase);
  /// Throws InvalidArgument unless times are strictly increasing, sizes match and N >= 2.
  static Profile table(std::vector<Scalar> times, std::vector<Scalar> values);
  /// Throws InvalidArgument unless times are strictly increasing, sizes match (rates and
  /// accelerations: empty, or one a time; accelerations only with rates) and N >= 4 (the
  /// not-a-knot spline's fewest).
  static Profile trajectory(std::vector<Scalar> times, std::vector<Scalar> values, std::vector<Scalar> rates = {},
                            std::vector<Scalar> accelerations = {});

  Kind kind() const { return kind_; }
  ProfileValue evaluate(Scalar t) const;
  /// A bound on |f|, |f'| and |f''| (polynomials: on 0 <= t <= 1; they grow beyond it), so
  /// that a model can refuse profiles whose values or rates overflow the equations.
  Scalar magnitude() const;
  /// The smallest value f takes: exact for constants and sines, the smallest knot for tables (the
  /// spline between knots may dip a little lower), f(0) for polynomials (unbounded for t > 0).
  /// A distance driver must stay positive: at zero length its direction is undefined.
  Scalar lowestValue() const;
  /// One-word description of the kind, as used in model files.
  std::string kindName() const;

 private:
  ProfileValue evaluateTrajectory(Scalar t) const;

  Kind kind_ = Kind::Constant;
  std::vector<Scalar> coefficients_;  // polynomial; constant uses [0]; sine: offset, amp, omega, phase
  std::vector<Scalar> times_, values_, second_derivatives_;  // table (spline moments), trajectory f''
  std::vector<Scalar> rates_;                                // trajectory: f' at the knots
};

}  // namespace loopdyn
