// Binomial and multinomial (a chain of conditional binomials).
#include <algorithm>
#include <cmath>
#include <limits>

#include "random/support.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::random {

namespace {

// BTRS needs n * p >= 10 (Hörmann 1993); below it inversion takes about n * p + 1 steps.
constexpr double kBtrsMinMean = 10.0;

// Sequential-search inversion (BINV in Kachitvichyanukul & Schmeiser, "Binomial random variate
// generation", CACM 31(2), 1988), for p <= 1/2 and n p < 10, so the start (1 - p)^n > e^-14.
double binomial_inversion(detail::Stream& s, double n, double p) {
  const double odds = p / (1.0 - p);
  const double start = std::exp(n * std::log1p(-p));
  for (;;) {
    double u = s.uniform();
    double pk = start;
    for (double k = 0.0; k <= n && pk > 0.0; k += 1.0) {
      if (u < pk) return k;
      u -= pk;
      pk *= odds * (n - k) / (k + 1.0);
    }
    // Only rounding leaves u above the whole mass; such a u is rejected.
  }
}

// BTRS, transformed rejection with squeeze: W. Hörmann, "The generation of binomial random
// variates", Journal of Statistical Computation and Simulation 46 (1993) 101-110; p <= 1/2 and
// n p >= 10. Constants are the paper's.
double binomial_btrs(detail::Stream& s, double n, double p) {
  const double q = 1.0 - p;
  const double spq = std::sqrt(n * p * q);
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = n * p + 0.5;
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double v_r = 0.92 - 4.2 / b;
  const double m = std::floor((n + 1.0) * p);
  const double log_odds = std::log(p / q);
  const double h = detail::log_gamma_function(m + 1.0) + detail::log_gamma_function(n - m + 1.0);
  for (;;) {
    const double u = s.uniform() - 0.5;
    const double v = s.uniform();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2.0 * a / us + b) * u + c);
    if (k < 0.0 || k > n) continue;
    if (us >= 0.07 && v <= v_r) return k;
    const double log_v = std::log(v * alpha / (a / (us * us) + b));
    if (log_v <= h - detail::log_gamma_function(k + 1.0) - detail::log_gamma_function(n - k + 1.0) + (k - m) * log_odds)
      return k;
  }
}

bool is_count(double v) { return v >= 0.0 && std::isfinite(v) && v == std::floor(v); }
bool is_probability(double v) { return v >= 0.0 && v <= 1.0; }

}  // namespace

namespace detail {

double sample_binomial(Stream& s, double n, double p) {
  if (n == 0.0 || p == 0.0) return 0.0;
  if (p == 1.0) return n;
  // Both algorithms want p <= 1/2; 1 - p is exact for p >= 1/2.
  const bool flip = p > 0.5;
  const double q = flip ? 1.0 - p : p;
  const double k = n * q < kBtrsMinMean ? binomial_inversion(s, n, q) : binomial_btrs(s, n, q);
  return flip ? n - k : k;
}

}  // namespace detail

Tensor binomial(Key key, const Tensor& total_count, const Tensor& probs, const Shape& shape) {
  const Tensor n0 = detail::parameter_values("binomial", "total_count", total_count);
  detail::check_each("binomial", "total_count", n0, is_count, "a non-negative integer");
  const Tensor p0 = detail::parameter_values("binomial", "probs", probs);
  detail::check_each("binomial", "probs", p0, is_probability, "in [0, 1]");
  const Tensor n = detail::broadcast_values("binomial", "total_count", n0, shape);
  const Tensor p = detail::broadcast_values("binomial", "probs", p0, shape);
  const DType dtype = float_type(promote(total_count.dtype(), probs.dtype()));
  Tensor out = Tensor::empty(shape, dtype);
  const double* nv = n.data<double>();
  const double* pv = p.data<double>();
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(out.numel(), [&](std::int64_t i) {
      detail::Stream s(key, std::uint64_t(i));
      y[i] = T(detail::sample_binomial(s, nv[i], pv[i]));
    });
  });
  return out;
}

Tensor multinomial(Key key, const Tensor& total_count, const Tensor& probs, const Shape& shape) {
  const Tensor n0 = detail::parameter_values("multinomial", "total_count", total_count);
  detail::check_each("multinomial", "total_count", n0, is_count, "a non-negative integer");
  const Tensor p = detail::parameter_values("multinomial", "probs", probs);
  detail::check_each("multinomial", "probs", p, is_probability, "in [0, 1]");
  VARIATE_CHECK(p.rank() >= 1 && p.dim(-1) >= 1, "multinomial",
                "probs must have a non-empty last (event) axis, got shape ", p.shape());
  const std::int64_t k = p.dim(-1);
  const std::int64_t batch_size = p.numel() / k;
  const double* pv = p.data<double>();

  // tail[r k + j] = p_j + ... + p_{K-1}: component j is Binomial(remaining, p_j / tail_j) given the
  // earlier ones. Sums of the later probabilities, not 1 - (earlier ones), so small trailing
  // probabilities keep their relative accuracy.
  Tensor tails = Tensor::empty(p.shape(), DType::f64);
  double* tail = tails.data<double>();
  // Loose enough for probabilities computed in the caller's precision (a softmax in f32).
  const double tolerance = std::sqrt(probs.dtype() == DType::f32 ? double(std::numeric_limits<float>::epsilon())
                                                                 : std::numeric_limits<double>::epsilon());
  for (std::int64_t r = 0; r < batch_size; ++r) {
    double acc = 0.0;
    for (std::int64_t j = k - 1; j >= 0; --j) {
      acc += pv[r * k + j];
      tail[r * k + j] = acc;
    }
    VARIATE_CHECK(std::abs(acc - 1.0) <= tolerance, "multinomial", "probs must sum to 1 along the last axis, row ", r,
                  " sums to ", acc);
  }

  Shape batch = p.shape();
  batch.erase(batch.rank() - 1);
  const Tensor rows = detail::batch_rows("multinomial", "probs", batch, shape);
  const Tensor n = detail::broadcast_values("multinomial", "total_count", n0, shape);
  const DType dtype = float_type(promote(total_count.dtype(), probs.dtype()));
  Tensor out = Tensor::empty(detail::with_event("multinomial", shape, k), dtype);
  const std::int64_t* row = rows.data<std::int64_t>();
  const double* nv = n.data<double>();
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(rows.numel(), [&](std::int64_t i) {
      const double* pr = pv + row[i] * k;
      const double* tr = tail + row[i] * k;
      double remaining = nv[i];
      for (std::int64_t j = 0; j + 1 < k; ++j) {
        detail::Stream s(key, std::uint64_t(i * k + j));
        const double x = tr[j] > 0.0 ? detail::sample_binomial(s, remaining, std::min(1.0, pr[j] / tr[j])) : 0.0;
        y[i * k + j] = T(x);
        remaining -= x;
      }
      y[i * k + k - 1] = T(remaining);
    });
  });
  return out;
}

}  // namespace variate::random
