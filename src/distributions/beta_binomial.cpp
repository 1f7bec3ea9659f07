#include "variate/distributions/beta_binomial.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/prim_math.hpp"
#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

BetaBinomial::BetaBinomial(Tensor total_count, Tensor concentration1, Tensor concentration0)
    : Distribution(dist::broadcast_batch("BetaBinomial", {total_count, concentration1, concentration0}), {},
                   dist::common_float_type({total_count, concentration1, concentration0})) {
  dist::detail::check_count("BetaBinomial", "total_count", total_count);
  dist::check_positive("BetaBinomial", "concentration1", concentration1);
  dist::check_positive("BetaBinomial", "concentration0", concentration0);
  total_count_ = dist::as_dtype(total_count, dtype());
  concentration1_ = dist::as_dtype(concentration1, dtype());
  concentration0_ = dist::as_dtype(concentration0, dtype());
}

Constraint BetaBinomial::support() const {
  return Constraint::integer_interval(Tensor::scalar(0.0, dtype()), total_count_);
}

Tensor BetaBinomial::sample(random::Key key, const Shape& sample_shape) const {
  const Shape shape = sample_full_shape(sample_shape);
  const auto [beta_key, binomial_key] = random::split(key);
  const Tensor p = random::beta(beta_key, autodiff::stop_gradient(concentration1_),
                                autodiff::stop_gradient(concentration0_), shape);
  const Tensor draw = random::binomial(binomial_key, autodiff::stop_gradient(total_count_), p, shape);
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw,
                                             {total_count_, concentration1_, concentration0_});
}

Tensor BetaBinomial::log_prob(const Tensor& value) const {
  // One node: with s = a + b, d/da = digamma(k + a) - digamma(n + s) - digamma(a) + digamma(s), and
  // the same in b with n - k in place of k. A value outside the support is replaced by 0 first, so
  // that its (masked) partials stay finite.
  namespace pm = dist::pm;
  const Tensor &n = total_count_, &a = concentration1_, &b = concentration0_;
  const Tensor k_raw = prim::cast(value, dtype());
  const Tensor k = pm::inside_or(support(), k_raw, 0.0);
  const Tensor nk = pm::sub(n, k), s = pm::add(a, b);
  auto lbeta = [](const Tensor& x, const Tensor& y) {
    return pm::sub(pm::add(pm::lgamma(x), pm::lgamma(y)), pm::lgamma(pm::add(x, y)));
  };
  const Tensor log_choose = pm::sub(pm::lgamma(pm::add(n, 1.0)),
                                    pm::add(pm::lgamma(pm::add(k, 1.0)), pm::lgamma(pm::add(nk, 1.0))));
  const Tensor lp = pm::add(log_choose, pm::sub(lbeta(pm::add(k, a), pm::add(nk, b)), lbeta(a, b)));
  Tensor out = autodiff::record(lp, {a, b}, {k, nk, a, b, pm::add(n, s)}, [](const BackwardContext& ctx) {
    const Tensor &k = ctx.saved(0), &nk = ctx.saved(1), &a = ctx.saved(2), &b = ctx.saved(3);
    const Tensor common = pm::sub(pm::digamma(pm::add(a, b)), pm::digamma(ctx.saved(4)));
    if (ctx.needs_grad(0))
      ctx.add(0, pm::mul(ctx.grad(), pm::add(common, pm::sub(pm::digamma(pm::add(k, a)), pm::digamma(a)))));
    if (ctx.needs_grad(1))
      ctx.add(1, pm::mul(ctx.grad(), pm::add(common, pm::sub(pm::digamma(pm::add(nk, b)), pm::digamma(b)))));
  });
  out = dist::detail::not_differentiable_in(name(), "total_count", "a count, defined at integers only", out, n);
  return dist::mask_outside_support(support(), k_raw, out);
}

Tensor BetaBinomial::mean() const {
  return broadcast_to(total_count_ * concentration1_ / (concentration1_ + concentration0_), batch_shape());
}

Tensor BetaBinomial::variance() const {
  const Tensor &n = total_count_, &a = concentration1_, &b = concentration0_;
  const Tensor s = a + b;
  return broadcast_to(n * a * b * (s + n) / (square(s) * (s + 1.0)), batch_shape());
}

}  // namespace variate::dist
