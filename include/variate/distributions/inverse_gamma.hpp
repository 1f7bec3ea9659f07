#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// InverseGamma(concentration, scale), the law of 1 / X for X ~ Gamma(concentration, scale), on
/// x > 0; with a = concentration and b = scale:
/// log p(x) = a log(b) - lgamma(a) - (a + 1) log(x) - b / x.
/// Reference: Stan Functions Reference, "Inverse gamma distribution"; TFP `tfd.InverseGamma`.
/// Samples are scale / g with g ~ Gamma(concentration, 1): reparameterized in scale, and implicitly
/// in concentration through g (Figurnov et al. 2018). As in TFP, the mean is NaN where concentration <= 1 and the
/// variance NaN where concentration <= 2. The cdf is Q(concentration, scale / x) for x > 0, differentiable in x, scale
/// and concentration.
class InverseGamma final : public Distribution {
 public:
  InverseGamma(Tensor concentration, Tensor scale);
  const char* name() const override { return "InverseGamma"; }
  const Tensor& concentration() const { return concentration_; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::positive(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;

 private:
  Tensor concentration_, scale_;
};

}  // namespace variate::dist
