#include "variate/distributions/half_normal.hpp"

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

HalfNormal::HalfNormal(Tensor scale)
    : Distribution(dist::broadcast_batch("HalfNormal", {scale}), {}, dist::common_float_type({scale})) {
  dist::check_positive("HalfNormal", "scale", scale);
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor HalfNormal::sample(random::Key key, const Shape& sample_shape) const {
  return scale_ * abs(random::normal(key, sample_full_shape(sample_shape), dtype()));
}

Tensor HalfNormal::log_prob(const Tensor& value) const {
  // z = x / scale; d/dx = -z / scale, d/dscale = (z^2 - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  const double log_norm = 0.5 * std::log(2 / std::numbers::pi);
  Tensor z, lp;
  {
    const autodiff::NoRecording values;
    z = support_mask.inside_or(x, 1.0) / scale_;
    lp = prim::binary(BinaryOp::normal_log_density, z, log(scale_) - log_norm);
  }
  const Tensor out = autodiff::record(lp, {x, scale_}, {z, scale_}, [](const BackwardContext& ctx) {
    const Tensor &z = ctx.saved(0), &scale = ctx.saved(1);
    // -(g (z / scale)) as g (z / -scale): the same bits, and with a constant scale (a prior's)
    // -scale is a constant too, so a replayed gradient runs one op fewer.
    if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * (z / -scale));
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * ((square(z) - 1.0) / scale));
  });
  return support_mask.mask(out);
}

Tensor HalfNormal::mean() const { return broadcast_to(scale_ * std::sqrt(2 / std::numbers::pi), batch_shape()); }
Tensor HalfNormal::variance() const { return broadcast_to(square(scale_) * (1 - 2 / std::numbers::pi), batch_shape()); }

Tensor HalfNormal::cdf(const Tensor& value) const {
  // erf(x / (scale sqrt 2)) for x >= 0; clamping x at 0 gives 0 below the support.
  const Tensor x = dist::as_dtype(value, dtype());
  return erf(maximum(x, Tensor::scalar(0.0, dtype())) / (scale_ * std::numbers::sqrt2));
}

// log(scale sqrt(pi e / 2)).
Tensor HalfNormal::entropy() const {
  return broadcast_to(log(scale_) + 0.5 * std::log(std::numbers::pi * std::numbers::e / 2), batch_shape());
}

}  // namespace variate::dist
