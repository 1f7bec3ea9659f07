#include <cmath>

#include "random/support.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::random {

namespace {

// Below this rate the multiplication method (about rate + 1 uniforms) is cheaper than PTRS's setup
// and it is exact; PTRS is valid from rate 10 on (Hörmann 1993).
constexpr double kPtrsMinRate = 10.0;

// Multiplication method (Knuth, TAOCP vol. 2, 3.4.1): the number of uniforms whose running product
// stays above exp(-rate), i.e. the number of unit-rate arrivals before time `rate`.
double poisson_multiplication(detail::Stream& s, double rate) {
  const double limit = std::exp(-rate);
  double k = 0.0;
  for (double product = s.uniform(); product >= limit; product *= s.uniform()) k += 1.0;
  return k;
}

// PTRS, transformed rejection with squeeze: W. Hörmann, "The transformed rejection method for
// generating Poisson random variables", Insurance: Mathematics and Economics 12 (1993) 39-45.
// Constants are the paper's.
double poisson_ptrs(detail::Stream& s, double rate) {
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double log_inv_alpha = std::log(1.1239 + 1.1328 / (b - 3.4));
  const double v_r = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = s.uniform() - 0.5;
    const double v = s.uniform_open();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2.0 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + log_inv_alpha - std::log(a / (us * us) + b) <=
        -rate + k * log_rate - detail::log_gamma_function(k + 1.0))
      return k;
  }
}

}  // namespace

Tensor poisson(Key key, const Tensor& rate, const Shape& shape) {
  const Tensor r0 = detail::parameter_values("poisson", "rate", rate);
  detail::check_each(
      "poisson", "rate", r0, [](double v) { return v >= 0.0 && std::isfinite(v); }, "non-negative and finite");
  const Tensor r = detail::broadcast_values("poisson", "rate", r0, shape);
  const DType dtype = float_type(rate.dtype());
  Tensor out = Tensor::empty(shape, dtype);
  const double* rv = r.data<double>();
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(out.numel(), [&](std::int64_t i) {
      detail::Stream s(key, std::uint64_t(i));
      y[i] = T(rv[i] < kPtrsMinRate ? poisson_multiplication(s, rv[i]) : poisson_ptrs(s, rv[i]));
    });
  });
  return out;
}

}  // namespace variate::random
