#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// LogNormal(loc, scale), the law of exp(X) for X ~ Normal(loc, scale), on x > 0:
/// log p(x) = -log(x) - log(scale) - log(2 pi) / 2 - ((log(x) - loc) / scale)^2 / 2.
/// Reference: Stan Functions Reference, "Lognormal distribution"; TFP `tfd.LogNormal`. Samples are
/// reparameterized (exp(loc + scale * eps)).
class LogNormal final : public Distribution {
 public:
  LogNormal(Tensor loc, Tensor scale);
  const char* name() const override { return "LogNormal"; }
  const Tensor& loc() const { return loc_; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::positive(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor entropy() const override;

 private:
  Tensor loc_, scale_;
};

}  // namespace variate::dist
