#include "variate/distributions/inverse_gamma.hpp"

#include <cmath>
#include <limits>

#include "distributions/draw_gradients.hpp"
#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

InverseGamma::InverseGamma(Tensor concentration, Tensor scale)
    : Distribution(dist::broadcast_batch("InverseGamma", {concentration, scale}), {},
                   dist::common_float_type({concentration, scale})) {
  dist::check_positive("InverseGamma", "concentration", concentration);
  dist::check_positive("InverseGamma", "scale", scale);
  concentration_ = dist::as_dtype(concentration, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor InverseGamma::sample(random::Key key, const Shape& sample_shape) const {
  // Dividing by a gamma draw near the smallest normal number could overflow to +inf, where the
  // log density is -inf: clamp at the largest finite number. Differentiable in concentration
  // implicitly (draw_gradients.hpp) and in scale pathwise.
  const Tensor g = dist::detail::gamma_draw(key, concentration_, sample_full_shape(sample_shape));
  const double huge = dtype() == DType::f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  return minimum(scale_ / g, Tensor::scalar(huge, dtype()));
}

Tensor InverseGamma::log_prob(const Tensor& value) const {
  // d/dx = (b / x - a - 1) / x, d/da = log(b) - digamma(a) - log(x), d/db = a / b - 1 / x.
  const Tensor &a = concentration_, &b = scale_;
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor log_x, log_b, inv_x, lp;
  {
    const autodiff::NoRecording values;
    const Tensor safe_x = support_mask.inside_or(x, 1.0);
    log_x = log(safe_x);
    log_b = log(b);
    inv_x = reciprocal(safe_x);
    lp = a * log_b - lgamma(a) - (a + 1.0) * log_x - b * inv_x;
  }
  const Tensor out = autodiff::record(lp, {x, a, b}, {inv_x, log_x, a, b, log_b}, [](const BackwardContext& ctx) {
    const Tensor &inv_x = ctx.saved(0), &log_x = ctx.saved(1), &a = ctx.saved(2), &b = ctx.saved(3);
    if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * ((b * inv_x - a - 1.0) * inv_x));
    if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * (ctx.saved(4) - digamma(a) - log_x));
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * (a / b - inv_x));
  });
  return support_mask.mask(out);
}

Tensor InverseGamma::cdf(const Tensor& value) const {
  // 0 for x <= 0, where scale / x is replaced by a finite value so that its gradient stays finite.
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor zero = Tensor::scalar(0.0, dtype());
  const Tensor positive = gt(x, zero);
  return where(positive, igammac(concentration_, scale_ / where(positive, x, Tensor::scalar(1.0, dtype()))), zero);
}

Tensor InverseGamma::mean() const {
  // scale / (concentration - 1) where concentration > 1; the discarded branch divides by a safe
  // value so that its gradient stays finite.
  const Tensor exists = gt(concentration_, Tensor::scalar(1.0, dtype()));
  const Tensor am1 = where(exists, concentration_ - 1.0, Tensor::scalar(1.0, dtype()));
  return broadcast_to(where(exists, scale_ / am1, Tensor::scalar(NAN, dtype())), batch_shape());
}

Tensor InverseGamma::variance() const {
  // scale^2 / ((concentration - 1)^2 (concentration - 2)) where concentration > 2.
  const Tensor exists = gt(concentration_, Tensor::scalar(2.0, dtype()));
  const Tensor a = where(exists, concentration_, Tensor::scalar(3.0, dtype()));
  const Tensor v = square(scale_) / (square(a - 1.0) * (a - 2.0));
  return broadcast_to(where(exists, v, Tensor::scalar(NAN, dtype())), batch_shape());
}

}  // namespace variate::dist
