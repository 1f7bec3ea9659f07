#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// The Bernoulli-logit generalized linear model as one distribution over the label vector y (event
/// shape [N]): y_i ~ Bernoulli(logits = x_i . w + alpha), so
///   log p(y) = sum_i y_i z_i - softplus(z_i),   z = x w + alpha.
/// It computes the value and the partials for w and alpha in one pass over x (Stan's
/// bernoulli_logit_glm), reading the design matrix once per gradient instead of twice. A leading
/// batch dimension of w (C, D) and alpha (C) evaluates C states (chains) in that same pass.
/// x is data: gradients flow to w and alpha only. With up to four states the CPU kernel reads a
/// copy of x in a layout of its own, made at the first evaluation and kept while x lives (one more
/// copy of x's memory); writing into x's elements (data()) makes the next evaluation copy it again.
/// Reference: Stan Functions Reference, "Bernoulli-logit generalized linear model".
class BernoulliLogitGLM final : public Distribution {
 public:
  BernoulliLogitGLM(Tensor x, Tensor w, Tensor alpha);
  const char* name() const override { return "BernoulliLogitGLM"; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  /// One term per row: (N), or (C, N) for C states.
  Tensor pointwise_log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::boolean(); }
  Tensor mean() const override;

 private:
  Tensor logits() const;
  Tensor x_, w_, alpha_;
};

}  // namespace variate::dist
