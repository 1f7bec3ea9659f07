#include "variate/distributions/half_cauchy.hpp"

#include <cmath>
#include <numbers>

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

HalfCauchy::HalfCauchy(Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("HalfCauchy", {loc, scale}), {}, dist::common_float_type({loc, scale})) {
  dist::check_finite("HalfCauchy", "loc", loc);
  dist::check_positive("HalfCauchy", "scale", scale);
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor HalfCauchy::sample(random::Key key, const Shape& sample_shape) const {
  // |ratio of two standard normals| is standard half-Cauchy (no tan for the inverse cdf).
  const auto [numerator_key, denominator_key] = random::split(key);
  const Shape shape = sample_full_shape(sample_shape);
  const Tensor eps =
      abs(random::normal(numerator_key, shape, dtype()) / random::normal(denominator_key, shape, dtype()));
  return loc_ + scale_ * eps;
}

Tensor HalfCauchy::log_prob(const Tensor& value) const {
  // As Cauchy's, with r = 2 z / (1 + z^2): d/dx = -r / scale, d/dloc = r / scale,
  // d/dscale = (r z - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor z, lp;
  {
    const autodiff::NoRecording values;
    z = (support_mask.inside_or(x, loc_ + scale_) - loc_) / scale_;
    // The terms without z first: with a constant scale they are a constant, which a kernel replay
    // does not compute again.
    lp = (-std::log(std::numbers::pi / 2) - log(scale_)) - log1p(square(z));
  }
  const Tensor out = autodiff::record(lp, {x, loc_, scale_}, {z, scale_}, [](const BackwardContext& ctx) {
    const Tensor &z = ctx.saved(0), &scale = ctx.saved(1);
    const Tensor r = z * 2.0 / (square(z) + 1.0);
    if (!ctx.needs_grad(1)) {
      // -(g (r / scale)) as g (r / -scale): the same bits, and one op fewer in a replayed gradient
      // when scale is a constant (as Normal's).
      if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * (r / -scale));
    } else {
      const Tensor dloc = ctx.grad() * (r / scale);
      if (ctx.needs_grad(0)) ctx.add(0, -dloc);
      ctx.add(1, dloc);
    }
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * ((r * z - 1.0) / scale));
  });
  return support_mask.mask(out);
}

Tensor HalfCauchy::cdf(const Tensor& value) const {
  const Tensor z = (dist::as_dtype(value, dtype()) - loc_) / scale_;
  const Tensor zero = Tensor::scalar(0.0, dtype());
  return where(lt(z, zero), zero, atan(z) * (2 / std::numbers::pi));
}

Tensor HalfCauchy::mean() const {
  variate::detail::fail("HalfCauchy: the mean does not exist (the tail is too heavy)");
}
Tensor HalfCauchy::variance() const {
  variate::detail::fail("HalfCauchy: the variance does not exist (the tail is too heavy)");
}

}  // namespace variate::dist
