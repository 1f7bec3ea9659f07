#include "variate/distributions/beta.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/prim_math.hpp"
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
  namespace pm = dist::pm;
  const Tensor &a = concentration1_, &b = concentration0_;
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor safe_x = pm::inside_or(support(), x, 0.5);
  const Tensor log_x = pm::log(safe_x), log1m_x = pm::log1p(pm::neg(safe_x));
  const Tensor lbeta = pm::sub(pm::add(pm::lgamma(a), pm::lgamma(b)), pm::lgamma(pm::add(a, b)));
  const Tensor lp = pm::sub(pm::add(pm::mul(pm::sub(a, 1.0), log_x), pm::mul(pm::sub(b, 1.0), log1m_x)), lbeta);
  const Tensor out = autodiff::record(lp, {x, a, b}, {safe_x, log_x, log1m_x, a, b}, [](const BackwardContext& ctx) {
    const Tensor &x = ctx.saved(0), &a = ctx.saved(3), &b = ctx.saved(4);
    if (ctx.needs_grad(0)) {
      const Tensor d = pm::sub(pm::div(pm::sub(a, 1.0), x), pm::div(pm::sub(b, 1.0), pm::sub(1.0, x)));
      ctx.add(0, pm::mul(ctx.grad(), d));
    }
    if (!ctx.needs_grad(1) && !ctx.needs_grad(2)) return;
    const Tensor psi_ab = pm::digamma(pm::add(a, b));
    if (ctx.needs_grad(1)) ctx.add(1, pm::mul(ctx.grad(), pm::add(pm::sub(ctx.saved(1), pm::digamma(a)), psi_ab)));
    if (ctx.needs_grad(2)) ctx.add(2, pm::mul(ctx.grad(), pm::add(pm::sub(ctx.saved(2), pm::digamma(b)), psi_ab)));
  });
  return dist::mask_outside_support(support(), x, out);
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
  return broadcast_to(lgamma(a) + lgamma(b) - lgamma(s) - (a - 1.0) * digamma(a) - (b - 1.0) * digamma(b) +
                          (s - 2.0) * digamma(s),
                      batch_shape());
}

}  // namespace variate::dist
