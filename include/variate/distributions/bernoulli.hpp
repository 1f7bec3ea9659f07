#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Bernoulli on {0, 1} with success probability p: log p(x) = x log p + (1 - x) log(1 - p).
/// Built from `probs` = p or from `logits` = log(p / (1 - p)); from logits, log p = log_sigmoid(l)
/// and log(1 - p) = log_sigmoid(-l), accurate for any |l| (1 - sigmoid(40) would round to 0).
/// Reference: TFP tfd.Bernoulli; Stan Functions Reference, "Bernoulli distribution, logit
/// parameterization". Values are floating 0/1 in the parameter's dtype.
class Bernoulli final : public Distribution {
 public:
  static Bernoulli from_probs(Tensor probs);
  static Bernoulli from_logits(Tensor logits);

  const char* name() const override { return "Bernoulli"; }
  /// p and log(p / (1 - p)), differentiable in whichever parameter was given (TFP's
  /// probs_parameter / logits_parameter).
  Tensor probs_parameter() const;
  Tensor logits_parameter() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::boolean(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor entropy() const override;

 private:
  Bernoulli(const Tensor& param, bool is_logits);
  Tensor param_;  // probs or logits
  bool is_logits_;
};

}  // namespace variate::dist
