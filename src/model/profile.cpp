#include "loopdyn/model/profile.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <Eigen/SparseLU>

#include "loopdyn/common/check.hpp"

namespace loopdyn {

namespace {

/// The slopes and moments at the knots of the not-a-knot cubic spline through (t_i, y_i), n >= 4:
/// the moments M_i = s''(t_i) solve the interior continuity equations
///   h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (d_i - d_{i-1}),  d_i = (y_{i+1} - y_i) / h_i,
/// and s''' is continuous at t_1 and t_{n-2} (de Boor, ch. IV); a sparse LU solves the n x n system.
void notAKnotSpline(const std::vector<Scalar>& t, const std::vector<Scalar>& y, std::vector<Scalar>& slopes,
                    std::vector<Scalar>& moments) {
  const int n = static_cast<int>(t.size());
  const auto h = [&](int i) { return t[static_cast<std::size_t>(i + 1)] - t[static_cast<std::size_t>(i)]; };
  const auto d = [&](int i) { return (y[static_cast<std::size_t>(i + 1)] - y[static_cast<std::size_t>(i)]) / h(i); };
  std::vector<Eigen::Triplet<Scalar>> entries;
  VecX rhs = VecX::Zero(n);
  entries.insert(entries.end(), {{0, 0, h(1)}, {0, 1, -(h(0) + h(1))}, {0, 2, h(0)}});
  for (int i = 1; i < n - 1; ++i) {
    entries.insert(entries.end(), {{i, i - 1, h(i - 1)}, {i, i, 2 * (h(i - 1) + h(i))}, {i, i + 1, h(i)}});
    rhs(i) = 6 * (d(i) - d(i - 1));
  }
  entries.insert(entries.end(),
                 {{n - 1, n - 3, h(n - 2)}, {n - 1, n - 2, -(h(n - 3) + h(n - 2))}, {n - 1, n - 1, h(n - 3)}});
  Eigen::SparseMatrix<Scalar> A(n, n);
  A.setFromTriplets(entries.begin(), entries.end());
  Eigen::SparseLU<Eigen::SparseMatrix<Scalar>> lu(A);
  LOOPDYN_CHECK(lu.info() == Eigen::Success, "trajectory profile: the spline equations are singular");
  const VecX M = lu.solve(rhs);
  moments.assign(M.data(), M.data() + n);
  slopes.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n - 1; ++i) slopes[static_cast<std::size_t>(i)] = d(i) - h(i) * (2 * M(i) + M(i + 1)) / 6;
  slopes.back() = d(n - 2) + h(n - 2) * (M(n - 2) + 2 * M(n - 1)) / 6;
}


}  // namespace

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

Profile Profile::trajectory(std::vector<Scalar> times, std::vector<Scalar> values, std::vector<Scalar> rates,
                            std::vector<Scalar> accelerations) {
  LOOPDYN_CHECK(times.size() == values.size(), "trajectory profile: ", times.size(), " times but ", values.size(),
                " values");
  LOOPDYN_CHECK(rates.empty() || rates.size() == times.size(), "trajectory profile: ", times.size(), " times but ",
                rates.size(), " rates");
  LOOPDYN_CHECK(accelerations.empty() || (accelerations.size() == times.size() && !rates.empty()), "trajectory profile: ",
                times.size(), " times and ", rates.size(), " rates but ", accelerations.size(),
                " accelerations (one a time, with the rates)");
  LOOPDYN_CHECK(times.size() >= 4, "trajectory profile needs at least 4 points, got ", times.size());
  for (std::size_t i = 1; i < times.size(); ++i)
    LOOPDYN_CHECK(times[i] > times[i - 1], "trajectory profile: times must increase strictly");
  Profile p;
  p.kind_ = Kind::Trajectory;
  if (rates.empty()) {
    notAKnotSpline(times, values, p.rates_, p.second_derivatives_);  // (the quintics are then its cubics)
  } else if (accelerations.empty()) {
    std::vector<Scalar> moments;  // (of the rates' spline: f''')
    notAKnotSpline(times, rates, p.second_derivatives_, moments);
    p.rates_ = std::move(rates);
  } else {
    p.rates_ = std::move(rates);
    p.second_derivatives_ = std::move(accelerations);
  }
  p.times_ = std::move(times);
  p.values_ = std::move(values);
  return p;
}

ProfileValue Profile::evaluateTrajectory(Scalar t) const {
  // the knots' interval (the end ones continue outside), s in [0, 1] across it
  const auto it = std::upper_bound(times_.begin() + 1, times_.end() - 1, t);
  const std::size_t i = static_cast<std::size_t>(it - times_.begin()) - 1;
  const Scalar h = times_[i + 1] - times_[i], s = (t - times_[i]) / h;
  const Scalar df = values_[i + 1] - values_[i];
  const Scalar r0 = rates_[i] * h, r1 = rates_[i + 1] * h;
  const Scalar c0 = second_derivatives_[i] * h * h, c1 = second_derivatives_[i + 1] * h * h;
  // the quintic p(s) = sum_k a_k s^k with p, p', p'' at s = 0 and s = 1 as given
  const Scalar a3 = 10 * df - 6 * r0 - 4 * r1 - 1.5 * c0 + 0.5 * c1;
  const Scalar a4 = -15 * df + 8 * r0 + 7 * r1 + 1.5 * c0 - c1;
  const Scalar a5 = 6 * df - 3 * (r0 + r1) - 0.5 * (c0 - c1);
  ProfileValue out;
  out.f = values_[i] + s * (r0 + s * (0.5 * c0 + s * (a3 + s * (a4 + s * a5))));
  out.df = (r0 + s * (c0 + s * (3 * a3 + s * (4 * a4 + s * 5 * a5)))) / h;
  out.ddf = (c0 + s * (6 * a3 + s * (12 * a4 + s * 20 * a5))) / (h * h);
  return out;
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
    case Kind::Trajectory:
      return evaluateTrajectory(t);
  }
  return out;
}

Scalar Profile::lowestValue() const {
  switch (kind_) {
    case Kind::Constant: return coefficients_[0];
    case Kind::Polynomial: return coefficients_.empty() ? 0 : coefficients_[0];
    case Kind::Sine: return coefficients_[0] - std::abs(coefficients_[1]);
    case Kind::Table:
    case Kind::Trajectory: return *std::min_element(values_.begin(), values_.end());
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
    case Kind::Trajectory:
      for (std::size_t i = 0; i < values_.size(); ++i)
        bound = std::max({bound, std::abs(values_[i]), std::abs(rates_[i]), std::abs(second_derivatives_[i])});
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
    case Kind::Trajectory: return "trajectory";
  }
  return "?";
}

}  // namespace loopdyn
