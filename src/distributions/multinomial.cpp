#include "variate/distributions/multinomial.hpp"

#include "distributions/draw_gradients.hpp"
#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;
using dist::detail::times_nonzero;

namespace {

constexpr const char* kFamily = "Multinomial";

Shape checked_batch(const Tensor& total_count, const Tensor& param, bool is_logits) {
  const char* role = is_logits ? "logits" : "probs";
  if (is_logits) {
    dist::detail::check_min_rank(kFamily, role, param, 1, "(..., K) with the K logits last");
    dist::check_finite(kFamily, role, param);
  } else {
    dist::detail::check_simplex(kFamily, role, param);
  }
  dist::detail::check_count(kFamily, "total_count", total_count);
  return broadcast_shapes(kFamily, total_count.shape(), dist::detail::drop_trailing(param.shape(), 1));
}

}  // namespace

Multinomial::Multinomial(const Tensor& total_count, const Tensor& param, bool is_logits)
    // The event size is read only when the rank allows it: argument order is unspecified, and the
    // check must be the one that throws.
    : Distribution(checked_batch(total_count, param, is_logits), Shape{param.rank() > 0 ? param.dim(-1) : 0},
                   dist::common_float_type({total_count, param})),
      total_count_(dist::as_dtype(total_count, dtype())),  // a tracked count stays tracked, so it can throw
      param_(dist::as_dtype(param, dtype())),
      is_logits_(is_logits) {}

Multinomial Multinomial::from_probs(Tensor total_count, Tensor probs) { return Multinomial(total_count, probs, false); }
Multinomial Multinomial::from_logits(Tensor total_count, Tensor logits) {
  return Multinomial(total_count, logits, true);
}

Tensor Multinomial::probs_parameter() const { return is_logits_ ? softmax(param_) : param_; }

Tensor Multinomial::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor probs = autodiff::stop_gradient(probs_parameter());
  Shape shape = sample_shape;
  for (auto d : batch_shape()) shape.push_back(d);
  const Tensor draw = random::multinomial(key, autodiff::stop_gradient(total_count_), probs, shape);
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw,
                                             {total_count_, param_});
}

Tensor Multinomial::log_prob(const Tensor& value) const {
  const std::int64_t k = event_shape()[0];
  VARIATE_CHECK(value.rank() >= 1 && value.dim(-1) == k, kFamily, "value must have shape (..., ", k,
                ") with the counts last, got shape ", value.shape());
  const Tensor x = dist::as_dtype(value, dtype());
  Tensor log_probs, lp;
  {
    const autodiff::NoRecording values;
    const int last[] = {-1};
    // With logits the partial of sum x log_softmax(l) is x - sum(x) softmax(l).
    log_probs = is_logits_ ? dist::detail::log_softmax_values(param_) : log(param_);
    const Tensor log_factorials = lgamma(x + 1.0);
    const Tensor log_n_factorial = lgamma(total_count_ + 1.0);
    lp = log_n_factorial - sum(log_factorials, last) + sum(times_nonzero(x, log_probs), last);
  }
  const bool is_logits = is_logits_;
  const Tensor out =
      autodiff::record(lp, {param_}, {is_logits ? log_probs : param_, x}, [is_logits](const BackwardContext& ctx) {
        const Tensor& x = ctx.saved(1);
        const int last[] = {-1};
        const Tensor partial =
            is_logits ? x - sum(x, last, true) * exp(ctx.saved(0)) : times_nonzero(x, reciprocal(ctx.saved(0)));
        ctx.add(0, times_nonzero(expand_dims(ctx.grad(), -1), partial));
      });
  return dist::mask_outside_support(support(), x,
                                    dist::detail::not_differentiable_in(
                                        name(), "total_count", "a count, defined at integers only", out, total_count_));
}

Tensor Multinomial::mean() const {
  return broadcast_to(expand_dims(total_count_, -1) * probs_parameter(), sample_full_shape({}));
}

Tensor Multinomial::variance() const {
  const Tensor p = probs_parameter();
  return broadcast_to(expand_dims(total_count_, -1) * p * (1.0 - p), sample_full_shape({}));
}

}  // namespace variate::dist
