#pragma once
// Scalar special functions, written for numerical stability over the whole real line.
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

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

// ---- Incomplete gamma and beta functions ----
//
// Both are a power term (x^a e^-x / Gamma(a + 1), x^a (1 - x)^b / (a B(a, b))) times a series or a
// continued fraction. The power terms are evaluated in Loader's saddle-point form (C. Loader, "Fast
// and accurate computation of binomial probabilities", 2000): the exponent is a sum of small,
// accurately computed terms rather than a difference of terms of size a log x, which would lose
// about log2(a) bits for large parameters. Where a result is 1 minus a quantity close to 1, it is
// computed from a formula for the small difference instead.

/// Bound on the terms of the series and continued fractions below; the counts they need grow like
/// sqrt(a) (about 1000 at a = 1e4), so this bound is reached only for parameters beyond ~1e8.
inline constexpr int kSpecialMaxTerms = 100000;
/// Above this argument stirling_remainder uses the asymptotic series.
inline constexpr double kStirlingSeriesFrom = 15;

/// log Gamma(1 + a): 1 + a is rounded, and its rounding error r (exact by Knuth's TwoSum) is added
/// back to first order, which matters where the result is small (a near 0).
inline double log_gamma1p(double a) {
  const double s = 1 + a, t = s - a;
  const double r = (a - (s - t)) + (1 - t);
  return log_gamma(s) + digamma(s) * r;
}

/// The remainder of Stirling's series, log Gamma(z + 1) - (z + 1/2) log z + z - log sqrt(2 pi)
/// (Loader's stirlerr). Above 15 its asymptotic series (DLMF 5.11.1), whose first omitted term is
/// below 3e-16 there; below, the definition.
inline double stirling_remainder(double z) {
  if (z > kStirlingSeriesFrom) {
    const double inv = 1 / z, inv2 = inv * inv;
    return inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 * (1.0 / 1680 - inv2 / 1188))));
  }
  return log_gamma1p(z) - (z + 0.5) * std::log(z) + z - 0.5 * std::log(2 * std::numbers::pi);
}

/// x log(x / m) + m - x >= 0 (Loader's bd0) with a small relative error. Near x = m it is the series
/// (x - m) v + 2 x sum_{j>=1} v^(2j+1) / (2j + 1), v = (x - m) / (x + m), which avoids the
/// cancellation of the closed form; for |v| >= 1/2 the closed form's terms cancel by at most a
/// factor of about 4.
inline double binomial_deviance(double x, double m) {
  const double d = x - m, v = d / (x + m);
  if (!(std::abs(v) < 0.5)) {
    // log(x / m) loses the ratio when it leaves the normal range; the difference of logs does not.
    const double ratio = x / m;
    return x * (std::isnormal(ratio) ? std::log(ratio) : std::log(x) - std::log(m)) - d;
  }
  const double v2 = v * v;
  double sum = d * v, term = 2 * x * v;
  for (int j = 1; j < kSpecialMaxTerms; ++j) {  // each term is below a quarter of the previous one
    term *= v2;
    const double next = sum + term / (2 * j + 1);
    if (next == sum) break;
    sum = next;
  }
  return sum;
}

/// lgamma(a + d) - lgamma(a) for 0 < d < 1, without the cancellation of the difference: shifted up
/// with Gamma(a + 1) = a Gamma(a) until Stirling's series applies, where it is
/// (a - 1/2) log1p(d / a) + d log(a + d) - d + stirling_remainder(a + d) - stirling_remainder(a).
inline double log_gamma_ratio(double a, double d) {
  double shift = 0;
  for (; a <= kStirlingSeriesFrom; a += 1) shift -= std::log1p(d / a);
  return shift + (a - 0.5) * std::log1p(d / a) + d * std::log(a + d) - d + stirling_remainder(a + d) -
         stirling_remainder(a);
}

/// b0 + a1 / (b1 + a2 / (b2 + ...)) by the modified Lentz method (Thompson & Barnett 1986; Press et
/// al., Numerical Recipes, 3rd ed., §5.2), where terms(j) returns the pair (a_j, b_j).
template <class Terms>
double continued_fraction(double b0, Terms terms) {
  constexpr double tiny = 1e-300;  // stands in for a vanishing partial denominator
  double f = b0 == 0 ? tiny : b0, c = f, d = 0;
  for (int j = 1; j < kSpecialMaxTerms; ++j) {
    const auto [aj, bj] = terms(j);
    d = bj + aj * d;
    if (std::abs(d) < tiny) d = tiny;
    c = bj + aj / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = c * d;
    f *= delta;
    if (std::abs(delta - 1) < std::numeric_limits<double>::epsilon()) break;
  }
  return f;
}

/// x^a e^-x / Gamma(a + 1) = exp(-stirling_remainder(a) - bd0(a, x)) / sqrt(2 pi a).
inline double gamma_power_term(double a, double x) {
  return std::exp(-stirling_remainder(a) - binomial_deviance(a, x)) / std::sqrt(2 * std::numbers::pi * a);
}

/// P(a, x) by its series x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n)) (DLMF §8.7;
/// Press et al. §6.2): positive terms, used for x < a + 1 where they decrease quickly.
inline double igamma_p_series(double a, double x) {
  double sum = 1, term = 1;
  for (int n = 1; n < kSpecialMaxTerms; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term < sum * std::numeric_limits<double>::epsilon()) break;
  }
  return gamma_power_term(a, x) * sum;
}

/// Q(a, x) by Legendre's continued fraction (DLMF §8.9; Press et al. §6.2), for x >= a + 1:
/// Gamma(a, x) = x^a e^-x / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))).
inline double igamma_q_continued_fraction(double a, double x) {
  const double g = continued_fraction(x + 1 - a, [a, x](int j) { return std::pair(-j * (j - a), x + 2 * j + 1 - a); });
  return a * gamma_power_term(a, x) / g;  // x^a e^-x / Gamma(a) = a x^a e^-x / Gamma(a + 1)
}

/// Q(a, x) for a < 1 and x < a + 1, where P is close to 1 when a is small, so 1 - P would cancel.
/// From gamma(a, x) = x^a sum_k (-x)^k / (k! (a + k)) (DLMF §8.7), with u = a log x - lgamma(1 + a):
///   Q = -expm1(u) - e^u a sum_{k>=1} (-x)^k / (k! (a + k)),
/// whose two terms (each about a times a number of order 1) cancel by less than a factor of 30 for
/// x < 2, where Q is about a E1(x).
inline double igamma_q_small_a(double a, double x) {
  const double u = a * std::log(x) - log_gamma1p(a);
  double sum = 0, term = 1;
  for (int k = 1; k < kSpecialMaxTerms; ++k) {
    term *= -x / k;
    const double next = sum + term / (a + k);
    if (next == sum) break;
    sum = next;
  }
  return -std::expm1(u) - std::exp(u) * a * sum;
}

/// The regularized lower incomplete gamma function P(a, x) = gamma(a, x) / Gamma(a) (DLMF 8.2.4),
/// the Gamma(a, 1) cdf. NaN for a <= 0 or a NaN argument; 0 for x <= 0 and 1 for x = inf; for
/// a = inf its limit 0 (the law's mass moves to infinity), NaN if x = inf too.
inline double igamma_p(double a, double x) {
  if (!(a > 0) || std::isnan(x)) return NAN;
  if (x <= 0) return 0;
  if (a == INFINITY) return x == INFINITY ? NAN : 0;
  if (x == INFINITY) return 1;
  return x < a + 1 ? igamma_p_series(a, x) : 1 - igamma_q_continued_fraction(a, x);
}

/// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), accurate where it is
/// small (x large) and where P is close to 1 (a small). Special values are igamma_p's complements.
inline double igamma_q(double a, double x) {
  if (!(a > 0) || std::isnan(x)) return NAN;
  if (x <= 0) return 1;
  if (a == INFINITY) return x == INFINITY ? NAN : 1;
  if (x == INFINITY) return 0;
  if (x >= a + 1) return igamma_q_continued_fraction(a, x);
  return a < 1 ? igamma_q_small_a(a, x) : 1 - igamma_p_series(a, x);
}

/// d log x / d a along P(a, x) = u held fixed: the implicit reparameterization gradient of a draw
/// x ~ Gamma(a, 1) (Figurnov, Mohamed & Mnih, "Implicit reparameterization gradients", NeurIPS 2018),
/// dx/da = -(dP(a, x)/da) / (dP(a, x)/dx), divided by x. It is a function of log x so that a draw
/// below the smallest double (small a) keeps its gradient; it is positive (the law grows with a).
/// Both forms below are differentiated term by term, with a relative error of a few hundred
/// epsilons at most (the cancellation in log x - psi(a + n + 1) near x = a for large a):
///  - for x < a + 1, the series P = x^a e^-x sum_n x^n / Gamma(a + n + 1) (DLMF 8.7.1) gives
///      d log x / d a = sum_n c_n (psi(a + n + 1) - log x),  c_n = x^n / (a (a + 1) ... (a + n)),
///    whose terms decrease from the first (x < a + n);
///  - above, Q = x^a e^-x / (Gamma(a) g) with g Legendre's continued fraction (as in
///    igamma_q_continued_fraction) gives d log x / d a = (log x - psi(a) - g_a / g) / g, with g and
///    g_a = dg/da from the fraction's three-term recurrence and its derivative (Q / p = x / g, so no
///    power term is needed).
/// NaN for a <= 0, a = inf or a NaN argument; +inf at x = 0.
inline double gamma_log_draw_grad(double a, double log_x) {
  if (!(a > 0) || a == INFINITY || std::isnan(log_x) || log_x == INFINITY) return NAN;
  if (log_x == -INFINITY) return INFINITY;
  const double x = std::exp(log_x);
  constexpr double eps = std::numeric_limits<double>::epsilon();
  if (x < a + 1) {
    double c = 1 / a, psi = digamma(a + 1);
    double total = c, sum = c * (psi - log_x);
    for (int n = 1; n < kSpecialMaxTerms; ++n) {
      psi += 1 / (a + n);  // psi(a + n + 1) = psi(a + n) + 1 / (a + n)
      c *= x / (a + n);
      const double term = c * (psi - log_x);
      sum += term;
      total += c;
      if (c < eps * total && std::abs(term) < eps * std::abs(sum)) break;
    }
    return sum;
  }
  // A_j / B_j -> g with A_j = b_j A_{j-1} + a_j A_{j-2} (and B_j alike), b_0 = x + 1 - a,
  // a_j = j (a - j), b_j = x + 2j + 1 - a; the primed values are their derivatives in a
  // (b_j' = -1, a_j' = j). All eight are rescaled together, which leaves A/B and its derivative.
  double a_prev = 1, a_cur = x + 1 - a, b_prev = 0, b_cur = 1;
  double da_prev = 0, da_cur = -1, db_prev = 0, db_cur = 0;
  double g = a_cur, dg = -1;
  const double log_x_minus_psi = log_x - digamma(a);
  for (int j = 1; j < kSpecialMaxTerms; ++j) {
    const double aj = j * (a - j), bj = x + 2 * j + 1 - a;
    const double a_next = bj * a_cur + aj * a_prev, b_next = bj * b_cur + aj * b_prev;
    const double da_next = -a_cur + bj * da_cur + j * a_prev + aj * da_prev;
    const double db_next = -b_cur + bj * db_cur + j * b_prev + aj * db_prev;
    a_prev = a_cur, a_cur = a_next, b_prev = b_cur, b_cur = b_next;
    da_prev = da_cur, da_cur = da_next, db_prev = db_cur, db_cur = db_next;
    if (std::abs(b_cur) > 1e100) {
      for (double* v : {&a_prev, &a_cur, &b_prev, &b_cur, &da_prev, &da_cur, &db_prev, &db_cur}) *v *= 1e-100;
    }
    if (b_cur == 0) continue;
    const double g_next = a_cur / b_cur, dg_next = (da_cur - g_next * db_cur) / b_cur;
    const bool done =
        std::abs(g_next - g) <= eps * std::abs(g_next) &&
        std::abs(dg_next / g_next - dg / g) <= eps * (std::abs(dg_next / g_next) + std::abs(log_x_minus_psi));
    g = g_next, dg = dg_next;
    if (done) break;
  }
  return (log_x_minus_psi - dg / g) / g;
}

/// x^a y^b / (a B(a, b)) for x + y = 1, given nx = n x and ny = n y with n = a + b: Loader's form
/// of the binomial probability C(n, a) x^a y^b (extended to real a, b) times b / n,
///   sqrt(b / (2 pi a n)) exp(s(n) - s(a) - s(b) - bd0(a, nx) - bd0(b, ny)).
inline double beta_power_term(double a, double b, double nx, double ny) {
  const double n = a + b;
  const double e = stirling_remainder(n) - stirling_remainder(a) - stirling_remainder(b) - binomial_deviance(a, nx) -
                   binomial_deviance(b, ny);
  return std::sqrt(b / (2 * std::numbers::pi * a * n)) * std::exp(e);
}

/// I_x(a, b) = power_term / (1 + d1 / (1 + d2 / (1 + ...))) for x + y = 1, with
/// d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)), d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m))
/// (DLMF 8.17.22; Press et al. §6.4), which converges quickly for x < (a + 1) / (a + b + 2).
/// For large a and x near 1 the odd d are close to -1 and the even ones close to 0, so every
/// 1 + d_{2m+1} cancels. The fraction is therefore evaluated as its odd part, the contraction to its
/// odd approximants (Jones & Thron, Continued Fractions: Analytic Theory and Applications, 1980),
///   (1 + d1) - d1 d2 / (1 + d2 + d3 - d3 d4 / (1 + d4 + d5 - ...)),
/// with each 1 + d_{2m+1} = N / ((a + 2m)(a + 2m + 1)) computed from whichever of the two forms of
/// its numerator has the smaller terms:
///   N = (a + 2m)(a + 2m + 1) - (a + m)(a + b + m) x = a (2m + 1 - b) + m (3m + 2 - b) + (a + m)(a + b + m) y.
inline double betainc_continued_fraction(double a, double b, double x, double y, double power_term) {
  auto odd = [a, b, x](int m) { return -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)); };
  auto even = [a, b, x](int m) { return m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)); };
  auto one_plus_odd = [a, b, x, y](int m) {
    const double denominator = (a + 2 * m) * (a + 2 * m + 1), product = (a + m) * (a + b + m);
    const double s = a * (2 * m + 1 - b), t = m * (3 * m + 2 - b);
    const bool in_y = std::abs(s) + std::abs(t) + product * y < denominator + product * x;
    return (in_y ? s + t + product * y : denominator - product * x) / denominator;
  };
  const double g = continued_fraction(
      one_plus_odd(0), [&](int k) { return std::pair(-odd(k - 1) * even(k), even(k) + one_plus_odd(k)); });
  return power_term / g;
}

/// 1 - I_y(b, a) for b < 1 and y < (b + 1) / (a + b + 2), where I_y(b, a) can be close to 1. From
/// B_y(b, a) = y^b / b F(b, 1 - a; b + 1; y) (DLMF §8.17(ii)), with u = b log y - log(b B(a, b)):
///   1 - I_y(b, a) = -expm1(u) - e^u b sum_{k>=1} (1 - a)_k y^k / (k! (b + k)).
/// The series' terms alternate for a > 1, but a y < 2 here, so they cancel by less than e^2; the two
/// terms of the sum cancel as in igamma_q_small_a.
inline double betainc_small_b_complement(double a, double b, double y) {
  const double u = b * std::log(y) - (log_gamma1p(b) - log_gamma_ratio(a, b));
  double sum = 0, term = 1;
  for (int k = 1; k < kSpecialMaxTerms; ++k) {
    term *= (k - a) * y / k;
    const double next = sum + term / (b + k);
    if (next == sum) break;  // also ends the finite sum of an integer a, whose terms become 0
    sum = next;
  }
  return -std::expm1(u) - std::exp(u) * b * sum;
}

/// The regularized incomplete beta function I_x(a, b) = B_x(a, b) / B(a, b) (DLMF 8.17.2): the
/// continued fraction where it converges quickly, and through I_x(a, b) = 1 - I_{1-x}(b, a)
/// (DLMF 8.17.4) above x = (a + 1) / (a + b + 2). NaN for a or b <= 0 or a NaN argument; 0 for
/// x <= 0 and 1 for x >= 1; inside, the limits 0 for a = inf and 1 for b = inf (the law's mass
/// moves to 1 or to 0), NaN if both are infinite.
inline double betainc(double a, double b, double x) {
  if (!(a > 0 && b > 0) || std::isnan(x)) return NAN;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (a == INFINITY || b == INFINITY) return a == b ? NAN : a == INFINITY ? 0 : 1;
  // 1 - x = y + y_low exactly: 1 - x rounds only for x < 1/2, where y >= 1/2 makes 1 - y exact, and
  // so is its difference with x. The power term then sees x + y = 1, which matters for large b.
  const double y = 1 - x, y_low = (1 - y) - x;
  const double n = a + b, nx = n * x, ny = n * y + n * y_low;
  if (x <= (a + 1) / (n + 2)) return betainc_continued_fraction(a, b, x, y, beta_power_term(a, b, nx, ny));
  if (b < 1) return betainc_small_b_complement(a, b, y);
  // For b >= 1, I_y(b, a) <= 1 - e^-2 here, so the difference loses at most 3 bits.
  return 1 - betainc_continued_fraction(b, a, y, x, beta_power_term(b, a, ny, nx));
}

}  // namespace variate::cpu
