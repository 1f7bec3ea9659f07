#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Binomial(total_count n, p) on {0, ..., n}: the number of successes in n independent trials,
///   log p(k) = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k log p + (n - k) log(1 - p).
/// Built from `probs` = p or `logits` = log(p / (1 - p)) (stable for large |logits|, as in
/// Bernoulli). total_count is a non-negative integer held in the floating dtype: a gradient of the
/// log density or of a draw with respect to it throws, as does one of a draw in p (discrete). The cdf is I_{1-p}(n - k,
/// k + 1) for 0 <= k < n, differentiable in p's parameter. Reference: TFP tfd.Binomial; Stan Functions Reference,
/// "Binomial distribution".
class Binomial final : public Distribution {
 public:
  static Binomial from_probs(Tensor total_count, Tensor probs);
  static Binomial from_logits(Tensor total_count, Tensor logits);

  const char* name() const override { return "Binomial"; }
  const Tensor& total_count() const { return total_count_; }
  Tensor probs_parameter() const;
  Tensor logits_parameter() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override;
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;

 private:
  Binomial(const Tensor& total_count, const Tensor& param, bool is_logits);
  Tensor total_count_;
  Tensor param_;  // probs or logits
  bool is_logits_;
};

}  // namespace variate::dist
