#include "variate/distributions/laplace.hpp"

#include <cmath>
#include <numbers>

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Laplace::Laplace(Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("Laplace", {loc, scale}), {}, dist::common_float_type({loc, scale})) {
  dist::check_finite("Laplace", "loc", loc);
  dist::check_positive("Laplace", "scale", scale);
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor Laplace::sample(random::Key key, const Shape& sample_shape) const {
  const auto [first, second] = random::split(key);
  const Shape shape = sample_full_shape(sample_shape);
  const Tensor eps = random::exponential(first, shape, dtype()) - random::exponential(second, shape, dtype());
  return loc_ + scale_ * eps;
}

Tensor Laplace::log_prob(const Tensor& value) const {
  // With z = (x - loc) / scale: d/dx = -sign(z) / scale, d/dloc = sign(z) / scale,
  // d/dscale = (|z| - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor z, lp;
  {
    const autodiff::NoRecording values;
    z = (support_mask.inside_or(x, 0.0) - loc_) / scale_;
    lp = -(abs(z) + log(scale_) + std::numbers::ln2);
  }
  const Tensor out = autodiff::record(lp, {x, loc_, scale_}, {z, scale_}, [](const BackwardContext& ctx) {
    const Tensor &z = ctx.saved(0), &scale = ctx.saved(1);
    const Tensor dloc = ctx.grad() * (sign(z) / scale);
    if (ctx.needs_grad(0)) ctx.add(0, -dloc);
    if (ctx.needs_grad(1)) ctx.add(1, dloc);
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * ((abs(z) - 1.0) / scale));
  });
  return support_mask.mask(out);
}

Tensor Laplace::mean() const { return broadcast_to(loc_, batch_shape()); }
Tensor Laplace::variance() const { return broadcast_to(2.0 * square(scale_), batch_shape()); }

Tensor Laplace::cdf(const Tensor& value) const {
  // exp(z) / 2 below loc and 1 - exp(-z) / 2 above, as one expression: 1/2 - sign(z) expm1(-|z|) / 2.
  const Tensor z = (dist::as_dtype(value, dtype()) - loc_) / scale_;
  return 0.5 - 0.5 * sign(z) * expm1(-abs(z));
}

Tensor Laplace::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  const Tensor centered = dist::as_dtype(p, dtype()) - 0.5;
  return loc_ - scale_ * sign(centered) * log1p(-2.0 * abs(centered));
}
// log(2 scale) + 1.
Tensor Laplace::entropy() const { return broadcast_to(log(2.0 * scale_) + 1.0, batch_shape()); }

}  // namespace variate::dist
