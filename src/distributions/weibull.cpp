#include "variate/distributions/weibull.hpp"

#include <limits>
#include <numbers>

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Weibull::Weibull(Tensor concentration, Tensor scale)
    : Distribution(dist::broadcast_batch("Weibull", {concentration, scale}), {},
                   dist::common_float_type({concentration, scale})) {
  dist::check_positive("Weibull", "concentration", concentration);
  dist::check_positive("Weibull", "scale", scale);
  concentration_ = dist::as_dtype(concentration, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor Weibull::sample(random::Key key, const Shape& sample_shape) const {
  // e^(1 / k) underflows for small k and small e (k = 0.1 takes the tenth power); clamp at the
  // smallest normal number so that draws stay inside the support, as the samplers do.
  const Tensor e = random::exponential(key, sample_full_shape(sample_shape), dtype());
  const double tiny = dtype() == DType::f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
  return maximum(scale_ * pow(e, reciprocal(concentration_)), Tensor::scalar(tiny, dtype()));
}

Tensor Weibull::log_prob(const Tensor& value) const {
  // With u = exp(k t) = (x / s)^k: d/dx = (k - 1 - k u) / x, d/dk = 1 / k + t (1 - u),
  // d/ds = k (u - 1) / s.
  const Tensor &k = concentration_, &s = scale_;
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor safe_x, t, u, lp;
  {
    const autodiff::NoRecording values;
    safe_x = support_mask.inside_or(x, 1.0);
    const Tensor log_k = log(k), log_s = log(s);
    t = log(safe_x) - log_s;
    u = exp(k * t);
    lp = log_k - log_s + (k - 1.0) * t - u;
  }
  const Tensor out = autodiff::record(lp, {x, k, s}, {safe_x, t, u, k, s}, [](const BackwardContext& ctx) {
    const Tensor &x = ctx.saved(0), &t = ctx.saved(1), &u = ctx.saved(2), &k = ctx.saved(3), &s = ctx.saved(4);
    if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * ((k - 1.0 - k * u) / x));
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * (reciprocal(k) + t * (1.0 - u)));
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * (k * (u - 1.0) / s));
  });
  return support_mask.mask(out);
}

Tensor Weibull::mean() const {
  return broadcast_to(scale_ * exp(lgamma(1.0 + reciprocal(concentration_))), batch_shape());
}

Tensor Weibull::variance() const {
  // s^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2), factored through expm1: for large k the two terms
  // nearly cancel.
  const Tensor lg1 = lgamma(1.0 + reciprocal(concentration_));
  const Tensor lg2 = lgamma(1.0 + 2.0 * reciprocal(concentration_));
  return broadcast_to(square(scale_) * exp(2.0 * lg1) * expm1(lg2 - 2.0 * lg1), batch_shape());
}

Tensor Weibull::cdf(const Tensor& value) const {
  // 1 - exp(-(x / s)^k) for x >= 0; clamping x at 0 gives 0 below the support.
  const Tensor x = maximum(dist::as_dtype(value, dtype()), Tensor::scalar(0.0, dtype()));
  return -expm1(-pow(x / scale_, concentration_));
}

Tensor Weibull::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  return scale_ * pow(-log1p(-dist::as_dtype(p, dtype())), 1.0 / concentration_);
}
// gamma_E (1 - 1 / k) + log(scale / k) + 1.
Tensor Weibull::entropy() const {
  return broadcast_to(std::numbers::egamma * (1.0 - 1.0 / concentration_) + log(scale_ / concentration_) + 1.0,
                      batch_shape());
}

}  // namespace variate::dist
