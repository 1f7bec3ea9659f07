#include "variate/distributions/log_normal.hpp"

#include <cmath>
#include <numbers>

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

LogNormal::LogNormal(Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("LogNormal", {loc, scale}), {}, dist::common_float_type({loc, scale})) {
  dist::check_finite("LogNormal", "loc", loc);
  dist::check_positive("LogNormal", "scale", scale);
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor LogNormal::sample(random::Key key, const Shape& sample_shape) const {
  return exp(loc_ + scale_ * random::normal(key, sample_full_shape(sample_shape), dtype()));
}

Tensor LogNormal::log_prob(const Tensor& value) const {
  // z = (log x - loc) / scale; d/dx = -(1 + z / scale) / x, d/dloc = z / scale,
  // d/dscale = (z^2 - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor safe_x, z, lp;
  {
    const autodiff::NoRecording values;
    safe_x = support_mask.inside_or(x, 1.0);
    const Tensor log_x = log(safe_x);
    z = (log_x - loc_) / scale_;
    lp = prim::binary(BinaryOp::normal_log_density, z, log_x + (log(scale_) + 0.5 * std::log(2 * std::numbers::pi)));
  }
  const Tensor out = autodiff::record(lp, {x, loc_, scale_}, {z, scale_, safe_x}, [](const BackwardContext& ctx) {
    const Tensor &z = ctx.saved(0), &scale = ctx.saved(1), &x = ctx.saved(2);
    const Tensor z_over_scale = z / scale;
    if (ctx.needs_grad(0)) ctx.add(0, -(ctx.grad() * ((z_over_scale + 1.0) / x)));
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * z_over_scale);
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * ((square(z) - 1.0) / scale));
  });
  return support_mask.mask(out);
}

Tensor LogNormal::mean() const { return broadcast_to(exp(loc_ + 0.5 * square(scale_)), batch_shape()); }

Tensor LogNormal::variance() const {
  // (exp(scale^2) - 1) exp(2 loc + scale^2), with expm1 for small scales.
  const Tensor s2 = square(scale_);
  return broadcast_to(expm1(s2) * exp(2.0 * loc_ + s2), batch_shape());
}

Tensor LogNormal::cdf(const Tensor& value) const {
  // Normal cdf of log x; x <= 0 (below the support) gives 0, and its log is never taken.
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor positive = gt(x, Tensor::scalar(0.0, dtype()));
  const Tensor log_x = log(where(positive, x, Tensor::scalar(1.0, dtype())));
  const Tensor inside = 0.5 * erfc((loc_ - log_x) / (scale_ * std::numbers::sqrt2));
  return where(positive, inside, Tensor::scalar(0.0, dtype()));
}

// loc + log(scale) + log(2 pi e) / 2.
Tensor LogNormal::entropy() const {
  return broadcast_to(loc_ + log(scale_) + 0.5 * std::log(2 * std::numbers::pi * std::numbers::e), batch_shape());
}

}  // namespace variate::dist
