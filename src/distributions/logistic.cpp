#include "variate/distributions/logistic.hpp"

#include <numbers>

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Logistic::Logistic(Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("Logistic", {loc, scale}), {}, dist::common_float_type({loc, scale})) {
  dist::check_finite("Logistic", "loc", loc);
  dist::check_positive("Logistic", "scale", scale);
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor Logistic::sample(random::Key key, const Shape& sample_shape) const {
  // log(e1 / e2) has cdf e^t / (1 + e^t). Unlike logit(u) it needs no open-interval uniform, and
  // the draws are made in f64 so that an exponential rounding to 0 is a 2^-53 event.
  const auto [first, second] = random::split(key);
  const Shape shape = sample_full_shape(sample_shape);
  const Tensor eps =
      log(random::exponential(first, shape, DType::f64)) - log(random::exponential(second, shape, DType::f64));
  return loc_ + scale_ * cast(eps, dtype());
}

Tensor Logistic::log_prob(const Tensor& value) const {
  // d lp / dz = -tanh(z / 2), so d/dx = -tanh(z / 2) / scale, d/dloc = tanh(z / 2) / scale,
  // d/dscale = (z tanh(z / 2) - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor z, lp;
  {
    const autodiff::NoRecording values;
    z = (support_mask.inside_or(x, 0.0) - loc_) / scale_;
    lp = -(z + softplus(-z) * 2.0 + log(scale_));
  }
  const Tensor out = autodiff::record(lp, {x, loc_, scale_}, {z, scale_}, [](const BackwardContext& ctx) {
    const Tensor &z = ctx.saved(0), &scale = ctx.saved(1);
    const Tensor t = tanh(z * 0.5);
    const Tensor dloc = ctx.grad() * (t / scale);
    if (ctx.needs_grad(0)) ctx.add(0, -dloc);
    if (ctx.needs_grad(1)) ctx.add(1, dloc);
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * ((z * t - 1.0) / scale));
  });
  return support_mask.mask(out);
}

Tensor Logistic::mean() const { return broadcast_to(loc_, batch_shape()); }
Tensor Logistic::variance() const {
  return broadcast_to(square(scale_) * (std::numbers::pi * std::numbers::pi / 3), batch_shape());
}

Tensor Logistic::cdf(const Tensor& value) const { return sigmoid((dist::as_dtype(value, dtype()) - loc_) / scale_); }

Tensor Logistic::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  const Tensor q = dist::as_dtype(p, dtype());
  return loc_ + scale_ * (log(q) - log1p(-q));
}
// log(scale) + 2.
Tensor Logistic::entropy() const { return broadcast_to(log(scale_) + 2.0, batch_shape()); }

}  // namespace variate::dist
