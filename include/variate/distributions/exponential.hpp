#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Exponential(rate) on x > 0: log p(x) = log(rate) - rate x.
/// Reference: Stan Functions Reference, "Exponential distribution"; TFP `tfd.Exponential`. Samples
/// are reparameterized (e / rate, e a standard exponential).
class Exponential final : public Distribution {
 public:
  explicit Exponential(Tensor rate);
  const char* name() const override { return "Exponential"; }
  const Tensor& rate() const { return rate_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::positive(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor icdf(const Tensor& p) const override;
  Tensor entropy() const override;

 private:
  Tensor rate_;
};

}  // namespace variate::dist
