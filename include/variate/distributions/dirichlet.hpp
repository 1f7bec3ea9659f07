#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Dirichlet(concentration alpha) on the simplex (event shape [K], batch = alpha.shape[:-1]):
///   log p(x) = sum_k (alpha_k - 1) log x_k + lgamma(sum_k alpha_k) - sum_k lgamma(alpha_k),
/// a density with respect to Lebesgue measure on the first K - 1 coordinates (as in TFP and Stan),
/// with 0 log 0 = 0 where alpha_k = 1. Differentiable in x and alpha; samples are normalized gamma
/// draws, differentiable in alpha through the gamma draws' implicit reparameterization gradients
/// (Figurnov et al. 2018). Reference: TFP tfd.Dirichlet; Stan Functions Reference,
/// "Dirichlet distribution".
class Dirichlet final : public Distribution {
 public:
  explicit Dirichlet(Tensor concentration);

  const char* name() const override { return "Dirichlet"; }
  const Tensor& concentration() const { return concentration_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::simplex(); }
  /// alpha / alpha_0 and alpha (alpha_0 - alpha) / (alpha_0^2 (alpha_0 + 1)), alpha_0 = sum(alpha).
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor entropy() const override;

 private:
  Tensor concentration_;
};

}  // namespace variate::dist
