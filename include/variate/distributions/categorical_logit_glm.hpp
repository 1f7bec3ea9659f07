#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// The categorical-logit generalized linear model (softmax regression) as one distribution over the
/// label vector y (event shape [N]): y_i ~ Categorical(logits = x_i w + b), so
///   log p(y) = sum_i z_{i, y_i} - logsumexp(z_i),   z = x w + b   (N, K).
/// It computes the value and the partials for w and b in one pass over x (Stan's
/// categorical_logit_glm), reading the design matrix once per gradient instead of twice, with a
/// max-shifted, numerically stable log-softmax. x is (N, D), w (D, K) and b (K); a leading batch
/// dimension, w (C, D, K) and b (C, K), evaluates C states (chains) in that same pass, and log_prob
/// then returns (C). Labels are i64, or floating with integral values; as for Categorical, a label
/// that is not one of 0 .. K-1 gives log density -inf and a NaN label NaN. x is data: gradients flow to w and b only
/// (for gradients in x use Categorical(Logits{matmul(x, w) + b})). Reference: Stan Functions Reference, "Categorical
/// logit generalized linear model (softmax regression)".
class CategoricalLogitGLM final : public Distribution {
 public:
  CategoricalLogitGLM(Tensor x, Tensor w, Tensor b);
  const char* name() const override { return "CategoricalLogitGLM"; }
  std::int64_t num_categories() const { return w_.dim(-1); }

  /// One label per row (i64), drawn from each row's logits.
  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  /// One term per row: (N), or (C, N) for C states.
  Tensor pointwise_log_prob(const Tensor& value) const override;
  Constraint support() const override;

 private:
  Tensor logits() const;  // (N, K) or (C, N, K), differentiable
  Tensor x_, w_, b_;      // in one floating dtype
};

}  // namespace variate::dist
