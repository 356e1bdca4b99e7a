#include "loopdyn/model/profile.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "loopdyn/common/check.hpp"

namespace loopdyn {

Profile Profile::constant(Scalar value) {
  Profile p;
  p.kind_ = Kind::Constant;
  p.coefficients_ = {value};
  return p;
}

Profile Profile::polynomial(std::vector<Scalar> coefficients) {
  LOOPDYN_CHECK(!coefficients.empty(), "polynomial profile needs at least one coefficient");
  Profile p;
  p.kind_ = Kind::Polynomial;
  p.coefficients_ = std::move(coefficients);
  return p;
}

Profile Profile::sine(Scalar offset, Scalar amplitude, Scalar frequency_hz, Scalar phase) {
  Profile p;
  p.kind_ = Kind::Sine;
  p.coefficients_ = {offset, amplitude, 2 * std::numbers::pi * frequency_hz, phase};
  return p;
}

Profile Profile::table(std::vector<Scalar> times, std::vector<Scalar> values) {
  LOOPDYN_CHECK(times.size() == values.size(), "table profile: ", times.size(), " times but ",
                values.size(), " values");
  LOOPDYN_CHECK(times.size() >= 2, "table profile needs at least 2 points");
  for (std::size_t i = 1; i < times.size(); ++i)
    LOOPDYN_CHECK(times[i] > times[i - 1], "table profile: times must increase strictly");
  Profile p;
  p.kind_ = Kind::Table;
  p.times_ = std::move(times);
  p.values_ = std::move(values);
  // clamped cubic spline (zero end slopes): tridiagonal system for the moments M_i = f''(t_i)
  const std::size_t n = p.times_.size();
  const std::vector<Scalar>& t = p.times_;
  const std::vector<Scalar>& y = p.values_;
  MatX A = MatX::Zero(n, n);
  VecX rhs = VecX::Zero(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0) {
      const Scalar h = t[1] - t[0];
      A(0, 0) = h / 3;
      A(0, 1) = h / 6;
      rhs(0) = (y[1] - y[0]) / h;  // slope 0 at the left end
    } else if (i == n - 1) {
      const Scalar h = t[n - 1] - t[n - 2];
      A(i, i - 1) = h / 6;
      A(i, i) = h / 3;
      rhs(i) = -(y[n - 1] - y[n - 2]) / h;  // slope 0 at the right end
    } else {
      const Scalar h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
      A(i, i - 1) = h0 / 6;
      A(i, i) = (h0 + h1) / 3;
      A(i, i + 1) = h1 / 6;
      rhs(i) = (y[i + 1] - y[i]) / h1 - (y[i] - y[i - 1]) / h0;
    }
  }
  const VecX M = A.partialPivLu().solve(rhs);
  p.second_derivatives_.assign(M.data(), M.data() + n);
  return p;
}

ProfileValue Profile::evaluate(Scalar t) const {
  ProfileValue out;
  switch (kind_) {
    case Kind::Constant:
      out.f = coefficients_[0];
      break;
    case Kind::Polynomial: {
      // Horner for f, f', f''
      for (std::size_t k = coefficients_.size(); k-- > 0;) {
        out.ddf = out.ddf * t + 2 * out.df;
        out.df = out.df * t + out.f;
        out.f = out.f * t + coefficients_[k];
      }
      break;
    }
    case Kind::Sine: {
      const Scalar offset = coefficients_[0], amp = coefficients_[1], w = coefficients_[2],
                   phase = coefficients_[3];
      const Scalar arg = w * t + phase;
      out.f = offset + amp * std::sin(arg);
      out.df = amp * w * std::cos(arg);
      out.ddf = -amp * w * w * std::sin(arg);
      break;
    }
    case Kind::Table: {
      // held at the end values outside the table; its ends belong to the spline, whose f'' there
      // is M_0 and M_n-1 (a run that starts at the first time sees the profile's curvature from
      // its first evaluation on: held there, the mobile robot's accelerations at t = 0 were zero
      // and 0.34 m/s^2 a nanosecond later)
      if (t < times_.front()) {
        out.f = values_.front();
        break;
      }
      if (t > times_.back()) {
        out.f = values_.back();
        break;
      }
      const auto it = std::upper_bound(times_.begin() + 1, times_.end() - 1, t);  // (the last interval holds its end)
      const std::size_t i = static_cast<std::size_t>(it - times_.begin()) - 1;
      const Scalar h = times_[i + 1] - times_[i];
      const Scalar a = (times_[i + 1] - t) / h, b = (t - times_[i]) / h;
      const Scalar M0 = second_derivatives_[i], M1 = second_derivatives_[i + 1];
      const Scalar y0 = values_[i], y1 = values_[i + 1];
      out.f = a * y0 + b * y1 + ((a * a * a - a) * M0 + (b * b * b - b) * M1) * h * h / 6;
      out.df = (y1 - y0) / h - (3 * a * a - 1) * h * M0 / 6 + (3 * b * b - 1) * h * M1 / 6;
      out.ddf = a * M0 + b * M1;
      break;
    }
  }
  return out;
}

Scalar Profile::lowestValue() const {
  switch (kind_) {
    case Kind::Constant: return coefficients_[0];
    case Kind::Polynomial: return coefficients_.empty() ? 0 : coefficients_[0];
    case Kind::Sine: return coefficients_[0] - std::abs(coefficients_[1]);
    case Kind::Table: return *std::min_element(values_.begin(), values_.end());
  }
  return 0;
}

Scalar Profile::magnitude() const {
  Scalar bound = 0;
  switch (kind_) {
    case Kind::Constant: return std::abs(coefficients_[0]);
    case Kind::Polynomial:
      // |c_k t^k| and its derivatives on [0, 1]: at most |c_k| k (k - 1) (or |c_k| for k < 2)
      for (std::size_t k = 0; k < coefficients_.size(); ++k)
        bound += std::abs(coefficients_[k]) * std::max<Scalar>(1, static_cast<Scalar>(k * k));
      return bound;
    case Kind::Sine: {
      const Scalar amp = std::abs(coefficients_[1]), w = std::abs(coefficients_[2]);
      return std::abs(coefficients_[0]) + amp * std::max({Scalar{1}, w, w * w});
    }
    case Kind::Table:
      // the spline's values, its moments (f''), and its slopes between the points
      for (std::size_t i = 0; i < values_.size(); ++i) {
        bound = std::max({bound, std::abs(values_[i]), std::abs(second_derivatives_[i])});
        if (i > 0) bound = std::max(bound, std::abs(values_[i] - values_[i - 1]) / (times_[i] - times_[i - 1]));
      }
      return bound;
  }
  return bound;
}

std::string Profile::kindName() const {
  switch (kind_) {
    case Kind::Constant: return "constant";
    case Kind::Polynomial: return "polynomial";
    case Kind::Sine: return "sine";
    case Kind::Table: return "table";
  }
  return "?";
}

}  // namespace loopdyn
