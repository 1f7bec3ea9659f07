#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Normal(loc, scale): log p(x) = -((x - loc) / scale)^2 / 2 - log(scale) - log(2 pi) / 2.
/// Reference: Stan Functions Reference, "Normal distribution". Samples are reparameterized
/// (loc + scale * eps), so they are differentiable in the parameters.
class Normal final : public Distribution {
 public:
  Normal(Tensor loc, Tensor scale);
  const char* name() const override { return "Normal"; }
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
  bool standard_;  // loc and scale are the constants 0 and 1: z is the value itself
};

}  // namespace variate::dist
