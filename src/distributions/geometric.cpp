#include "variate/distributions/geometric.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using dist::detail::ProbsOrLogits;

Geometric::Geometric(const Tensor& param, bool is_logits)
    : Distribution(param.shape(), {}, dist::common_float_type({param})),
      param_(ProbsOrLogits::make("Geometric", param, is_logits, dtype(), ProbsOrLogits::Range::above_zero).param),
      is_logits_(is_logits) {}

Geometric Geometric::from_probs(Tensor probs) { return Geometric(probs, false); }
Geometric Geometric::from_logits(Tensor logits) { return Geometric(logits, true); }

Tensor Geometric::probs_parameter() const { return ProbsOrLogits{param_, is_logits_}.probs(); }
Tensor Geometric::logits_parameter() const { return ProbsOrLogits{param_, is_logits_}.logits(); }
Tensor Geometric::log1m_probs() const { return is_logits_ ? log_sigmoid(-param_) : log1p(-param_); }

Tensor Geometric::sample(random::Key key, const Shape& sample_shape) const {
  // Inversion: P(K >= k) = (1 - p)^k, so K = floor(E / -log(1 - p)) for E ~ Exponential(1). For
  // p = 1, E / inf = 0.
  const Tensor e = random::exponential(key, sample_full_shape(sample_shape), dtype());
  const Tensor rate = -autodiff::stop_gradient(log1m_probs());
  const Tensor draw = floor(e / rate);
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw, {param_});
}

Tensor Geometric::log_prob(const Tensor& value) const {
  const Tensor k = dist::as_dtype(value, dtype());
  const Tensor lp = dist::detail::bernoulli_trials_log_likelihood({param_, is_logits_}, Tensor::scalar(0.0, dtype()),
                                                                  Tensor::scalar(1.0, dtype()), k);
  return dist::mask_outside_support(support(), k, lp);
}

// (1 - p) / p = exp(-logits), and (1 - p) / p^2 = exp(-logits) (1 + exp(-logits)).
Tensor Geometric::mean() const { return is_logits_ ? exp(-param_) : (1.0 - param_) / param_; }
Tensor Geometric::variance() const {
  return is_logits_ ? exp(-param_) * (1.0 + exp(-param_)) : (1.0 - param_) / square(param_);
}

Tensor Geometric::cdf(const Tensor& value) const {
  const Tensor x = dist::as_dtype(value, dtype());
  // -expm1((floor(x) + 1) log(1 - p)) keeps the accuracy of 1 - (1 - p)^(k + 1) for tiny p.
  const Tensor trials = floor(x) + 1.0;
  const Tensor cdf = -expm1(trials * log1m_probs());
  const Tensor zero = Tensor::scalar(0.0, dtype());
  return where(lt(x, zero), zero, cdf);
}

}  // namespace variate::dist
