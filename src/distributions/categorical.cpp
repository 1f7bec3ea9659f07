#include "variate/distributions/categorical.hpp"

#include <cmath>

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

Tensor checked(const Tensor& param, bool is_logits) {
  if (is_logits) {
    dist::detail::check_min_rank("Categorical", "logits", param, 1, "(..., K) with the K logits last");
    // Made with host_check (check_each), so that computed logits are checked again at each replay.
    dist::check_not_nan("Categorical", "logits", param);
    dist::check_each("Categorical", "logits", param, "below +inf", [](double v) { return v < INFINITY; });
  } else {
    dist::detail::check_simplex("Categorical", "probs", param);
  }
  return param;
}

}  // namespace

Categorical::Categorical(const Tensor& param, bool is_logits)
    : Distribution(dist::detail::drop_trailing(checked(param, is_logits).shape(), 1), {}, DType::i64),
      param_(dist::as_dtype(param, float_type(param.dtype()))),
      is_logits_(is_logits) {}

Categorical Categorical::from_probs(Tensor probs) { return Categorical(probs, false); }
Categorical Categorical::from_logits(Tensor logits) { return Categorical(logits, true); }

Tensor Categorical::probs_parameter() const { return is_logits_ ? softmax(param_) : param_; }
Tensor Categorical::logits_parameter() const { return is_logits_ ? log_softmax(param_) : log(param_); }

Constraint Categorical::support() const {
  return Constraint::integer_interval(Tensor::scalar(0.0, param_.dtype()),
                                      Tensor::scalar(double(num_categories() - 1), param_.dtype()));
}

Tensor Categorical::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor param = autodiff::stop_gradient(param_);
  const Tensor logits = is_logits_ ? param : log(param);
  const Tensor draw = random::categorical(key, logits, sample_full_shape(sample_shape));
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw, {param_});
}

Tensor Categorical::log_prob(const Tensor& value) const {
  const DType ft = param_.dtype();
  const Tensor x = dist::as_dtype(value, ft);
  Shape shape = broadcast_shapes("Categorical", x.shape(), batch_shape());
  // Values outside the support index category 0 and are masked to -inf below.
  const Tensor inside = dist::in_support(support(), x);
  Tensor index, log_probs, lp;
  {
    const autodiff::NoRecording values;
    index = expand_dims(broadcast_to(cast(where(inside, x, Tensor::scalar(0.0, ft)), DType::i64), shape), -1);
    shape.push_back(num_categories());
    log_probs = is_logits_ ? dist::detail::log_softmax_values(param_) : log(param_);
    const Tensor picked = squeeze(gather(broadcast_to(log_probs, shape), -1, index), -1);
    // Adding 0 * x gives a NaN value a NaN log density, as arithmetic on x would.
    lp = picked + x * 0.0;
  }
  const std::int64_t k = num_categories();
  const bool is_logits = is_logits_;
  const Tensor out = autodiff::record(
      lp, {param_}, {is_logits ? log_probs : param_, index}, [k, is_logits](const BackwardContext& ctx) {
        // logits: d/dl_j log_softmax(l)[k] = [j == k] - softmax(l)_j;  probs: d/dp_j log p_k = [j == k] / p_k.
        const Tensor selected = one_hot(squeeze(ctx.saved(1), -1), k, ctx.grad().dtype());
        const Tensor partial =
            is_logits ? selected - exp(ctx.saved(0)) : times_nonzero(selected, reciprocal(ctx.saved(0)));
        ctx.add(0, times_nonzero(expand_dims(ctx.grad(), -1), partial));
      });
  return dist::mask_outside_support(support(), x, out);
}

// -sum_k p_k log p_k, with 0 log 0 = 0.
Tensor Categorical::entropy() const {
  const Tensor p = is_logits_ ? softmax(param_) : param_;
  const Tensor zero = Tensor::scalar(0.0, p.dtype());
  // log of 1 where p = 0, so that no 0 * inf reaches the gradient.
  const Tensor log_p = is_logits_ ? log_softmax(param_) : log(where(eq(p, zero), Tensor::scalar(1.0, p.dtype()), p));
  const int last[] = {-1};
  return -sum(where(eq(p, zero), zero, p * where(eq(p, zero), zero, log_p)), last);
}

}  // namespace variate::dist
