#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// The Normal linear regression (identity link) as one distribution over the response vector y
/// (event shape [N]): y_i ~ Normal(x_i . w + alpha, sigma). It computes the value and the partials
/// for w, alpha and sigma in one pass over x (Stan's normal_id_glm), reading the design matrix once
/// per gradient instead of twice and the rows' terms on the way. A leading batch dimension of
/// w (C, D), alpha (C) and sigma (C) evaluates C states (chains) in that same pass. x and y are
/// data: gradients flow to w, alpha and sigma only (Normal(matmul(x, w) + alpha, sigma) takes them
/// for x and y too).
/// Reference: Stan Functions Reference, "Normal-id generalized linear model (linear regression)".
class NormalIdGLM final : public Distribution {
 public:
  NormalIdGLM(Tensor x, Tensor w, Tensor alpha, Tensor sigma);
  const char* name() const override { return "NormalIdGLM"; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  /// One term per row: (N), or (C, N) for C states.
  Tensor pointwise_log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::real(); }
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  void check_response(const Tensor& y) const;  // (N), one per row of x

  Tensor x_, w_, alpha_, sigma_;
};

}  // namespace variate::dist
