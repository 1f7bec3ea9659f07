#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Logistic(loc, scale) on the real line, with z = (x - loc) / scale:
/// log p(x) = -z - log(scale) - 2 log1p(exp(-z)).
/// Reference: Stan Functions Reference, "Logistic distribution"; TFP `tfd.Logistic`. Samples are
/// reparameterized (loc + scale * log(e1 / e2), e1 and e2 standard exponentials).
class Logistic final : public Distribution {
 public:
  Logistic(Tensor loc, Tensor scale);
  const char* name() const override { return "Logistic"; }
  const Tensor& loc() const { return loc_; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::real(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor icdf(const Tensor& p) const override;
  Tensor entropy() const override;

 private:
  Tensor loc_, scale_;
};

}  // namespace variate::dist
