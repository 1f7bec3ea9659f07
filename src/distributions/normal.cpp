#include "variate/distributions/normal.hpp"

#include <cmath>
#include <numbers>

#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Normal::Normal(Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("Normal", {loc, scale}), {}, dist::common_float_type({loc, scale})) {
  dist::check_finite("Normal", "loc", loc);
  dist::check_positive("Normal", "scale", scale);
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor Normal::sample(random::Key key, const Shape& sample_shape) const {
  return loc_ + scale_ * random::normal(key, sample_full_shape(sample_shape), dtype());
}

Tensor Normal::log_prob(const Tensor& value) const {
  // One tape node with analytic partials (Stan's anatomy): z = (x - loc) / scale,
  // d/dx = -z / scale, d/dloc = z / scale, d/dscale = (z^2 - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor z = prim::div(prim::sub(x, loc_), scale_);
  const Tensor lp = prim::sub(prim::binary(BinaryOp::mul, prim::unary(UnaryOp::square, z), -0.5),
                              prim::binary(BinaryOp::add, prim::unary(UnaryOp::log, scale_),
                                           0.5 * std::log(2 * std::numbers::pi)));
  return autodiff::record(lp, {x, loc_, scale_}, {z, scale_}, [](const BackwardContext& ctx) {
    const Tensor z_over_scale = prim::div(ctx.saved(0), ctx.saved(1));
    const Tensor g = ctx.grad();
    if (ctx.needs_grad(0)) ctx.add(0, prim::neg(prim::mul(g, z_over_scale)));
    if (ctx.needs_grad(1)) ctx.add(1, prim::mul(g, z_over_scale));
    if (ctx.needs_grad(2)) {
      const Tensor z2m1 = prim::binary(BinaryOp::sub, prim::unary(UnaryOp::square, ctx.saved(0)), 1.0);
      ctx.add(2, prim::mul(g, prim::div(z2m1, ctx.saved(1))));
    }
  });
}

Tensor Normal::mean() const { return broadcast_to(loc_, batch_shape()); }
Tensor Normal::variance() const { return broadcast_to(square(scale_), batch_shape()); }

Tensor Normal::cdf(const Tensor& value) const {
  return 0.5 * erfc((loc_ - dist::as_dtype(value, dtype())) / (scale_ * std::numbers::sqrt2));
}

}  // namespace variate::dist
