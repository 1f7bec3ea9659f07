#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Uniform(low, high) on low < x < high: log p(x) = -log(high - low).
/// Reference: Stan Functions Reference, "Uniform distribution"; TFP `tfd.Uniform` (whose support
/// also includes low; here both ends are outside, matching the open interval the default bijector
/// maps onto). Samples are reparameterized (low + (high - low) u).
class Uniform final : public Distribution {
 public:
  Uniform(Tensor low, Tensor high);
  const char* name() const override { return "Uniform"; }
  const Tensor& low() const { return low_; }
  const Tensor& high() const { return high_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::interval(low_, high_); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor icdf(const Tensor& p) const override;
  Tensor entropy() const override;

 private:
  Tensor low_, high_;
};

}  // namespace variate::dist
