#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Geometric(p) on {0, 1, ...}, TFP's convention: the number of failures before the first success
/// in independent trials with success probability p,
///   log p(k) = k log(1 - p) + log p,   mean (1 - p) / p,   variance (1 - p) / p^2.
/// Built from `probs` = p in (0, 1] or `logits` = log(p / (1 - p)) (stable for large |logits|).
/// Reference: TFP tfd.Geometric. (Boost's geometric_distribution counts failures the same way.)
class Geometric final : public Distribution {
 public:
  static Geometric from_probs(Tensor probs);
  static Geometric from_logits(Tensor logits);

  const char* name() const override { return "Geometric"; }
  Tensor probs_parameter() const;
  Tensor logits_parameter() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::nonnegative_integer(); }
  Tensor mean() const override;
  Tensor variance() const override;
  /// P(K <= x) = 1 - (1 - p)^(floor(x) + 1) for x >= 0, else 0.
  Tensor cdf(const Tensor& value) const override;

 private:
  Geometric(const Tensor& param, bool is_logits);
  /// log(1 - p), differentiable.
  Tensor log1m_probs() const;
  Tensor param_;  // probs or logits
  bool is_logits_;
};

}  // namespace variate::dist
