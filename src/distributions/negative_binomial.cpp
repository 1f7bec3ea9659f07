#include "variate/distributions/negative_binomial.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using dist::detail::ProbsOrLogits;

NegativeBinomial::NegativeBinomial(const Tensor& total_count, const Tensor& param, bool is_logits)
    : Distribution(dist::broadcast_batch("NegativeBinomial", {total_count, param}), {},
                   dist::common_float_type({total_count, param})),
      param_(ProbsOrLogits::make("NegativeBinomial", param, is_logits, dtype(), ProbsOrLogits::Range::below_one).param),
      is_logits_(is_logits) {
  dist::check_positive("NegativeBinomial", "total_count", total_count);
  total_count_ = dist::as_dtype(total_count, dtype());  // keeps a tracked r's gradient
}

NegativeBinomial NegativeBinomial::from_probs(Tensor total_count, Tensor probs) {
  return NegativeBinomial(total_count, probs, false);
}
NegativeBinomial NegativeBinomial::from_logits(Tensor total_count, Tensor logits) {
  return NegativeBinomial(total_count, logits, true);
}

Tensor NegativeBinomial::probs_parameter() const { return ProbsOrLogits{param_, is_logits_}.probs(); }
Tensor NegativeBinomial::logits_parameter() const { return ProbsOrLogits{param_, is_logits_}.logits(); }
Tensor NegativeBinomial::odds() const { return is_logits_ ? exp(param_) : param_ / (1.0 - param_); }

Tensor NegativeBinomial::sample(random::Key key, const Shape& sample_shape) const {
  const Shape shape = sample_full_shape(sample_shape);
  const auto [gamma_key, poisson_key] = random::split(key);
  const Tensor rate =
      random::gamma(gamma_key, autodiff::stop_gradient(total_count_), shape) * autodiff::stop_gradient(odds());
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization",
                                             random::poisson(poisson_key, rate, shape), {total_count_, param_});
}

Tensor NegativeBinomial::log_prob(const Tensor& value) const {
  const Tensor k = dist::as_dtype(value, dtype());
  const Tensor& r = total_count_;
  Tensor log_coefficient;
  {
    const autodiff::NoRecording values;
    log_coefficient = lgamma(k + r) - (lgamma(r) + lgamma(k + 1.0));
  }
  const ProbsOrLogits p{param_, is_logits_};
  const Tensor lp_in_p = dist::detail::bernoulli_trials_log_likelihood(p, log_coefficient, k, r);
  // The dispersion's partial, d/dr = digamma(k + r) - digamma(r) + log(1 - p); a masked value's zero
  // cotangent wins over its (possibly infinite) partial.
  const Tensor lp = autodiff::record(autodiff::stop_gradient(lp_in_p), {lp_in_p, r}, {k, r, p.log1m_p()},
                                     [](const autodiff::BackwardContext& ctx) {
                                       if (ctx.needs_grad(0)) ctx.add(0, ctx.grad());
                                       if (!ctx.needs_grad(1)) return;
                                       const Tensor &k = ctx.saved(0), &r = ctx.saved(1);
                                       const Tensor partial = digamma(k + r) - digamma(r) + ctx.saved(2);
                                       ctx.add(1, dist::detail::times_nonzero(ctx.grad(), partial));
                                     });
  return dist::mask_outside_support(support(), k, lp);
}

Tensor NegativeBinomial::cdf(const Tensor& value) const {
  // At most k successes before the r-th failure means at least r failures in the first k + r
  // trials: P(K <= k) = I_{1-p}(r, k + 1) (DLMF 8.17.5 extended to real r). Below 0 k is replaced by
  // 0 in the branch not taken.
  const Tensor k = floor(dist::as_dtype(value, dtype()));
  const Tensor zero = Tensor::scalar(0.0, dtype());
  const Tensor below = lt(k, zero);
  const Tensor one_minus_p = is_logits_ ? sigmoid(-param_) : 1.0 - param_;
  return where(below, zero, betainc(total_count_, where(below, zero, k) + 1.0, one_minus_p));
}

Tensor NegativeBinomial::mean() const { return broadcast_to(total_count_ * odds(), batch_shape()); }

// r p / (1 - p)^2 = mean / (1 - p) = mean (1 + exp(logits)).
Tensor NegativeBinomial::variance() const {
  const Tensor inverse_failure = is_logits_ ? 1.0 + exp(param_) : 1.0 / (1.0 - param_);
  return broadcast_to(total_count_ * odds() * inverse_failure, batch_shape());
}

}  // namespace variate::dist
