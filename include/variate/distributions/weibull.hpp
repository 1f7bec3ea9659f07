#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Weibull(concentration, scale) on x > 0; with k = concentration, s = scale and
/// t = log(x / s): log p(x) = log(k) - log(s) + (k - 1) t - exp(k t).
/// Reference: Stan Functions Reference, "Weibull distribution"; TFP `tfd.Weibull`. Samples are
/// reparameterized (scale * e^(1 / concentration), e a standard exponential).
class Weibull final : public Distribution {
 public:
  Weibull(Tensor concentration, Tensor scale);
  const char* name() const override { return "Weibull"; }
  const Tensor& concentration() const { return concentration_; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::positive(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor icdf(const Tensor& p) const override;
  Tensor entropy() const override;

 private:
  Tensor concentration_, scale_;
};

}  // namespace variate::dist
