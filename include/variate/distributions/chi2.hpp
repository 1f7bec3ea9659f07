#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Chi2(df), the Gamma(df / 2, rate 1 / 2) law, on x > 0; with h = df / 2:
/// log p(x) = -h log(2) - lgamma(h) + (h - 1) log(x) - x / 2.
/// Reference: Stan Functions Reference, "Chi-square distribution"; TFP `tfd.Chi2`. Samples are
/// 2 g with g ~ Gamma(df / 2, 1), differentiable in df through g's implicit reparameterization
/// gradient (Figurnov et al. 2018). The cdf is P(df / 2, x / 2), differentiable in x and df.
class Chi2 final : public Distribution {
 public:
  explicit Chi2(Tensor df);
  const char* name() const override { return "Chi2"; }
  const Tensor& df() const { return df_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::positive(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;

 private:
  Tensor df_;
};

}  // namespace variate::dist
