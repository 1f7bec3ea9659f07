#include "variate/distributions/cauchy.hpp"

#include <cmath>
#include <numbers>

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

Cauchy::Cauchy(Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("Cauchy", {loc, scale}), {}, dist::common_float_type({loc, scale})) {
  dist::check_finite("Cauchy", "loc", loc);
  dist::check_positive("Cauchy", "scale", scale);
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor Cauchy::sample(random::Key key, const Shape& sample_shape) const {
  // The ratio of two standard normals is standard Cauchy; the tensor layer has no tan for the
  // inverse cdf.
  const auto [numerator_key, denominator_key] = random::split(key);
  const Shape shape = sample_full_shape(sample_shape);
  const Tensor eps = random::normal(numerator_key, shape, dtype()) / random::normal(denominator_key, shape, dtype());
  return loc_ + scale_ * eps;
}

Tensor Cauchy::log_prob(const Tensor& value) const {
  // With r = 2 z / (1 + z^2): d/dx = -r / scale, d/dloc = r / scale,
  // d/dscale = (r z - 1) / scale.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor z, lp;
  {
    const autodiff::NoRecording values;
    z = (support_mask.inside_or(x, 0.0) - loc_) / scale_;
    // The terms without z first: with a constant scale they are a constant, which a kernel replay
    // does not compute again.
    lp = (-std::log(std::numbers::pi) - log(scale_)) - log1p(square(z));
  }
  const Tensor out = autodiff::record(lp, {x, loc_, scale_}, {z, scale_}, [](const BackwardContext& ctx) {
    const Tensor &z = ctx.saved(0), &scale = ctx.saved(1);
    const Tensor r = z * 2.0 / (square(z) + 1.0);
    const Tensor dloc = ctx.grad() * (r / scale);
    if (ctx.needs_grad(0)) ctx.add(0, -dloc);
    if (ctx.needs_grad(1)) ctx.add(1, dloc);
    if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * ((r * z - 1.0) / scale));
  });
  return support_mask.mask(out);
}

Tensor Cauchy::cdf(const Tensor& value) const {
  // 1/2 + atan(z) / pi cancels in the left tail; there it is atan(-1 / z) / pi (as
  // atan(z) + atan(1 / z) = -pi / 2 for z < 0), with z kept at -1 in the branch not taken so that
  // its gradient stays finite.
  const Tensor z = (dist::as_dtype(value, dtype()) - loc_) / scale_;
  const Tensor minus_one = Tensor::scalar(-1.0, dtype());
  const Tensor left = lt(z, minus_one);
  const Tensor left_tail = atan(-1.0 / where(left, z, minus_one));
  return where(left, left_tail, atan(z) + std::numbers::pi / 2) / std::numbers::pi;
}

Tensor Cauchy::mean() const { variate::detail::fail("Cauchy: the mean does not exist (the tails are too heavy)"); }
Tensor Cauchy::variance() const {
  variate::detail::fail("Cauchy: the variance does not exist (the tails are too heavy)");
}

// log(4 pi scale).
Tensor Cauchy::entropy() const { return broadcast_to(log(scale_ * (4 * std::numbers::pi)), batch_shape()); }

}  // namespace variate::dist
