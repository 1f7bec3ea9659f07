#include "variate/distributions/bernoulli.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using dist::detail::ProbsOrLogits;

Bernoulli::Bernoulli(const Tensor& param, bool is_logits)
    : Distribution(param.shape(), {}, dist::common_float_type({param})),
      param_(ProbsOrLogits::make("Bernoulli", param, is_logits, dtype()).param),
      is_logits_(is_logits) {}

Bernoulli Bernoulli::from_probs(Tensor probs) { return Bernoulli(probs, false); }
Bernoulli Bernoulli::from_logits(Tensor logits) { return Bernoulli(logits, true); }

Tensor Bernoulli::probs_parameter() const { return ProbsOrLogits{param_, is_logits_}.probs(); }
Tensor Bernoulli::logits_parameter() const { return ProbsOrLogits{param_, is_logits_}.logits(); }

Tensor Bernoulli::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor probs = ProbsOrLogits{autodiff::stop_gradient(param_), is_logits_}.probs();
  const Tensor draw = random::bernoulli(key, probs, sample_full_shape(sample_shape));
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw, {param_});
}

Tensor Bernoulli::log_prob(const Tensor& value) const {
  // Values are data, not differentiable: one node with the partial in probs or logits.
  const Tensor x = dist::as_dtype(value, dtype());
  if (is_logits_) {
    // One pass each way instead of a dozen (the terms, their support mask and the partial), the
    // same values (matrix factorization over MovieLens-100K: 1.6M Bernoulli terms per gradient).
    const Tensor lp = prim::binary(BinaryOp::bernoulli_logit_log_prob, param_, x);
    return autodiff::record(lp, {param_}, {param_, x}, [](const autodiff::BackwardContext& ctx) {
      const Tensor score = prim::binary(BinaryOp::bernoulli_logit_score, ctx.saved(0), ctx.saved(1));
      ctx.add(0, dist::detail::times_nonzero(ctx.grad(), score));
    });
  }
  const Tensor not_x = 1.0 - autodiff::stop_gradient(x);
  const Tensor lp =
      dist::detail::bernoulli_trials_log_likelihood({param_, false}, Tensor::scalar(0.0, dtype()), x, not_x);
  return dist::mask_outside_support(support(), x, lp);
}

Tensor Bernoulli::mean() const { return probs_parameter(); }

Tensor Bernoulli::variance() const { return ProbsOrLogits{param_, is_logits_}.probs_times_complement(); }

Tensor Bernoulli::cdf(const Tensor& value) const {
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor one_minus_p = is_logits_ ? sigmoid(-param_) : 1.0 - param_;
  const Tensor zero = Tensor::scalar(0.0, dtype()), one = Tensor::scalar(1.0, dtype());
  const Tensor cdf = where(lt(x, zero), zero, where(lt(x, one), one_minus_p, one));
  return where(ne(x, x), x, cdf);  // NaN stays NaN
}

// -p log p - (1 - p) log(1 - p) = -(p log_sigmoid(l) + (1 - p) log_sigmoid(-l)) with l the logits
// (stable for large |l|), and 0 at p = 0 or 1.
Tensor Bernoulli::entropy() const {
  const Tensor p = probs_parameter();
  const Tensor l = logits_parameter();
  const Tensor zero = Tensor::scalar(0.0, p.dtype()), one = Tensor::scalar(1.0, p.dtype());
  const Tensor safe_l = where(logical_or(eq(p, zero), eq(p, one)), zero, l);
  const Tensor h = -(p * log_sigmoid(safe_l) + (1.0 - p) * log_sigmoid(-safe_l));
  return broadcast_to(where(logical_or(eq(p, zero), eq(p, one)), zero, h), batch_shape());
}

}  // namespace variate::dist
