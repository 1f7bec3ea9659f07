#include "variate/distributions/gumbel.hpp"

#include <numbers>

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Gumbel::Gumbel(Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("Gumbel", {loc, scale}), {}, dist::common_float_type({loc, scale})) {
  dist::check_finite("Gumbel", "loc", loc);
  dist::check_positive("Gumbel", "scale", scale);
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor Gumbel::sample(random::Key key, const Shape& sample_shape) const {
  // -log(e) with e ~ Exponential(1) has cdf P(e > exp(-t)) = exp(-exp(-t)). Drawn in f64, so that
  // e rounding to 0 (an infinite draw) is a 2^-53 event.
  const Tensor e = random::exponential(key, sample_full_shape(sample_shape), DType::f64);
  return loc_ - scale_ * cast(log(e), dtype());
}

Tensor Gumbel::log_prob(const Tensor& value) const {
  // One node. With t = exp(-z): d lp / dz = t - 1, so d/dx = (t - 1) / scale, d/dloc = (1 - t) / scale,
  // d/dscale = (z (1 - t) - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor z, t, lp;
  {
    const autodiff::NoRecording values;
    z = (support_mask.inside_or(x, 0.0) - loc_) / scale_;
    t = exp(-z);
    lp = -(z + t + log(scale_));
  }
  const Tensor out = autodiff::record(lp, {x, loc_, scale_}, {z, t, scale_}, [](const BackwardContext& ctx) {
    const Tensor &z = ctx.saved(0), &t = ctx.saved(1), &scale = ctx.saved(2);
    const Tensor one_minus_t = 1.0 - t;
    const Tensor dloc = ctx.grad() * (one_minus_t / scale);
    if (ctx.needs_grad(0)) ctx.add(0, -dloc);
    if (ctx.needs_grad(1)) ctx.add(1, dloc);
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * ((z * one_minus_t - 1.0) / scale));
  });
  return support_mask.mask(out);
}

Tensor Gumbel::mean() const { return broadcast_to(loc_ + scale_ * std::numbers::egamma, batch_shape()); }
Tensor Gumbel::variance() const {
  return broadcast_to(square(scale_) * (std::numbers::pi * std::numbers::pi / 6), batch_shape());
}
Tensor Gumbel::cdf(const Tensor& value) const { return exp(-exp(-(dist::as_dtype(value, dtype()) - loc_) / scale_)); }
Tensor Gumbel::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  return loc_ - scale_ * log(-log(dist::as_dtype(p, dtype())));
}
Tensor Gumbel::entropy() const { return broadcast_to(log(scale_) + (std::numbers::egamma + 1.0), batch_shape()); }

}  // namespace variate::dist
