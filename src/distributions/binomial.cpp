#include "variate/distributions/binomial.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using dist::detail::ProbsOrLogits;

Binomial::Binomial(const Tensor& total_count, const Tensor& param, bool is_logits)
    : Distribution(dist::broadcast_batch("Binomial", {total_count, param}), {},
                   dist::common_float_type({total_count, param})),
      param_(ProbsOrLogits::make("Binomial", param, is_logits, dtype()).param),
      is_logits_(is_logits) {
  dist::detail::check_count("Binomial", "total_count", total_count);
  total_count_ = dist::as_dtype(total_count, dtype());  // keeps a tracked count tracked, so it can throw
}

Binomial Binomial::from_probs(Tensor total_count, Tensor probs) { return Binomial(total_count, probs, false); }
Binomial Binomial::from_logits(Tensor total_count, Tensor logits) { return Binomial(total_count, logits, true); }

Tensor Binomial::probs_parameter() const { return ProbsOrLogits{param_, is_logits_}.probs(); }
Tensor Binomial::logits_parameter() const { return ProbsOrLogits{param_, is_logits_}.logits(); }

Constraint Binomial::support() const {
  return Constraint::integer_interval(Tensor::scalar(0.0, dtype()), total_count_);
}

Tensor Binomial::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor probs = ProbsOrLogits{autodiff::stop_gradient(param_), is_logits_}.probs();
  const Tensor draw =
      random::binomial(key, autodiff::stop_gradient(total_count_), probs, sample_full_shape(sample_shape));
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw,
                                             {total_count_, param_});
}

Tensor Binomial::log_prob(const Tensor& value) const {
  const Tensor k = dist::as_dtype(value, dtype());
  const Tensor& n = total_count_;
  Tensor failures, log_choose;
  {
    const autodiff::NoRecording values;
    failures = n - k;
    auto log_factorial = [](const Tensor& x) { return lgamma(x + 1.0); };
    log_choose = log_factorial(n) - (log_factorial(k) + log_factorial(failures));
  }
  const Tensor lp = dist::detail::not_differentiable_in(
      name(), "total_count", "a count, defined at integers only",
      dist::detail::bernoulli_trials_log_likelihood({param_, is_logits_}, log_choose, k, failures), n);
  return dist::mask_outside_support(support(), k, lp);
}

Tensor Binomial::cdf(const Tensor& value) const {
  // P(K <= k) = I_{1-p}(n - k, k + 1) for integer 0 <= k < n (DLMF 8.17.5 with x = 1 - p); 0 below,
  // 1 from n on, where k is replaced by 0 in the branch not taken.
  const Tensor k = floor(dist::as_dtype(value, dtype()));
  const Tensor zero = Tensor::scalar(0.0, dtype()), one = Tensor::scalar(1.0, dtype());
  const Tensor below = lt(k, zero), above = ge(k, total_count_);
  const Tensor k_inside = where(logical_or(below, above), zero, k);
  const Tensor one_minus_p = is_logits_ ? sigmoid(-param_) : 1.0 - param_;
  const Tensor cdf = betainc(total_count_ - k_inside, k_inside + 1.0, one_minus_p);
  return where(below, zero, where(above, one, cdf));
}

Tensor Binomial::mean() const { return broadcast_to(total_count_ * probs_parameter(), batch_shape()); }

Tensor Binomial::variance() const {
  return broadcast_to(total_count_ * ProbsOrLogits{param_, is_logits_}.probs_times_complement(), batch_shape());
}

}  // namespace variate::dist
