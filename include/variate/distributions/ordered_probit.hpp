#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// OrderedProbit(predictor eta, cutpoints c) on the K ordered categories {0, ..., K-1}, with K - 1
/// strictly increasing cutpoints on the last axis of `cutpoints` (..., K - 1). Stan's
/// ordered_probit with its categories 1..K renumbered 0..K-1 (our 0-based convention, as
/// Categorical): P(y <= k) = Phi(c_k - eta) for k < K - 1, so
///   P(y = 0) = 1 - Phi(eta - c_0),  P(y = k) = Phi(eta - c_{k-1}) - Phi(eta - c_k),
///   P(y = K-1) = Phi(eta - c_{K-2}).
/// (Phi the standard normal cdf). Reference: Stan Functions Reference, "Ordered probit
/// distribution". A middle category's probability is a difference of normal cdfs taken in the tail
/// where it keeps its digits: (erfc(a / sqrt 2) - erfc(b / sqrt 2)) / 2 for a = c_{k-1} - eta > 0,
/// else (erfc(-b / sqrt 2) - erfc(-a / sqrt 2)) / 2. Values are i64, as Categorical's; the log density
/// is differentiable in eta and c, a draw's gradient throws.
class OrderedProbit final : public Distribution {
 public:
  OrderedProbit(Tensor predictor, Tensor cutpoints);
  const char* name() const override { return "OrderedProbit"; }
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
