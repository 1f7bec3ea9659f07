#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Gamma(concentration, rate) on x > 0, with a = concentration and b = rate:
/// log p(x) = a log(b) - lgamma(a) + (a - 1) log(x) - b x.
/// Reference: Stan Functions Reference, "Gamma distribution"; TFP `tfd.Gamma`. Samples are
/// g / rate with g ~ Gamma(concentration, 1) (Marsaglia & Tsang): reparameterized in rate, and
/// implicitly in concentration (Figurnov et al. 2018: dg/da = -(dP(a, g)/da) / p(g; a)). The cdf
/// is P(concentration, rate x), differentiable in x, rate and concentration.
class Gamma final : public Distribution {
 public:
  Gamma(Tensor concentration, Tensor rate);
  const char* name() const override { return "Gamma"; }
  const Tensor& concentration() const { return concentration_; }
  const Tensor& rate() const { return rate_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::positive(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor entropy() const override;

 private:
  Tensor concentration_, rate_;
};

}  // namespace variate::dist
