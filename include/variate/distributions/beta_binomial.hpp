#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// BetaBinomial(total_count n, concentration1 a, concentration0 b) on {0, ..., n}: a Binomial(n, p)
/// count with p ~ Beta(a, b),
///   log p(k) = log C(n, k) + lbeta(k + a, n - k + b) - lbeta(a, b),
///   mean n a / (a + b),   variance n a b (a + b + n) / ((a + b)^2 (a + b + 1)).
/// Reference: Stan Functions Reference, "Beta-binomial distribution"; TFP tfd.BetaBinomial.
/// The log density is one node, differentiable in a and b; total_count is a count held in the
/// floating dtype, and a gradient with respect to it (or of a draw) throws.
class BetaBinomial final : public Distribution {
 public:
  BetaBinomial(Tensor total_count, Tensor concentration1, Tensor concentration0);
  const char* name() const override { return "BetaBinomial"; }
  const Tensor& total_count() const { return total_count_; }
  const Tensor& concentration1() const { return concentration1_; }
  const Tensor& concentration0() const { return concentration0_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override;
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  Tensor total_count_, concentration1_, concentration0_;
};

}  // namespace variate::dist
