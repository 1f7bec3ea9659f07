#include "variate/distributions/gamma.hpp"

#include <limits>

#include "distributions/draw_gradients.hpp"
#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Gamma::Gamma(Tensor concentration, Tensor rate)
    : Distribution(dist::broadcast_batch("Gamma", {concentration, rate}), {},
                   dist::common_float_type({concentration, rate})) {
  dist::check_positive("Gamma", "concentration", concentration);
  dist::check_positive("Gamma", "rate", rate);
  concentration_ = dist::as_dtype(concentration, dtype());
  rate_ = dist::as_dtype(rate, dtype());
}

Tensor Gamma::sample(random::Key key, const Shape& sample_shape) const {
  // A tiny standard draw divided by a large rate could underflow to 0, outside the support: clamp
  // at the smallest normal number, as the samplers do. Differentiable in concentration implicitly
  // (draw_gradients.hpp) and in rate pathwise.
  const Tensor g = dist::detail::gamma_draw(key, concentration_, sample_full_shape(sample_shape));
  const double tiny = dtype() == DType::f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
  return maximum(g / rate_, Tensor::scalar(tiny, dtype()));
}

Tensor Gamma::log_prob(const Tensor& value) const {
  // d/dx = (a - 1) / x - b, d/da = log(b) - digamma(a) + log(x), d/db = a / b - x.
  const Tensor &a = concentration_, &b = rate_;
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor safe_x, log_x, log_b;
  auto formula = [&] {
    safe_x = support_mask.inside_or(x, 1.0);
    log_x = log(safe_x);
    log_b = log(b);
    return a * log_b - lgamma(a) + (a - 1.0) * log_x - b * safe_x;
  };
  // hessian and hvp differentiate the formula's ops: the rule below is first order only.
  if (autodiff::records_second_order()) return support_mask.mask(formula());
  Tensor lp;
  {
    const autodiff::NoRecording values;
    lp = formula();
  }
  const Tensor out = autodiff::record(lp, {x, a, b}, {safe_x, log_x, a, b, log_b}, [](const BackwardContext& ctx) {
    const Tensor &x = ctx.saved(0), &log_x = ctx.saved(1), &a = ctx.saved(2), &b = ctx.saved(3);
    if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * ((a - 1.0) / x - b));
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * (ctx.saved(4) - digamma(a) + log_x));
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * (a / b - x));
  });
  return support_mask.mask(out);
}

Tensor Gamma::cdf(const Tensor& value) const {
  return igamma(concentration_, rate_ * dist::as_dtype(value, dtype()));  // 0 for x <= 0
}

Tensor Gamma::mean() const { return broadcast_to(concentration_ / rate_, batch_shape()); }
Tensor Gamma::variance() const { return broadcast_to(concentration_ / square(rate_), batch_shape()); }

// a - log(b) + lgamma(a) + (1 - a) digamma(a).
Tensor Gamma::entropy() const {
  const Tensor& a = concentration_;
  return broadcast_to(a - log(rate_) + lgamma(a) + (1.0 - a) * digamma(a), batch_shape());
}

}  // namespace variate::dist
