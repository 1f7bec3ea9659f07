#include "variate/distributions/exponential.hpp"

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Exponential::Exponential(Tensor rate)
    : Distribution(dist::broadcast_batch("Exponential", {rate}), {}, dist::common_float_type({rate})) {
  dist::check_positive("Exponential", "rate", rate);
  rate_ = dist::as_dtype(rate, dtype());
}

Tensor Exponential::sample(random::Key key, const Shape& sample_shape) const {
  return random::exponential(key, sample_full_shape(sample_shape), dtype()) / rate_;
}

Tensor Exponential::log_prob(const Tensor& value) const {
  // d/dx = -rate, d/drate = 1 / rate - x.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor safe_x, lp;
  {
    const autodiff::NoRecording values;
    safe_x = support_mask.inside_or(x, 1.0);
    lp = log(rate_) - rate_ * safe_x;
  }
  const Tensor out = autodiff::record(lp, {x, rate_}, {safe_x, rate_}, [](const BackwardContext& ctx) {
    const Tensor &x = ctx.saved(0), &rate = ctx.saved(1);
    if (ctx.needs_grad(0)) ctx.add(0, -(ctx.grad() * rate));
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * (reciprocal(rate) - x));
  });
  return support_mask.mask(out);
}

Tensor Exponential::mean() const { return broadcast_to(reciprocal(rate_), batch_shape()); }
Tensor Exponential::variance() const { return broadcast_to(reciprocal(square(rate_)), batch_shape()); }

Tensor Exponential::cdf(const Tensor& value) const {
  // 1 - exp(-rate x) for x >= 0, with expm1 for small rate x; clamping x at 0 gives 0 below.
  const Tensor x = dist::as_dtype(value, dtype());
  return -expm1(-rate_ * maximum(x, Tensor::scalar(0.0, dtype())));
}

Tensor Exponential::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  return -log1p(-dist::as_dtype(p, dtype())) / rate_;
}
// 1 - log(rate).
Tensor Exponential::entropy() const { return broadcast_to(1.0 - log(rate_), batch_shape()); }

}  // namespace variate::dist
