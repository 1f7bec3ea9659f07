// The von Mises family's centred draws.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "random/support.hpp"
#include "variate/random/samplers.hpp"

namespace variate::random {
namespace {

// Below this concentration the law is uniform on the circle to within rounding (its density
// varies by a factor exp(2 concentration)), and Best & Fisher's constants lose their precision.
constexpr double kUniformBelow = 1e-8;

// Best & Fisher, "Efficient simulation of the von Mises distribution", Applied Statistics 28(2),
// 1979: rejection from a wrapped Cauchy envelope, with tau, rho and r their constants and a
// squeeze test that usually avoids the logarithm. Returns an angle in [-pi, pi].
double sample_centred_von_mises(detail::Stream& s, double concentration) {
  if (concentration < kUniformBelow) return std::numbers::pi * (2 * s.uniform() - 1);
  // tau - sqrt(2 tau) written without cancellation: as given, it loses all its digits (rho = 0,
  // r = inf, and f = NaN rejects forever) once 4 concentration^2 is below the rounding of 1.
  const double k2 = concentration * concentration, root = std::sqrt(1 + 4 * k2);
  const double tau = 1 + root, tau_minus_2 = 4 * k2 / (root + 1);
  const double rho = tau * tau_minus_2 / ((tau + std::sqrt(2 * tau)) * 2 * concentration);
  const double r = (1 + rho * rho) / (2 * rho);
  for (;;) {
    const double z = std::cos(std::numbers::pi * s.uniform());
    const double f = std::clamp((1 + r * z) / (r + z), -1.0, 1.0);
    const double c = concentration * (r - f);
    const double u2 = s.uniform_open();
    if (c * (2 - c) > u2 || std::log(c / u2) + 1 - c >= 0) {
      const double angle = std::acos(f);
      return s.uniform() < 0.5 ? -angle : angle;
    }
  }
}

}  // namespace

Tensor von_mises(Key key, const Tensor& concentration, const Shape& shape) {
  Tensor values = detail::parameter_values("von_mises", "concentration", concentration);
  detail::check_each(
      "von_mises", "concentration", values, [](double v) { return v > 0.0 && std::isfinite(v); },
      "positive and finite");
  const Tensor k = detail::broadcast_values("von_mises", "concentration", values, shape);
  const DType dtype = float_type(concentration.dtype());
  Tensor out = Tensor::empty(shape, dtype);
  const double* kv = k.data<double>();
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(out.numel(), [&](std::int64_t i) {
      detail::Stream s(key, std::uint64_t(i));
      y[i] = T(sample_centred_von_mises(s, kv[i]));
    });
  });
  return out;
}

}  // namespace variate::random
