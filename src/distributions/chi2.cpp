#include "variate/distributions/chi2.hpp"

#include <numbers>

#include "distributions/draw_gradients.hpp"
#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Chi2::Chi2(Tensor df) : Distribution(dist::broadcast_batch("Chi2", {df}), {}, dist::common_float_type({df})) {
  dist::check_positive("Chi2", "df", df);
  df_ = dist::as_dtype(df, dtype());
}

Tensor Chi2::sample(random::Key key, const Shape& sample_shape) const {
  // 2 Gamma(df / 2, 1), differentiable in df implicitly (draw_gradients.hpp).
  return 2.0 * dist::detail::gamma_draw(key, df_ * 0.5, sample_full_shape(sample_shape));
}

Tensor Chi2::log_prob(const Tensor& value) const {
  // With h = df / 2: d/dx = (h - 1) / x - 1 / 2, d/ddf = (log(x) - log(2) - digamma(h)) / 2.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor safe_x, h, log_x, lp;
  {
    const autodiff::NoRecording values;
    safe_x = support_mask.inside_or(x, 1.0);
    h = df_ * 0.5;
    log_x = log(safe_x);
    lp = (h - 1.0) * log_x - safe_x * 0.5 - (h * std::numbers::ln2 + lgamma(h));
  }
  const Tensor out = autodiff::record(lp, {x, df_}, {safe_x, log_x, h}, [](const BackwardContext& ctx) {
    const Tensor &x = ctx.saved(0), &log_x = ctx.saved(1), &h = ctx.saved(2);
    if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * ((h - 1.0) / x - 0.5));
    if (ctx.needs_grad(1)) {
      const Tensor d = (log_x - std::numbers::ln2 - digamma(h)) * 0.5;
      ctx.add(1, ctx.grad() * d);
    }
  });
  return support_mask.mask(out);
}

Tensor Chi2::cdf(const Tensor& value) const {
  return igamma(df_ * 0.5, dist::as_dtype(value, dtype()) * 0.5);  // 0 for x <= 0
}

Tensor Chi2::mean() const { return broadcast_to(df_, batch_shape()); }
Tensor Chi2::variance() const { return broadcast_to(2.0 * df_, batch_shape()); }

}  // namespace variate::dist
