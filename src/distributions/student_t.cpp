#include "variate/distributions/student_t.hpp"

#include <cmath>
#include <numbers>

#include "distributions/draw_gradients.hpp"
#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

using autodiff::BackwardContext;

StudentT::StudentT(Tensor df, Tensor loc, Tensor scale)
    : Distribution(dist::broadcast_batch("StudentT", {df, loc, scale}), {}, dist::common_float_type({df, loc, scale})) {
  dist::check_positive("StudentT", "df", df);
  dist::check_finite("StudentT", "loc", loc);
  dist::check_positive("StudentT", "scale", scale);
  df_ = dist::as_dtype(df, dtype());
  loc_ = dist::as_dtype(loc, dtype());
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor StudentT::sample(random::Key key, const Shape& sample_shape) const {
  // chi2(df) / df = Gamma(df / 2, 1) / (df / 2); the gamma draw is clamped positive, so the ratio
  // is finite. Differentiable in df through the gamma draw's implicit gradient (draw_gradients.hpp).
  const auto [normal_key, gamma_key] = random::split(key);
  const Shape shape = sample_full_shape(sample_shape);
  const Tensor half_df = df_ * 0.5;
  const Tensor g = dist::detail::gamma_draw(gamma_key, half_df, shape);
  const Tensor t = random::normal(normal_key, shape, dtype()) / sqrt(g / half_df);
  return loc_ + scale_ * t;
}

Tensor StudentT::log_prob(const Tensor& value) const {
  // With z = (x - loc) / scale and w = (df + 1) / (df + z^2):
  //   d/dx = -w z / scale,  d/dloc = w z / scale,  d/dscale = (w z^2 - 1) / scale,
  //   d/ddf = (digamma((df + 1) / 2) - digamma(df / 2) - 1 / df - log1p(z^2 / df) + w z^2 / df) / 2.
  const Tensor x = dist::as_dtype(value, dtype());
  const dist::SupportMask support_mask(support(), x);
  Tensor z, log1p_z2_df;
  auto formula = [&] {
    z = (support_mask.inside_or(x, 0.0) - loc_) / scale_;
    const Tensor z2 = square(z);
    const Tensor half_df_plus_1 = (df_ + 1.0) * 0.5;
    log1p_z2_df = log1p(z2 / df_);
    const Tensor norm = lgamma(half_df_plus_1) - lgamma(df_ * 0.5) - (log(df_) * 0.5 + log(scale_));
    return norm - (0.5 * std::log(std::numbers::pi)) - half_df_plus_1 * log1p_z2_df;
  };
  // hessian and hvp differentiate the formula's ops: the rule below is first order only.
  if (autodiff::records_second_order()) return support_mask.mask(formula());
  Tensor lp;
  {
    const autodiff::NoRecording values;
    lp = formula();
  }
  const Tensor out =
      autodiff::record(lp, {x, df_, loc_, scale_}, {z, df_, scale_, log1p_z2_df}, [](const BackwardContext& ctx) {
        const Tensor &z = ctx.saved(0), &df = ctx.saved(1), &scale = ctx.saved(2);
        const Tensor z2 = square(z);
        const Tensor w = (df + 1.0) / (df + z2);
        const Tensor dloc = ctx.grad() * (w * z / scale);
        if (ctx.needs_grad(0)) ctx.add(0, -dloc);
        if (ctx.needs_grad(1)) {
          const Tensor psi = digamma((df + 1.0) * 0.5) - digamma(df * 0.5);
          const Tensor rest = (w * z2 - 1.0) / df - ctx.saved(3);
          ctx.add(1, ctx.grad() * ((psi + rest) * 0.5));
        }
        if (ctx.needs_grad(2)) ctx.add(2, dloc);
        if (ctx.needs_grad(3)) ctx.add(3, ctx.grad() * ((w * z2 - 1.0) / scale));
      });
  return support_mask.mask(out);
}

Tensor StudentT::cdf(const Tensor& value) const {
  // Both tails, P(|T| > |z|) = I_{df / (df + z^2)}(df / 2, 1 / 2), as in TFP. Where df >> z^2 that
  // argument rounds near 1, and the result loses about eps * df / 10 (relative, measured against
  // Boost). One minus the central mass I_{z^2 / (df + z^2)}(1 / 2, df / 2) (DLMF 8.17.4), whose
  // argument keeps its digits, loses eps / tails instead: it is used where z^2 < df and
  // df * tails > 10. z^2 is replaced by 0 outside z^2 < df, where the central form is not used, so
  // that it stays finite for z = +-inf.
  const Tensor z = (dist::as_dtype(value, dtype()) - loc_) / scale_;
  const Tensor z2 = square(z), zero = Tensor::scalar(0.0, dtype()), half = Tensor::scalar(0.5, dtype());
  const Tensor inner = lt(z2, df_);
  const Tensor inner_z2 = where(inner, z2, zero);
  const Tensor tails_from_center = 1.0 - betainc(half, df_ * 0.5, inner_z2 / (df_ + inner_z2));
  const Tensor use_center = logical_and(inner, gt(tails_from_center * df_, Tensor::scalar(10.0, dtype())));
  const Tensor tails = where(use_center, tails_from_center, betainc(df_ * 0.5, half, df_ / (df_ + z2)));
  return where(gt(z, zero), 1.0 - 0.5 * tails, 0.5 * tails);
}

Tensor StudentT::mean() const {
  const Tensor exists = gt(df_, Tensor::scalar(1.0, dtype()));
  return broadcast_to(where(exists, loc_, Tensor::scalar(NAN, dtype())), batch_shape());
}

Tensor StudentT::variance() const {
  // scale^2 df / (df - 2) for df > 2; the denominator is kept away from 0 elsewhere so that
  // gradients through the discarded branch stay finite.
  const Tensor two = Tensor::scalar(2.0, dtype());
  const Tensor finite = gt(df_, two);
  const Tensor safe_df = where(finite, df_, Tensor::scalar(3.0, dtype()));
  const Tensor v = square(scale_) * safe_df / (safe_df - 2.0);
  const Tensor undefined =
      where(gt(df_, Tensor::scalar(1.0, dtype())), Tensor::scalar(INFINITY, dtype()), Tensor::scalar(NAN, dtype()));
  return broadcast_to(where(finite, v, undefined), batch_shape());
}

// (df + 1) / 2 (digamma((df + 1) / 2) - digamma(df / 2)) + log(sqrt(df) B(df / 2, 1 / 2)) + log(scale).
Tensor StudentT::entropy() const {
  const Tensor h = df_ * 0.5, h1 = (df_ + 1.0) * 0.5;
  const Tensor log_beta = lgamma(h) + std::lgamma(0.5) - lgamma(h1);
  return broadcast_to(h1 * (digamma(h1) - digamma(h)) + 0.5 * log(df_) + log_beta + log(scale_), batch_shape());
}

}  // namespace variate::dist
