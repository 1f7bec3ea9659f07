#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Poisson(rate) on {0, 1, ...}: log p(k) = k log(rate) - rate - lgamma(k + 1).
/// Built from `rate` >= 0 (rate 0 is the point mass at 0, with 0 log 0 = 0) or, via from_log_rate,
/// from log(rate), which keeps the density and its gradient finite where the rate underflows.
/// The cdf at k >= 0 is Q(floor(k) + 1, rate), differentiable in the rate. A gradient of a draw
/// with respect to the rate throws (a discrete law has no reparameterization).
/// Reference: TFP tfd.Poisson; Stan Functions Reference, "Poisson distribution" (poisson_log).
class Poisson final : public Distribution {
 public:
  explicit Poisson(Tensor rate);
  static Poisson from_log_rate(Tensor log_rate);

  const char* name() const override { return "Poisson"; }
  /// The rate, differentiable in whichever parameter was given.
  Tensor rate_parameter() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::nonnegative_integer(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;

 private:
  Poisson(const Tensor& param, bool is_log_rate);
  Tensor param_;  // rate or log_rate
  bool is_log_rate_;
};

}  // namespace variate::dist
