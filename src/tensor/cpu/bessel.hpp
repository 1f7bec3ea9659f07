#pragma once
// The modified Bessel functions of the first kind of orders 0 and 1, as log I0(x) and the ratio
// I1(x) / I0(x), which is all the von Mises family needs (its normalizer and that normalizer's
// derivative) and which stay finite where I0 itself overflows (x > 713).
//
// Below kSeriesEnd both come from their power series, I0(x) = sum_j q^j / (j!)^2 and
// I1(x) = (x / 2) sum_j q^j / (j! (j + 1)!) with q = x^2 / 4, whose terms are all positive (no
// cancellation). From kSeriesEnd on, from Hankel's asymptotic expansion
// I_nu(x) ~ e^x / sqrt(2 pi x) sum_j (-1)^j a_j(nu) / x^j (Abramowitz & Stegun 9.7.1): at x >= 20 its
// terms fall below 1e-17 of the sum long before they turn to grow (near j = 2x).
#include <cmath>
#include <limits>
#include <numbers>

namespace variate::cpu {

namespace bessel_detail {

inline constexpr double kSeriesEnd = 20;
inline constexpr double kTolerance = 1e-17;

// sum_j q^j / (j!)^2 and sum_j q^j / (j! (j + 1)!) for 0 <= x < kSeriesEnd.
inline void series(double x, double& s0, double& s1) {
  const double q = 0.25 * x * x;
  double term = 1;
  s0 = 1;
  s1 = 1;
  for (int j = 1; j < 200 && term > kTolerance * s0; ++j) {
    term *= q / (double(j) * double(j));
    s0 += term;
    s1 += term / (j + 1);
  }
}

// The sums of Hankel's expansion for orders 0 and 1 (without e^x / sqrt(2 pi x)), x >= kSeriesEnd:
// term_j / term_(j-1) = ((2j - 1)^2 - 4 nu^2) / (8 j x).
inline void asymptotic(double x, double& a0, double& a1) {
  double t0 = 1, t1 = 1;
  a0 = 1;
  a1 = 1;
  for (int j = 1; j < 60 && std::abs(t0) > kTolerance; ++j) {
    const double odd = 2.0 * j - 1, denominator = 8.0 * j * x;
    t0 *= odd * odd / denominator;
    t1 *= (odd * odd - 4) / denominator;
    a0 += t0;
    a1 += t1;
  }
}

}  // namespace bessel_detail

/// log I0(x); I0 is even, so log I0(-x) = log I0(x).
inline double log_bessel_i0(double x) {
  x = std::abs(x);
  if (std::isnan(x)) return x;
  if (x == INFINITY) return INFINITY;
  double s0 = 0, s1 = 0;
  if (x < bessel_detail::kSeriesEnd) {
    bessel_detail::series(x, s0, s1);
    return std::log(s0);
  }
  bessel_detail::asymptotic(x, s0, s1);
  return x - 0.5 * std::log(2 * std::numbers::pi * x) + std::log(s0);
}

/// I1(x) / I0(x), odd in x, in (-1, 1); the derivative of log I0.
inline double bessel_i1_over_i0(double x) {
  if (std::isnan(x)) return x;
  const double a = std::abs(x), sign = x < 0 ? -1.0 : 1.0;
  if (a == INFINITY) return sign;
  double s0 = 0, s1 = 0;
  if (a < bessel_detail::kSeriesEnd) {
    bessel_detail::series(a, s0, s1);
    return sign * 0.5 * a * s1 / s0;
  }
  bessel_detail::asymptotic(a, s0, s1);
  return sign * s1 / s0;
}

}  // namespace variate::cpu
