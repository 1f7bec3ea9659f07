#include "variate/distributions/poisson.hpp"

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

Tensor checked(const Tensor& param, bool is_log_rate) {
  if (is_log_rate) {
    dist::check_finite("Poisson", "log_rate", param);
  } else {
    dist::check_nonnegative("Poisson", "rate", param);
  }
  return param;
}

}  // namespace

Poisson::Poisson(const Tensor& param, bool is_log_rate)
    : Distribution(param.shape(), {}, dist::common_float_type({param})),
      param_(dist::as_dtype(checked(param, is_log_rate), dtype())),
      is_log_rate_(is_log_rate) {}

Poisson::Poisson(Tensor rate) : Poisson(rate, false) {}
Poisson Poisson::from_log_rate(Tensor log_rate) { return Poisson(log_rate, true); }

Tensor Poisson::rate_parameter() const { return is_log_rate_ ? exp(param_) : param_; }

Tensor Poisson::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor draw = random::poisson(key, autodiff::stop_gradient(rate_parameter()), sample_full_shape(sample_shape));
  return dist::detail::without_draw_gradient(name(), "a discrete law has no reparameterization", draw, {param_});
}

Tensor Poisson::log_prob(const Tensor& value) const {
  // One node: with rate r, d/dr = k / r - 1; with log_rate e, d/de = k - exp(e).
  const Tensor k = dist::as_dtype(value, dtype());
  Tensor rate, lp;
  {
    const autodiff::NoRecording values;
    rate = is_log_rate_ ? exp(param_) : param_;
    const Tensor k_log_rate = is_log_rate_ ? k * param_ : times_nonzero(k, log(param_));
    lp = k_log_rate - rate - lgamma(k + 1.0);
  }
  const bool is_log_rate = is_log_rate_;
  const Tensor out = autodiff::record(lp, {param_}, {k, rate}, [is_log_rate](const BackwardContext& ctx) {
    const Tensor& k = ctx.saved(0);
    const Tensor& rate = ctx.saved(1);
    const Tensor partial = is_log_rate ? k - rate : times_nonzero(k, reciprocal(rate)) - 1.0;
    ctx.add(0, times_nonzero(ctx.grad(), partial));
  });
  return dist::mask_outside_support(support(), k, out);
}

Tensor Poisson::cdf(const Tensor& value) const {
  // P(K <= k) = Q(k + 1, rate) for integer k >= 0 (DLMF §8.4); below 0 the count is replaced by 0
  // in the branch not taken, so that its values and gradients stay finite.
  const Tensor k = floor(dist::as_dtype(value, dtype()));
  const Tensor zero = Tensor::scalar(0.0, dtype());
  const Tensor below = lt(k, zero);
  return where(below, zero, igammac(where(below, zero, k) + 1.0, rate_parameter()));
}

Tensor Poisson::mean() const { return rate_parameter(); }
Tensor Poisson::variance() const { return rate_parameter(); }

}  // namespace variate::dist
