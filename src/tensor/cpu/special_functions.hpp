#pragma once
// Scalar special functions, written for numerical stability over the whole real line.
#include <cmath>
#include <numbers>

namespace variate::cpu {

inline double log_gamma(double x) {
  int sign;
  return lgamma_r(x, &sign);  // lgamma_r: std::lgamma writes the global signgam (a data race)
}

/// Digamma: reflection for x < 0, recurrence up to x >= 12, then the asymptotic series
/// psi(x) ~ ln x - 1/(2x) - sum_k B_2k / (2k x^2k) (Abramowitz & Stegun 6.3.18).
inline double digamma(double x) {
  if (std::isnan(x) || x == -INFINITY) return NAN;
  if (x <= 0 && std::floor(x) == x) return NAN;  // poles
  double result = 0;
  if (x < 0) {
    result -= std::numbers::pi / std::tan(std::numbers::pi * x);
    x = 1 - x;
  }
  while (x < 12) {
    result -= 1 / x;
    x += 1;
  }
  const double inv = 1 / x, inv2 = inv * inv;
  result += std::log(x) - 0.5 * inv -
            inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))));
  return result;
}

/// Trigamma psi'(x): reflection, recurrence up to x >= 12, asymptotic series (A&S 6.4.12).
inline double trigamma(double x) {
  if (std::isnan(x) || x == -INFINITY) return NAN;
  if (x <= 0 && std::floor(x) == x) return NAN;
  if (x < 0) {
    const double s = std::sin(std::numbers::pi * x);
    return -trigamma(1 - x) + std::numbers::pi * std::numbers::pi / (s * s);
  }
  double result = 0;
  while (x < 12) {
    result += 1 / (x * x);
    x += 1;
  }
  const double inv = 1 / x, inv2 = inv * inv;
  result += inv + 0.5 * inv2 +
            inv * inv2 * (1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42 - inv2 * (1.0 / 30 - inv2 * 5.0 / 66))));
  return result;
}

}  // namespace variate::cpu
