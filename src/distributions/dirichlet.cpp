#include "variate/distributions/dirichlet.hpp"

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

const Tensor& checked(const Tensor& concentration) {
  dist::detail::check_min_rank("Dirichlet", "concentration", concentration, 1,
                               "(..., K) with the K concentrations last");
  dist::check_positive("Dirichlet", "concentration", concentration);
  return concentration;
}

}  // namespace

Dirichlet::Dirichlet(Tensor concentration)
    // The event size is read only when the rank allows it: argument order is unspecified, and the
    // check must be the one that throws.
    : Distribution(dist::detail::drop_trailing(checked(concentration).shape(), 1),
                   Shape{concentration.rank() > 0 ? concentration.dim(-1) : 0},
                   dist::common_float_type({concentration})),
      concentration_(dist::as_dtype(concentration, dtype())) {}

Tensor Dirichlet::sample(random::Key key, const Shape& sample_shape) const {
  Shape shape = sample_shape;
  for (auto d : batch_shape()) shape.push_back(d);
  // Differentiable in concentration through the gamma draws (draw_gradients.hpp).
  return dist::detail::dirichlet_draw(key, concentration_, shape);
}

Tensor Dirichlet::log_prob(const Tensor& value) const {
  const std::int64_t k = event_shape()[0];
  VARIATE_CHECK(value.rank() >= 1 && value.dim(-1) == k, "Dirichlet", "value must have shape (..., ", k,
                ") with the simplex last, got shape ", value.shape());
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor& alpha = concentration_;
  const int last[] = {-1};
  Tensor log_x, lp;
  {
    const autodiff::NoRecording values;
    const Tensor alpha_m1 = alpha - 1.0;
    const Tensor total = sum(alpha, last);
    log_x = log(x);
    const Tensor log_normalizer = lgamma(total) - sum(lgamma(alpha), last);
    lp = sum(times_nonzero(alpha_m1, log_x), last) + log_normalizer;
  }
  const Tensor out = autodiff::record(lp, {x, alpha}, {x, alpha, log_x}, [](const BackwardContext& ctx) {
    const Tensor g = expand_dims(ctx.grad(), -1);
    const Tensor& x = ctx.saved(0);
    const Tensor& alpha = ctx.saved(1);
    const int last[] = {-1};
    // d/dx_k = (alpha_k - 1) / x_k;  d/dalpha_k = log x_k - digamma(alpha_k) + digamma(sum alpha).
    if (ctx.needs_grad(0)) {
      const Tensor alpha_m1 = alpha - 1.0;
      ctx.add(0, times_nonzero(g, times_nonzero(alpha_m1, reciprocal(x))));
    }
    if (ctx.needs_grad(1)) {
      const Tensor digamma_total = digamma(sum(alpha, last, true));
      const Tensor partial = ctx.saved(2) - digamma(alpha) + digamma_total;
      ctx.add(1, times_nonzero(g, partial));
    }
  });
  return dist::mask_outside_support(support(), x, out);
}

Tensor Dirichlet::mean() const {
  const int last[] = {-1};
  return broadcast_to(concentration_ / sum(concentration_, last, true), sample_full_shape({}));
}

Tensor Dirichlet::variance() const {
  const int last[] = {-1};
  const Tensor total = sum(concentration_, last, true);
  const Tensor v = concentration_ * (total - concentration_) / (square(total) * (total + 1.0));
  return broadcast_to(v, sample_full_shape({}));
}

// log B(alpha) + (a0 - K) digamma(a0) - sum_j (alpha_j - 1) digamma(alpha_j), a0 = sum alpha.
Tensor Dirichlet::entropy() const {
  const int last[] = {-1};
  const Tensor& a = concentration_;
  const Tensor a0 = sum(a, last);
  const double k = double(a.dim(-1));
  return sum(lgamma(a), last) - lgamma(a0) + (a0 - k) * digamma(a0) - sum((a - 1.0) * digamma(a), last);
}

}  // namespace variate::dist
