#include "variate/distributions/uniform.hpp"

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Uniform::Uniform(Tensor low, Tensor high)
    : Distribution(dist::broadcast_batch("Uniform", {low, high}), {}, dist::common_float_type({low, high})) {
  dist::check_finite("Uniform", "low", low);
  dist::check_finite("Uniform", "high", high);
  dist::check_ordered("Uniform", "low", low, "high", high);
  low_ = dist::as_dtype(low, dtype());
  high_ = dist::as_dtype(high, dtype());
}

Tensor Uniform::sample(random::Key key, const Shape& sample_shape) const {
  // u in the open interval (0, 1) at the dtype's resolution, so that a draw does not land on an end
  // of the (open) support: the f64 draw is moved half a grid step off 0, and in f32 it is clamped
  // below 1, which rounding to float could otherwise reach.
  const bool f32 = dtype() == DType::f32;
  Tensor u = random::uniform(key, sample_full_shape(sample_shape), DType::f64) + (0x1p-54);
  u = minimum(cast(u, dtype()), Tensor::scalar(f32 ? 1 - 0x1p-24 : 1 - 0x1p-53, dtype()));
  return low_ + (high_ - low_) * u;
}

Tensor Uniform::log_prob(const Tensor& value) const {
  // The density does not depend on x inside the support: d/dx = 0, d/dlow = 1 / (high - low),
  // d/dhigh = -1 / (high - low).
  const Tensor x = dist::as_dtype(value, dtype());
  Tensor width, lp;
  {
    const autodiff::NoRecording values;
    width = high_ - low_;
    // + x * 0: a NaN value keeps a NaN density, as in every family (an infinite one becomes NaN
    // too, which the mask then sends to -inf). Added before the negation, so that the density of
    // a width of 1 stays -0.
    lp = -(broadcast_to(log(width), broadcast_shapes("Uniform", x.shape(), batch_shape())) + x * 0.0);
  }
  const Tensor out = autodiff::record(lp, {x, low_, high_}, {width}, [](const BackwardContext& ctx) {
    const Tensor d = ctx.grad() / ctx.saved(0);
    if (ctx.needs_grad(1)) ctx.add(1, d);
    if (ctx.needs_grad(2)) ctx.add(2, -d);
  });
  return dist::mask_outside_support(support(), x, out);
}

Tensor Uniform::mean() const { return broadcast_to(0.5 * (low_ + high_), batch_shape()); }
Tensor Uniform::variance() const { return broadcast_to(square(high_ - low_) / 12.0, batch_shape()); }

Tensor Uniform::cdf(const Tensor& value) const {
  const Tensor fraction = (dist::as_dtype(value, dtype()) - low_) / (high_ - low_);
  return minimum(maximum(fraction, Tensor::scalar(0.0, dtype())), Tensor::scalar(1.0, dtype()));
}

Tensor Uniform::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  return low_ + (high_ - low_) * dist::as_dtype(p, dtype());
}
Tensor Uniform::entropy() const { return broadcast_to(log(high_ - low_), batch_shape()); }

}  // namespace variate::dist
