// The gamma family: gamma, beta (two gammas) and dirichlet (K normalized gammas).
#include <algorithm>
#include <cmath>
#include <limits>

#include "random/support.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::random {

namespace detail {

// Marsaglia & Tsang, "A simple method for generating gamma variables", ACM TOMS 26(3), 2000:
// rejection from d (1 + c x)^3 with x standard normal, d = a - 1/3 and c = 1 / sqrt(9 d). The
// squeeze 1 - 0.0331 x^4 accepts most proposals without evaluating a logarithm.
double sample_gamma_at_least_one(Stream& s, double a) {
  const double d = a - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0.0, v = 0.0;
    do {
      x = s.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = s.uniform_open();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

double sample_log_gamma(Stream& s, double a) {
  if (a >= 1.0) return std::log(sample_gamma_at_least_one(s, a));
  // Marsaglia & Tsang's boost for a < 1: G(a) = G(a + 1) U^(1/a). U^(1/a) underflows for small a
  // (a = 0.01 gives 0 about once in a thousand draws), so it is taken in logs; the floor keeps
  // even a denormal a finite.
  const double log_g = std::log(sample_gamma_at_least_one(s, a + 1.0));
  return std::max(log_g + std::log(s.uniform_open()) / a, std::numeric_limits<double>::lowest());
}

}  // namespace detail

namespace {

bool positive_finite(double v) { return v > 0.0 && std::isfinite(v); }

Tensor checked_concentration(const char* op, const char* role, const Tensor& c) {
  Tensor values = detail::parameter_values(op, role, c);
  detail::check_each(op, role, values, positive_finite, "positive and finite");
  return values;
}

}  // namespace

Tensor gamma(Key key, const Tensor& concentration, const Shape& shape) {
  const Tensor a = detail::broadcast_values("gamma", "concentration",
                                            checked_concentration("gamma", "concentration", concentration), shape);
  const DType dtype = float_type(concentration.dtype());
  Tensor out = Tensor::empty(shape, dtype);
  const double* av = a.data<double>();
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(out.numel(), [&](std::int64_t i) {
      detail::Stream s(key, std::uint64_t(i));
      const double x =
          av[i] >= 1.0 ? detail::sample_gamma_at_least_one(s, av[i]) : std::exp(detail::sample_log_gamma(s, av[i]));
      y[i] = detail::clamp_positive<T>(x);
    });
  });
  return out;
}

Tensor beta(Key key, const Tensor& concentration1, const Tensor& concentration0, const Shape& shape,
            Tensor* log_gammas) {
  const Tensor a = detail::broadcast_values("beta", "concentration1",
                                            checked_concentration("beta", "concentration1", concentration1), shape);
  const Tensor b = detail::broadcast_values("beta", "concentration0",
                                            checked_concentration("beta", "concentration0", concentration0), shape);
  const DType dtype = float_type(promote(concentration1.dtype(), concentration0.dtype()));
  Tensor out = Tensor::empty(shape, dtype);
  if (log_gammas != nullptr) *log_gammas = Tensor::empty(detail::with_event("beta", shape, 2), DType::f64);
  double* logs = log_gammas != nullptr ? log_gammas->data<double>() : nullptr;
  const double* av = a.data<double>();
  const double* bv = b.data<double>();
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(out.numel(), [&](std::int64_t i) {
      // Streams 2i and 2i + 1: the layout of a two-component dirichlet.
      detail::Stream sx(key, 2 * std::uint64_t(i)), sy(key, 2 * std::uint64_t(i) + 1);
      const double log_x = detail::sample_log_gamma(sx, av[i]), log_y = detail::sample_log_gamma(sy, bv[i]);
      if (logs != nullptr) logs[2 * i] = log_x, logs[2 * i + 1] = log_y;
      const double d = log_x - log_y;
      // X / (X + Y) = sigmoid(log X - log Y), with the exponent kept non-positive.
      const double x = d >= 0.0 ? 1.0 / (1.0 + std::exp(-d)) : std::exp(d) / (1.0 + std::exp(d));
      y[i] = detail::clamp_unit<T>(x);
    });
  });
  return out;
}

Tensor dirichlet(Key key, const Tensor& concentration, const Shape& shape, Tensor* log_gammas) {
  const Tensor alpha = checked_concentration("dirichlet", "concentration", concentration);
  VARIATE_CHECK(alpha.rank() >= 1 && alpha.dim(-1) >= 1, "dirichlet",
                "concentration must have a non-empty last (event) axis, got shape ", alpha.shape());
  const std::int64_t k = alpha.dim(-1);
  Shape batch = alpha.shape();
  batch.erase(batch.rank() - 1);
  const Tensor rows = detail::batch_rows("dirichlet", "concentration", batch, shape);
  const Shape out_shape = detail::with_event("dirichlet", shape, k);
  const DType dtype = float_type(concentration.dtype());
  Tensor out = Tensor::empty(out_shape, dtype);
  Tensor logs = Tensor::empty(out_shape, DType::f64);
  const double* av = alpha.data<double>();
  const std::int64_t* row = rows.data<std::int64_t>();
  double* lg = logs.data<double>();
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(rows.numel(), [&](std::int64_t i) {
      const double* a = av + row[i] * k;
      double* l = lg + i * k;
      double top = std::numeric_limits<double>::lowest();
      for (std::int64_t j = 0; j < k; ++j) {
        detail::Stream s(key, std::uint64_t(i * k + j));
        l[j] = detail::sample_log_gamma(s, a[j]);
        top = std::max(top, l[j]);
      }
      // Normalizing in logs keeps components whose gamma draw underflows (small concentrations).
      double total = 0.0;
      for (std::int64_t j = 0; j < k; ++j) total += std::exp(l[j] - top);
      const double log_total = top + std::log(total);
      for (std::int64_t j = 0; j < k; ++j) y[i * k + j] = detail::clamp_positive<T>(std::exp(l[j] - log_total));
    });
  });
  if (log_gammas != nullptr) *log_gammas = logs;
  return out;
}

}  // namespace variate::random
