#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Cauchy(loc, scale) on the real line, with z = (x - loc) / scale:
/// log p(x) = -log(pi) - log(scale) - log1p(z^2).
/// Reference: Stan Functions Reference, "Cauchy distribution"; TFP `tfd.Cauchy`. Samples are
/// reparameterized (loc + scale * eps1 / eps2, a ratio of standard normals). The mean and the
/// variance do not exist: they throw. The cdf is 1/2 + atan(z) / pi.
class Cauchy final : public Distribution {
 public:
  Cauchy(Tensor loc, Tensor scale);
  const char* name() const override { return "Cauchy"; }
  const Tensor& loc() const { return loc_; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::real(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor entropy() const override;

 private:
  Tensor loc_, scale_;
};

}  // namespace variate::dist
