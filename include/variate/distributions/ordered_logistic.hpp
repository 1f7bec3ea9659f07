#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// OrderedLogistic(predictor eta, cutpoints c) on the K ordered categories {0, ..., K-1}, with K - 1
/// strictly increasing cutpoints on the last axis of `cutpoints` (..., K - 1). Stan's
/// ordered_logistic with its categories 1..K renumbered 0..K-1 (our 0-based convention, as
/// Categorical and TFP's OrderedLogistic): P(y <= k) = logistic(c_k - eta) for k < K - 1, so
///   P(y = 0) = 1 - logistic(eta - c_0),  P(y = k) = logistic(eta - c_{k-1}) - logistic(eta - c_k),
///   P(y = K-1) = logistic(eta - c_{K-2}).
/// Reference: Stan Functions Reference, "Ordered logistic distribution". Each middle category's log
/// probability is log_sigmoid(c_k - eta) + log_sigmoid(eta - c_{k-1}) + log(-expm1(c_{k-1} - c_k)),
/// which keeps its digits where both cdf values are near 0 or near 1. Values are i64, as
/// Categorical's; the log density is differentiable in eta and c, a draw's gradient throws.
class OrderedLogistic final : public Distribution {
 public:
  OrderedLogistic(Tensor predictor, Tensor cutpoints);
  const char* name() const override { return "OrderedLogistic"; }
  const Tensor& predictor() const { return predictor_; }
  const Tensor& cutpoints() const { return cutpoints_; }
  std::int64_t num_categories() const { return cutpoints_.dim(-1) + 1; }
  /// log P(y = k) for each k, shaped batch + [K].
  Tensor categorical_log_probs() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override;

 private:
  Tensor predictor_, cutpoints_;
};

}  // namespace variate::dist
