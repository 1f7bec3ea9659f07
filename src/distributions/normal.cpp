#include "variate/distributions/normal.hpp"

#include <cmath>
#include <numbers>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Normal::Normal(Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("Normal", {loc, scale}), {}, dist::common_float_type({loc, scale})) {
  dist::check_finite("Normal", "loc", loc);
  dist::check_positive("Normal", "scale", scale);
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
  standard_ = dist::is_constant_scalar(loc_, 0) && dist::is_constant_scalar(scale_, 1);
}

Tensor Normal::sample(random::Key key, const Shape& sample_shape) const {
  return loc_ + scale_ * random::normal(key, sample_full_shape(sample_shape), dtype());
}

Tensor Normal::log_prob(const Tensor& value) const {
  // One tape node with analytic partials (Stan's anatomy): z = (x - loc) / scale,
  // d/dx = -z / scale, d/dloc = z / scale, d/dscale = (z^2 - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const double log_sqrt_2pi = 0.5 * std::log(2 * std::numbers::pi);
  // A standard normal (a non-centered prior) needs neither x - 0 nor x / 1.
  const auto standardized = [&] { return standard_ ? x : (x - loc_) / scale_; };
  Tensor z;
  // hessian and hvp differentiate the formula's ops: the rule below is first order only.
  if (autodiff::records_second_order()) {
    z = standardized();
    return square(z) * -0.5 - (log(scale_) + log_sqrt_2pi);
  }
  Tensor lp;
  {
    const autodiff::NoRecording values;
    z = standardized();
    lp = prim::binary(BinaryOp::normal_log_density, z, log(scale_) + log_sqrt_2pi);
  }
  return autodiff::record(lp, {x, loc_, scale_}, {z, scale_}, [](const BackwardContext& ctx) {
    const Tensor &z = ctx.saved(0), &scale = ctx.saved(1);
    if (!ctx.needs_grad(1)) {
      // -(g (z / scale)) as g (z / -scale): the same bits, and with a constant scale (a prior's)
      // -scale is a constant too, so a replayed gradient runs one op fewer.
      if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * (z / -scale));
    } else {
      // x's partial is loc's negated: one product for both (a hierarchical prior's).
      const Tensor dloc = ctx.grad() * (z / scale);
      if (ctx.needs_grad(0)) ctx.add(0, -dloc);
      ctx.add(1, dloc);
    }
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * ((square(z) - 1.0) / scale));
  });
}

Tensor Normal::mean() const { return broadcast_to(loc_, batch_shape()); }
Tensor Normal::variance() const { return broadcast_to(square(scale_), batch_shape()); }

Tensor Normal::cdf(const Tensor& value) const {
  return 0.5 * erfc((loc_ - dist::as_dtype(value, dtype())) / (scale_ * std::numbers::sqrt2));
}

namespace {

// The normal quantile: Acklam's rational approximation (relative error 1.2e-9; P. J. Acklam, "An
// algorithm for computing the inverse normal cumulative distribution function", 2003), one branch
// per region, refined by one Halley step on Phi(x) = p, in the tail where p keeps its digits (Acklam's
// own refinement). Composed of differentiable ops: at the Halley step's fixed point its derivative
// in the starting point vanishes and that in p is 1 / phi(x), the quantile's derivative.
Tensor standard_normal_icdf(const Tensor& p) {
  constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                          -1.328068155288572e+01};
  constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  const DType dt = p.dtype();
  // The lower tail at q = sqrt(-2 log t) for t = min(p, 1 - p) (the upper tail by symmetry).
  auto tail = [&](const Tensor& t) {
    const Tensor q = sqrt(-2.0 * log(t));
    const Tensor num = ((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5];
    const Tensor den = (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0;
    return num / den;
  };
  const Tensor low_x = tail(minimum(p, Tensor::scalar(p_low, dt)));
  const Tensor high_x = -tail(minimum(1.0 - p, Tensor::scalar(p_low, dt)));
  const Tensor q = p - 0.5, r = square(q);
  const Tensor central = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
                         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  const Tensor x0 =
      where(lt(p, Tensor::scalar(p_low, dt)), low_x, where(gt(p, Tensor::scalar(1 - p_low, dt)), high_x, central));
  // Halley: e = Phi(x0) - p (from the upper tail above 1/2), u = e / phi(x0), x = x0 - u / (1 + x0 u / 2).
  const double r2 = 1 / std::numbers::sqrt2;
  const Tensor e = where(gt(p, Tensor::scalar(0.5, dt)), (1.0 - p) - 0.5 * erfc(r2 * x0), 0.5 * erfc(-r2 * x0) - p);
  const Tensor u = e * std::sqrt(2 * std::numbers::pi) * exp(0.5 * square(x0));
  const Tensor x = x0 - u / (1.0 + 0.5 * x0 * u);
  const Tensor inf = Tensor::scalar(INFINITY, dt);
  return where(le(p, Tensor::scalar(0.0, dt)), -inf, where(ge(p, Tensor::scalar(1.0, dt)), inf, x));
}

}  // namespace

Tensor Normal::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  return loc_ + scale_ * standard_normal_icdf(dist::as_dtype(p, dtype()));
}

// log(scale) + log(2 pi e) / 2 (Cover & Thomas, Elements of Information Theory, table 17.1).
Tensor Normal::entropy() const {
  return broadcast_to(log(scale_) + 0.5 * std::log(2 * std::numbers::pi * std::numbers::e), batch_shape());
}

}  // namespace variate::dist
