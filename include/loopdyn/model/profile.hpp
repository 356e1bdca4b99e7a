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
class Profile {
 public:
  enum class Kind { Constant, Polynomial, Sine, Table };

  static Profile constant(Scalar value);
  static Profile polynomial(std::vector<Scalar> coefficients);
  static Profile sine(Scalar offset, Scalar amplitude, Scalar frequency_hz, Scalar phase);
  /// Throws InvalidArgument unless times are strictly increasing, sizes match and N >= 2.
  static Profile table(std::vector<Scalar> times, std::vector<Scalar> values);

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
  Kind kind_ = Kind::Constant;
  std::vector<Scalar> coefficients_;  // polynomial; constant uses [0]; sine: offset, amp, omega, phase
  std::vector<Scalar> times_, values_, second_derivatives_;  // table (spline moments)
};

}  // namespace loopdyn
