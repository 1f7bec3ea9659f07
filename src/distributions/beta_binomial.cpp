#include "variate/distributions/beta_binomial.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/probs_or_logits.hpp"
#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
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
  const Tensor p =
      random::beta(beta_key, autodiff::stop_gradient(concentration1_), autodiff::stop_gradient(concentration0_), shape);
  const Tensor draw = random::binomial(binomial_key, autodiff::stop_gradient(total_count_), p, shape);
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw,
                                             {total_count_, concentration1_, concentration0_});
}

Tensor BetaBinomial::log_prob(const Tensor& value) const {
  // One node: with s = a + b, d/da = digamma(k + a) - digamma(n + s) - digamma(a) + digamma(s), and
  // the same in b with n - k in place of k. A value outside the support is replaced by 0 first, so
  // that its (masked) partials stay finite.
  const Tensor &n = total_count_, &a = concentration1_, &b = concentration0_;
  const Tensor k_raw = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), k_raw);
  Tensor k, nk, n_plus_s, lp;
  {
    const autodiff::NoRecording values;
    k = support_mask.inside_or(k_raw, 0.0);
    nk = n - k;
    const Tensor s = a + b;
    n_plus_s = n + s;
    auto lbeta = [](const Tensor& x, const Tensor& y) { return lgamma(x) + lgamma(y) - lgamma(x + y); };
    const Tensor log_choose = lgamma(n + 1.0) - (lgamma(k + 1.0) + lgamma(nk + 1.0));
    lp = log_choose + (lbeta(k + a, nk + b) - lbeta(a, b));
  }
  Tensor out = autodiff::record(lp, {a, b}, {k, nk, a, b, n_plus_s}, [](const BackwardContext& ctx) {
    const Tensor &k = ctx.saved(0), &nk = ctx.saved(1), &a = ctx.saved(2), &b = ctx.saved(3);
    const Tensor common = digamma(a + b) - digamma(ctx.saved(4));
    if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * (common + (digamma(k + a) - digamma(a))));
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * (common + (digamma(nk + b) - digamma(b))));
  });
  out = dist::detail::not_differentiable_in(name(), "total_count", "a count, defined at integers only", out, n);
  return support_mask.mask(out);
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
