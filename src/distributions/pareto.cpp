#include "variate/distributions/pareto.hpp"

#include <cmath>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Pareto::Pareto(Tensor concentration, Tensor scale)
    : Distribution(dist::broadcast_batch("Pareto", {concentration, scale}), {},
                   dist::common_float_type({concentration, scale})) {
  dist::check_positive("Pareto", "concentration", concentration);
  dist::check_positive("Pareto", "scale", scale);
  concentration_ = dist::as_dtype(concentration, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor Pareto::sample(random::Key key, const Shape& sample_shape) const {
  // log(x / m) ~ Exponential(alpha).
  return scale_ * exp(random::exponential(key, sample_full_shape(sample_shape), dtype()) / concentration_);
}

Tensor Pareto::log_prob(const Tensor& value) const {
  // One node: d/dx = -(alpha + 1) / x, d/dalpha = 1 / alpha + log(m) - log(x), d/dm = alpha / m.
  const Tensor &a = concentration_, &m = scale_;
  const Tensor x = dist::as_dtype(value, dtype());
  // The density's support is [m, inf) (Stan, TFP, SciPy): x = m counts, although the support used to
  // pick the bijector, greater_than(m), is open.
  const Tensor inside = ge(x, m);
  Tensor safe_x, log_x, log_m, lp;
  {
    const autodiff::NoRecording values;
    safe_x = where(inside, x, m * 2.0);
    log_x = log(safe_x);
    log_m = log(m);
    lp = log(a) + a * log_m - (a + 1.0) * log_x;
  }
  const Tensor out = autodiff::record(lp, {x, a, m}, {safe_x, a, m, log_m - log_x}, [](const BackwardContext& ctx) {
    const Tensor &x = ctx.saved(0), &a = ctx.saved(1), &m = ctx.saved(2);
    if (ctx.needs_grad(0)) ctx.add(0, -(ctx.grad() * ((a + 1.0) / x)));
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * (reciprocal(a) + ctx.saved(3)));
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * (a / m));
  });
  const Tensor keep = logical_or(inside, ne(x, x));  // NaN stays NaN
  return where(keep, out, Tensor::scalar(-INFINITY, dtype()));
}

Tensor Pareto::mean() const {
  const Tensor& a = concentration_;
  const Tensor inf = Tensor::scalar(INFINITY, dtype());
  return broadcast_to(where(gt(a, Tensor::scalar(1.0, dtype())), a * scale_ / (a - 1.0), inf), batch_shape());
}

Tensor Pareto::variance() const {
  const Tensor& a = concentration_;
  const Tensor inf = Tensor::scalar(INFINITY, dtype());
  return broadcast_to(
      where(gt(a, Tensor::scalar(2.0, dtype())), square(scale_) * a / (square(a - 1.0) * (a - 2.0)), inf),
      batch_shape());
}

Tensor Pareto::cdf(const Tensor& value) const {
  // 1 - (m / x)^alpha = -expm1(alpha log(m / x)) for x >= m; x is clamped at m, giving 0 below.
  const Tensor x = maximum(dist::as_dtype(value, dtype()), scale_);
  return -expm1(concentration_ * log(scale_ / x));
}

Tensor Pareto::icdf(const Tensor& p) const {
  dist::check_probability(name(), "p", p);
  return scale_ * exp(-log1p(-dist::as_dtype(p, dtype())) / concentration_);
}

Tensor Pareto::entropy() const {
  return broadcast_to(log(scale_ / concentration_) + 1.0 / concentration_ + 1.0, batch_shape());
}

}  // namespace variate::dist
