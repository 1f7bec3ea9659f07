#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Beta(concentration1, concentration0) on 0 < x < 1, with a = concentration1 and
/// b = concentration0: log p(x) = (a - 1) log(x) + (b - 1) log1p(-x) - lbeta(a, b),
/// lbeta(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b).
/// Reference: Stan Functions Reference, "Beta distribution"; TFP `tfd.Beta`. Samples come from
/// random::beta (two gamma draws) and are differentiable in both concentrations through the gamma
/// draws' implicit reparameterization gradients (Figurnov et al. 2018). The cdf is
/// I_x(concentration1, concentration0), differentiable in x; a gradient with respect to a
/// concentration throws.
class Beta final : public Distribution {
 public:
  Beta(Tensor concentration1, Tensor concentration0);
  const char* name() const override { return "Beta"; }
  const Tensor& concentration1() const { return concentration1_; }
  const Tensor& concentration0() const { return concentration0_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::unit_interval(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor entropy() const override;

 private:
  Tensor concentration1_, concentration0_;
};

}  // namespace variate::dist
