#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Categorical over {0, ..., K - 1} with event shape [] and batch shape param.shape[:-1]:
///   log p(k) = log_softmax(logits)[k]   or   log(probs[k]).
/// `logits` (..., K) may be any numbers below +inf (-inf: never drawn); `probs` (..., K) must lie on
/// the simplex. Values are i64 or floating indices; log_prob is floating, samples are i64.
/// Reference: TFP tfd.Categorical; Stan Functions Reference, "Categorical distribution".
class Categorical final : public Distribution {
 public:
  static Categorical from_probs(Tensor probs);
  static Categorical from_logits(Tensor logits);

  const char* name() const override { return "Categorical"; }
  std::int64_t num_categories() const { return param_.dim(-1); }
  /// Normalized probabilities and log probabilities (..., K), differentiable.
  Tensor probs_parameter() const;
  Tensor logits_parameter() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override;
  Tensor entropy() const override;

 private:
  Categorical(const Tensor& param, bool is_logits);
  Tensor param_;  // probs or logits, in a floating dtype
  bool is_logits_;
};

}  // namespace variate::dist
