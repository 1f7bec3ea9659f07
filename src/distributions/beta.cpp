#include "variate/distributions/beta.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Beta::Beta(Tensor concentration1, Tensor concentration0)
    : Distribution(dist::broadcast_batch("Beta", {concentration1, concentration0}), {},
                   dist::common_float_type({concentration1, concentration0})) {
  dist::check_positive("Beta", "concentration1", concentration1);
  dist::check_positive("Beta", "concentration0", concentration0);
  concentration1_ = dist::as_dtype(concentration1, dtype());
  concentration0_ = dist::as_dtype(concentration0, dtype());
}

Tensor Beta::sample(random::Key key, const Shape& sample_shape) const {
  // Differentiable in both concentrations through the two gamma draws (draw_gradients.hpp).
  return dist::detail::beta_draw(key, concentration1_, concentration0_, sample_full_shape(sample_shape));
}

Tensor Beta::log_prob(const Tensor& value) const {
  // d/dx = (a - 1) / x - (b - 1) / (1 - x), d/da = log(x) - digamma(a) + digamma(a + b),
  // d/db = log1p(-x) - digamma(b) + digamma(a + b).
  const Tensor &a = concentration1_, &b = concentration0_;
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor safe_x, log_x, log1m_x;
  auto formula = [&] {
    safe_x = support_mask.inside_or(x, 0.5);
    log_x = log(safe_x);
    log1m_x = log1p(-safe_x);
    const Tensor lbeta = lgamma(a) + lgamma(b) - lgamma(a + b);
    return (a - 1.0) * log_x + (b - 1.0) * log1m_x - lbeta;
  };
  // hessian and hvp differentiate the formula's ops: the rule below is first order only.
  if (autodiff::records_second_order()) return support_mask.mask(formula());
  Tensor lp;
  {
    const autodiff::NoRecording values;
    lp = formula();
  }
  const Tensor out = autodiff::record(lp, {x, a, b}, {safe_x, log_x, log1m_x, a, b}, [](const BackwardContext& ctx) {
    const Tensor &x = ctx.saved(0), &a = ctx.saved(3), &b = ctx.saved(4);
    if (ctx.needs_grad(0)) {
      const Tensor d = (a - 1.0) / x - (b - 1.0) / (1.0 - x);
      ctx.add(0, ctx.grad() * d);
    }
    if (!ctx.needs_grad(1) && !ctx.needs_grad(2)) return;
    const Tensor psi_ab = digamma(a + b);
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * (ctx.saved(1) - digamma(a) + psi_ab));
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * (ctx.saved(2) - digamma(b) + psi_ab));
  });
  return support_mask.mask(out);
}

Tensor Beta::cdf(const Tensor& value) const {
  return betainc(concentration1_, concentration0_, dist::as_dtype(value, dtype()));  // 0 below 0, 1 above 1
}

Tensor Beta::mean() const { return broadcast_to(concentration1_ / (concentration1_ + concentration0_), batch_shape()); }

Tensor Beta::variance() const {
  const Tensor total = concentration1_ + concentration0_;
  return broadcast_to(concentration1_ * concentration0_ / (square(total) * (total + 1.0)), batch_shape());
}

// lbeta(a, b) - (a - 1) digamma(a) - (b - 1) digamma(b) + (a + b - 2) digamma(a + b).
Tensor Beta::entropy() const {
  const Tensor &a = concentration1_, &b = concentration0_;
  const Tensor s = a + b;
  return broadcast_to(
      lgamma(a) + lgamma(b) - lgamma(s) - (a - 1.0) * digamma(a) - (b - 1.0) * digamma(b) + (s - 2.0) * digamma(s),
      batch_shape());
}

}  // namespace variate::dist
