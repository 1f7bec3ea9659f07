#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Pareto(concentration alpha, scale m) on x > m (TFP's names; Stan's pareto(y_min = m, alpha)):
///   log p(x) = log(alpha) + alpha log(m) - (alpha + 1) log(x),   F(x) = 1 - (m / x)^alpha,
///   mean alpha m / (alpha - 1) (inf for alpha <= 1), variance m^2 alpha / ((alpha - 1)^2 (alpha - 2))
///   (inf for alpha <= 2), entropy log(m / alpha) + 1 / alpha + 1.
/// Reference: Stan Functions Reference, "Pareto distribution"; TFP tfd.Pareto. Samples are
/// reparameterized (m exp(e / alpha), e a standard exponential). The support's lower end is the
/// scale, so a latent Pareto site is unconstrained by Chain({Shift(m), Exp}).
class Pareto final : public Distribution {
 public:
  Pareto(Tensor concentration, Tensor scale);
  const char* name() const override { return "Pareto"; }
  const Tensor& concentration() const { return concentration_; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::greater_than(scale_); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor icdf(const Tensor& p) const override;
  Tensor entropy() const override;

 private:
  Tensor concentration_, scale_;
};

}  // namespace variate::dist
