#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Laplace(loc, scale) on the real line: log p(x) = -log(2 scale) - |x - loc| / scale.
/// Reference: Stan Functions Reference, "Double exponential (Laplace) distribution"; TFP
/// `tfd.Laplace`. Samples are reparameterized (loc + scale * (e1 - e2), a difference of standard
/// exponentials). At x = loc the partials of x and loc are the subgradient 0.
class Laplace final : public Distribution {
 public:
  Laplace(Tensor loc, Tensor scale);
  const char* name() const override { return "Laplace"; }
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
