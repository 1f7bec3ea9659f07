#include "variate/distributions/von_mises.hpp"

#include <cmath>
#include <numbers>

#include "distributions/draw_gradients.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

VonMises::VonMises(Tensor loc, Tensor concentration)
    : Distribution(dist::broadcast_batch("VonMises", {loc, concentration}), {},
                   dist::common_float_type({loc, concentration})) {
  dist::check_finite("VonMises", "loc", loc);
  dist::check_positive("VonMises", "concentration", concentration);
  loc_ = dist::as_dtype(loc, dtype());
  concentration_ = dist::as_dtype(concentration, dtype());
}

Constraint VonMises::support() const {
  return Constraint::interval(Tensor::scalar(-std::numbers::pi, dtype()), Tensor::scalar(std::numbers::pi, dtype()));
}

Tensor VonMises::sample(random::Key key, const Shape& sample_shape) const {
  // Centred draws in [-pi, pi], shifted by loc and wrapped back into [-pi, pi).
  const Tensor centred = random::von_mises(key, concentration_, sample_full_shape(sample_shape));
  const Tensor shifted = loc_ + centred;
  const Tensor turns = autodiff::stop_gradient(floor((shifted + std::numbers::pi) / (2 * std::numbers::pi)));
  return dist::detail::without_draw_gradient(name(), "its rejection sampler has no reparameterization in concentration",
                                             shifted - (2 * std::numbers::pi) * turns, {concentration_});
}

Tensor VonMises::log_prob(const Tensor& value) const {
  // One node. With d = x - loc: d lp / dx = -concentration sin(d) = -d lp / dloc, and
  // d lp / dconcentration = cos(d) - I1(concentration) / I0(concentration).
  const Tensor x = dist::as_dtype(value, dtype());
  Tensor sin_d, cos_d;
  auto formula = [&] {
    const Tensor d = x - loc_;
    sin_d = sin(d);
    cos_d = cos(d);
    return concentration_ * cos_d - (log_bessel_i0(concentration_) + std::log(2 * std::numbers::pi));
  };
  // hessian and hvp differentiate the formula's ops: the rule below is first order only.
  if (autodiff::records_second_order()) return dist::mask_outside_support(support(), x, formula());
  Tensor lp;
  {
    const autodiff::NoRecording values;
    lp = formula();
  }
  const Tensor out =
      autodiff::record(lp, {x, loc_, concentration_}, {sin_d, cos_d, concentration_}, [](const BackwardContext& ctx) {
        const Tensor &sin_d = ctx.saved(0), &cos_d = ctx.saved(1), &concentration = ctx.saved(2);
        const Tensor dloc = ctx.grad() * (concentration * sin_d);
        if (ctx.needs_grad(0)) ctx.add(0, -dloc);
        if (ctx.needs_grad(1)) ctx.add(1, dloc);
        if (ctx.needs_grad(2)) ctx.add(2, ctx.grad() * (cos_d - bessel_i1_over_i0(concentration)));
      });
  return dist::mask_outside_support(support(), x, out);
}

Tensor VonMises::mean() const { return broadcast_to(loc_, batch_shape()); }
Tensor VonMises::variance() const { return broadcast_to(1.0 - bessel_i1_over_i0(concentration_), batch_shape()); }

}  // namespace variate::dist
