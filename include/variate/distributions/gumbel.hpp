#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Gumbel(loc, scale), the type-I extreme value law on the real line: with z = (x - loc) / scale,
///   log p(x) = -(z + exp(-z)) - log(scale),   F(x) = exp(-exp(-z)),
///   mean loc + scale gamma_E, variance (pi scale)^2 / 6, entropy log(scale) + gamma_E + 1.
/// Reference: Stan Functions Reference, "Gumbel distribution"; TFP tfd.Gumbel. Samples are
/// reparameterized (loc - scale log(e), e a standard exponential).
class Gumbel final : public Distribution {
 public:
  Gumbel(Tensor loc, Tensor scale);
  const char* name() const override { return "Gumbel"; }
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
