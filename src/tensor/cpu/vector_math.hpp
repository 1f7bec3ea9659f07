#pragma once
// exp, expm1, log, log1p, sigmoid, softplus and tanh in double and in float, written without branches so that
// the compiler vectorizes loops over them (glibc's scalar versions cost ~20 ns each and dominate
// element-wise log densities). Accuracy is within a few ulp of the correctly rounded result over
// the whole range, with IEEE behaviour at 0, +-inf and NaN (checked against the C library in
// tests/tensor/vector_math_test.cpp).
#include <bit>
#include <cstdint>
#include <limits>

namespace variate::cpu {

namespace vm {
inline constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 split so n * kLn2Hi is exact
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;
inline constexpr double kLog2e = 1.44269504088896338700;
inline constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to integer
inline constexpr double kSqrt2 = 1.41421356237309504880;

inline double select(bool c, double a, double b) { return c ? a : b; }

inline constexpr float kLn2HiF = 0.693359375f, kLn2LoF = -2.12194440e-4f, kLog2eF = 1.44269504f;
inline constexpr float kRoundMagicF = 12582912.0f;  // 1.5 * 2^23

/// Cody-Waite reduction x = n ln2 + r with |r| <= ln2/2 (x already clamped so that n fits).
template <class F>
struct Reduced {
  F n, r;
};
inline Reduced<double> reduce_ln2(double x) {
  const double n = (x * kLog2e + kRoundMagic) - kRoundMagic;
  return {n, (x - n * kLn2Hi) - n * kLn2Lo};
}
inline Reduced<float> reduce_ln2(float x) {
  const float n = (x * kLog2eF + kRoundMagicF) - kRoundMagicF;
  return {n, (x - n * kLn2HiF) - n * kLn2LoF};
}

/// 2^n as two factors 2^(n/2) and 2^(n - n/2), each a normal number, so that scaling by one and
/// then the other reaches the subnormal range and overflows to inf correctly.
template <class F>
struct PowerOfTwo {
  F first, second;
};
/// The integer n (|n| < 2^51) as an int64 without a conversion instruction, which AVX2 lacks for
/// doubles (a loop with one does not vectorize there): n + 1.5 * 2^52 holds n in its low bits. Any
/// other n (NaN) gives some integer, not undefined behaviour.
inline std::int64_t integer_bits(double n) {
  return std::bit_cast<std::int64_t>(n + kRoundMagic) - std::bit_cast<std::int64_t>(kRoundMagic);
}
inline PowerOfTwo<double> pow2_in_halves(double n) {
  const double h1 = (n * 0.5 + kRoundMagic) - kRoundMagic, h2 = n - h1;  // any split with h1 + h2 = n
  return {std::bit_cast<double>(static_cast<std::uint64_t>(integer_bits(h1) + 1023) << 52),
          std::bit_cast<double>(static_cast<std::uint64_t>(integer_bits(h2) + 1023) << 52)};
}
inline std::int32_t integer_bits(float n) {
  return std::bit_cast<std::int32_t>(n + kRoundMagicF) - std::bit_cast<std::int32_t>(kRoundMagicF);
}
inline PowerOfTwo<float> pow2_in_halves(float n) {
  const float h1 = (n * 0.5f + kRoundMagicF) - kRoundMagicF, h2 = n - h1;
  return {std::bit_cast<float>(static_cast<std::uint32_t>(integer_bits(h1) + 127) << 23),
          std::bit_cast<float>(static_cast<std::uint32_t>(integer_bits(h2) + 127) << 23)};
}
}  // namespace vm

/// e^x. Cody-Waite reduction x = n ln2 + r with |r| <= ln2/2, Taylor series of e^r to degree 13
/// (truncation below 1e-17 relative), then scaling by 2^n in two steps so that results in the
/// subnormal range and overflow to +inf come out right.
inline double vexp(double x) {
  using namespace vm;
  // Clamped into [-746, 710], where the scaling below is exact or rounds once. NaN passes the clamp
  // and makes the result NaN, so no select is needed at the end.
  const double xc = x < -746.0 ? -746.0 : (x > 710.0 ? 710.0 : x);
  const auto [n, r] = reduce_ln2(xc);
  // Estrin's scheme: four levels of independent multiply-adds instead of Horner's chain of 13, so
  // that one evaluation's latency is short where few run at once (the fused GLM's row terms).
  const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  const double a0 = 1.0 + r, a1 = 0.5 + r * (1.0 / 6.0), a2 = 1.0 / 24.0 + r * (1.0 / 120.0);
  const double a3 = 1.0 / 720.0 + r * (1.0 / 5040.0), a4 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
  const double a5 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0), a6 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
  const double b0 = a0 + r2 * a1, b1 = a2 + r2 * a3, b2 = a4 + r2 * a5;
  const double p = (b0 + r4 * b1) + r8 * (b2 + r4 * a6);
  const auto [s1, s2] = pow2_in_halves(n);
  return p * s1 * s2;
}

/// e^x - 1, accurate for small x. With vexp's reduction x = n ln2 + r, e^x - 1 = 2^n (e^r - 1) +
/// (2^n - 1): e^r - 1 comes from its Taylor series to degree 13 without forming 1 + ..., and for
/// |n| <= 56 the two terms never cancel by more than a factor of about 3 (e^r - 1 is in
/// [-0.29, 0.42]), so a few ulp survive; beyond that the -1 is below rounding and e^x is scaled as
/// in vexp, in two steps.
inline double vexpm1(double x) {
  using namespace vm;
  // Below -40, e^x < 2^-57 and the result rounds to -1.
  const double xc = x > -40.0 ? (x < 710.0 ? x : 710.0) : (x == x ? -40.0 : 0.0);
  const auto [n, r] = reduce_ln2(xc);
  // e^r - 1 = r + r^2 q with q = sum r^k / (k + 2)! for k = 0..11 (Estrin's scheme as in vexp):
  // r is exact, so only the smaller correction r^2 q carries rounding error.
  const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  const double a0 = 0.5 + r * (1.0 / 6.0), a1 = 1.0 / 24.0 + r * (1.0 / 120.0);
  const double a2 = 1.0 / 720.0 + r * (1.0 / 5040.0), a3 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
  const double a4 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0), a5 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
  const double b0 = a0 + r2 * a1, b1 = a2 + r2 * a3, b2 = a4 + r2 * a5;
  const double em1_r = r + r2 * ((b0 + r4 * b1) + r8 * b2);
  const auto [s1, s2] = pow2_in_halves(n);
  const double two_n = s1 * s2;  // infinite only for n = 1024, where the other branch is taken
  const double moderate = two_n * em1_r + (two_n - 1.0);
  const double large = ((em1_r + 1.0) * s1) * s2 - 1.0;
  // x itself for NaN and +-0 (r + r^2 q turns -0 into +0).
  return (x == x) & (x != 0.0) ? (n <= 56.0 ? moderate : large) : x;
}

/// ln x for x >= DBL_MIN (no subnormal inputs), or 0, inf, NaN and negatives. x = 2^e m with m in
/// [sqrt(2)/2, sqrt(2)); ln m = 2 atanh(f), f = (m-1)/(m+1), |f| <= 0.172, by its odd series to f^21.
inline double vlog_normal(double x) {
  using namespace vm;
  const auto bits = std::bit_cast<std::uint64_t>(x);
  // The exponent field k as a double without an int64 conversion (see integer_bits): 2^52 + k is
  // k's bits under 2^52's exponent.
  double e = std::bit_cast<double>(((bits >> 52) & 0x7ff) | 0x4330000000000000ULL) - (4503599627370496.0 + 1023.0);
  double m = std::bit_cast<double>((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
  const bool big = m > kSqrt2;
  m *= big ? 0.5 : 1.0;  // constants selected, not results: see vexp
  e += big ? 1.0 : 0.0;
  const double f = (m - 1.0) / (m + 1.0), s = f * f;
  double p = 1.0 / 21;
  p = p * s + 1.0 / 19;
  p = p * s + 1.0 / 17;
  p = p * s + 1.0 / 15;
  p = p * s + 1.0 / 13;
  p = p * s + 1.0 / 11;
  p = p * s + 1.0 / 9;
  p = p * s + 1.0 / 7;
  p = p * s + 1.0 / 5;
  p = p * s + 1.0 / 3;
  const double log_m = 2.0 * f + 2.0 * f * s * p;
  double result = e * kLn2Hi + (e * kLn2Lo + log_m);
  constexpr double inf = std::numeric_limits<double>::infinity();
  result = x == inf ? inf : result;
  result = x == 0.0 ? -inf : result;
  return (x < 0.0) | (x != x) ? std::numeric_limits<double>::quiet_NaN() : result;
}

/// e^x in single precision, as vexp: the reduction with ln 2 split for floats, Taylor series to
/// degree 7 (truncation below 1e-8 relative on |r| <= ln2/2), two-step scaling.
inline float vexp(float x) {
  using namespace vm;
  const float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);  // NaN stays NaN, as in vexp(double)
  const auto [n, r] = reduce_ln2(xc);
  const float r2 = r * r;  // Estrin's scheme, as in vexp(double)
  const float p = ((1.0f + r) + r2 * (0.5f + r * (1.0f / 6))) +
                  (r2 * r2) * ((1.0f / 24 + r * (1.0f / 120)) + r2 * (1.0f / 720 + r * (1.0f / 5040)));
  const auto [s1, s2] = pow2_in_halves(n);
  return p * s1 * s2;
}

/// e^x - 1 in single precision, as vexpm1(double), the Taylor series to degree 8.
inline float vexpm1(float x) {
  using namespace vm;
  // Below -18, e^x < 2^-25 and the result rounds to -1.
  const float xc = x > -18.0f ? (x < 89.0f ? x : 89.0f) : (x == x ? -18.0f : 0.0f);
  const auto [n, r] = reduce_ln2(xc);
  const float r2 = r * r;  // e^r - 1 = r + r^2 q, as in vexpm1(double)
  const float em1_r = r + r2 * (((0.5f + r * (1.0f / 6)) + r2 * (1.0f / 24 + r * (1.0f / 120))) +
                                (r2 * r2) * ((1.0f / 720 + r * (1.0f / 5040)) + r2 * (1.0f / 40320)));
  const auto [s1, s2] = pow2_in_halves(n);
  const float two_n = s1 * s2;
  const float moderate = two_n * em1_r + (two_n - 1.0f);
  const float large = ((em1_r + 1.0f) * s1) * s2 - 1.0f;
  return (x == x) & (x != 0.0f) ? (n <= 24.0f ? moderate : large) : x;
}

/// ln x in single precision for x >= FLT_MIN, or 0, inf, NaN and negatives, as vlog_normal: the
/// atanh series to f^11 (truncation below 1e-9 relative).
inline float vlog_normal(float x) {
  using namespace vm;
  constexpr float sqrt2 = 1.41421356f;
  const auto bits = std::bit_cast<std::uint32_t>(x);
  float e = float(static_cast<std::int32_t>((bits >> 23) & 0xff) - 127);
  float m = std::bit_cast<float>((bits & 0x007fffffU) | 0x3f800000U);
  const bool big = m > sqrt2;
  m = big ? 0.5f * m : m;
  e = big ? e + 1.0f : e;
  const float f = (m - 1.0f) / (m + 1.0f), s = f * f;
  float p = 1.0f / 11;
  p = p * s + 1.0f / 9;
  p = p * s + 1.0f / 7;
  p = p * s + 1.0f / 5;
  p = p * s + 1.0f / 3;
  const float log_m = 2.0f * f + 2.0f * f * s * p;
  float result = e * kLn2HiF + (e * kLn2LoF + log_m);
  constexpr float inf = std::numeric_limits<float>::infinity();
  result = x == inf ? inf : result;
  result = x == 0.0f ? -inf : result;
  return (x < 0.0f) | (x != x) ? std::numeric_limits<float>::quiet_NaN() : result;
}

// The functions below are written once for F = double and F = float: each precision computes in
// its own width (single precision has twice the lanes).

/// ln x for every x >= 0: subnormal inputs are scaled by 2^54 (2^24 in single precision) into the
/// normal range first, with selects rather than a branch so that loops over it vectorize.
template <class F>
inline F vlog(F x) {
  constexpr bool single = sizeof(F) == 4;
  constexpr F scale = single ? F(16777216.0) : F(18014398509481984.0);
  constexpr F shift = single ? F(24 * 0.69314718055994530942) : F(54 * 0.69314718055994530942);
  const bool subnormal = (x > F(0)) & (x < std::numeric_limits<F>::min());
  const F log_x = vlog_normal(subnormal ? x * scale : x);
  return subnormal ? log_x - shift : log_x;
}

/// ln(1 + x), accurate for small x: with u = 1 + x rounded, ln(1 + x) = ln u - ((u - 1) - x) / u
/// corrects the rounding of the sum to first order.
template <class F>
inline F vlog1p(F x) {
  const F one = 1;
  const F u = one + x;
  const F log_u = vlog_normal(u);  // u = 1 + x is 0 or at least one ulp of 1, never subnormal
  const F corrected = log_u - ((u - one) - x) / u;
  return (u == std::numeric_limits<F>::infinity()) | (u == F(0)) ? log_u : corrected;
}

/// 1 / (1 + e^-x) without overflow.
template <class F>
inline F vsigmoid(F x) {
  const F e = vexp(-(x < F(0) ? -x : x));
  const F s = F(1) / (F(1) + e);
  return x >= F(0) ? s : e * s;
}

/// ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|).
template <class F>
inline F vsoftplus(F x) {
  const F a = x < F(0) ? -x : x;
  return (x > F(0) ? x : F(0)) + vlog1p(vexp(-a));
}

/// tanh x = sign(x) e / (e + 2) with e = e^(2|x|) - 1, as accurate as e for small |x|; 1 where tanh
/// rounds to 1 (|x| above 19.1 in double, 9.1 in single), where e / (e + 2) would be inf / inf.
template <class F>
inline F vtanh(F x) {
  constexpr F cap = sizeof(F) == 4 ? F(9.5) : F(19.5);
  const F a = x < F(0) ? -x : x;
  const F e = vexpm1(F(2) * a);
  // Selecting 1 after the division rather than capping a before it keeps the loop free of branches.
  const F t = a > cap ? F(1) : e / (e + F(2));
  return x < F(0) ? -t : (x == F(0) ? x : t);  // x itself at +-0, so that tanh(-0) = -0
}

}  // namespace variate::cpu
