#pragma once
#include <optional>
#include <string>

#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// A continuous scalar-event `base` restricted to (low, high), either bound optional (Stan's
/// T[low, high], NumPyro's TruncatedDistribution): with F the base's cdf,
///   log p(x) = log p_base(x) - log(F(high) - F(low))  for low < x < high, -inf outside,
/// F(low) = 0 without a low bound and F(high) = 1 without a high one. The cdf is
/// (F(x) - F(low)) / (F(high) - F(low)) and the quantile F^-1(F(low) + p (F(high) - F(low))); samples
/// are that quantile at uniform p, so they need the base's icdf (Normal, Exponential, Uniform,
/// Logistic, Laplace, Weibull, Gumbel, Pareto have one) and are reparameterized through it; sampling
/// a base without one throws naming it (its log density still works for observed or latent sites).
/// The normalizer is a difference of cdfs, and draws invert F(low) + p (F(high) - F(low)): a window
/// far in the base's upper tail (F(low) within ~1e-10 of 1) loses digits there, and one beyond
/// F(low) == 1 in floating point gives infinite log densities and draws (no survival function yet). The support is the
/// base's cut to the bounds: interval, greater_than or less_than. Reference: Stan Reference Manual, "Truncated
/// distributions".
class Truncated final : public Distribution {
 public:
  Truncated(DistributionPtr base, std::optional<Tensor> low, std::optional<Tensor> high);
  const char* name() const override { return name_.c_str(); }
  const DistributionPtr& base() const { return base_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return support_; }
  Tensor cdf(const Tensor& value) const override;
  Tensor icdf(const Tensor& p) const override;

 private:
  /// F(low) and F(high) - F(low), differentiable.
  Tensor cdf_low() const;
  Tensor mass() const;
  DistributionPtr base_;
  std::optional<Tensor> low_, high_;
  Constraint support_;
  std::string name_;  // "Truncated" + the base's name
};

}  // namespace variate::dist
