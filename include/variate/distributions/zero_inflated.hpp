#pragma once
#include <string>

#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// A count law with extra zeros: with probability `gate` the value is 0, otherwise a draw of `base`
/// (any family on the non-negative integers with scalar events: Poisson, NegativeBinomial, Binomial,
/// Geometric, BetaBinomial, ...). One wrapper rather than a family per base, as NumPyro's
/// ZeroInflatedDistribution; ZeroInflatedPoisson and ZeroInflatedNegativeBinomial are the random
/// variables of tracing/random_variables.hpp. With g = gate,
///   log p(0) = log(g + (1 - g) p_base(0)) = logsumexp(log g, log(1 - g) + log p_base(0)),
///   log p(k) = log(1 - g) + log p_base(k) for k > 0,
///   mean (1 - g) m,   variance (1 - g) (v + g m^2)   (m, v the base's mean and variance).
/// Reference: Lambert (1992), "Zero-inflated Poisson regression", Technometrics 34(1); NumPyro
/// ZeroInflatedDistribution. The gate is given as a probability or as logits (log_sigmoid of them,
/// stable for large |logits|); the batch shape is the base's and the gate's broadcast, of which the base's
/// must be the trailing part. The log density
/// is composed of differentiable ops (the base's node, a logsumexp and a where), differentiable in
/// the gate and the base's parameters; a gradient of a draw throws (discrete).
class ZeroInflated final : public Distribution {
 public:
  static ZeroInflated from_probs(DistributionPtr base, Tensor gate);
  static ZeroInflated from_logits(DistributionPtr base, Tensor gate_logits);

  const char* name() const override { return name_.c_str(); }
  const DistributionPtr& base() const { return base_; }
  /// The gate probability, differentiable in the parameter given.
  Tensor gate() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return base_->support(); }
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  ZeroInflated(DistributionPtr base, const Tensor& gate, bool is_logits);
  DistributionPtr base_;
  Tensor param_;  // gate probability or logits
  bool is_logits_;
  std::string name_;  // "ZeroInflated" + the base's name
};

}  // namespace variate::dist
