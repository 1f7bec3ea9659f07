#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Multinomial(total_count n, p) over count vectors x (event shape [K]) with sum(x) = n:
///   log p(x) = lgamma(n + 1) - sum_k lgamma(x_k + 1) + sum_k x_k log p_k.
/// Built from `probs` (..., K) on the simplex or `logits` (..., K) (p = softmax(logits)); batch
/// shape = broadcast(total_count.shape, param.shape[:-1]). total_count is a non-negative integer: a
/// gradient of the log density with respect to it throws, as does any gradient of a draw. Reference: TFP
/// tfd.Multinomial; Stan Functions Reference, "Multinomial distribution".
class Multinomial final : public Distribution {
 public:
  static Multinomial from_probs(Tensor total_count, Tensor probs);
  static Multinomial from_logits(Tensor total_count, Tensor logits);

  const char* name() const override { return "Multinomial"; }
  const Tensor& total_count() const { return total_count_; }
  /// Normalized probabilities (..., K), differentiable.
  Tensor probs_parameter() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::multinomial_counts(total_count_); }
  /// n p and n p (1 - p), per component (batch_shape + [K]).
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  Multinomial(const Tensor& total_count, const Tensor& param, bool is_logits);
  Tensor total_count_;
  Tensor param_;  // probs or logits (..., K)
  bool is_logits_;
};

}  // namespace variate::dist
