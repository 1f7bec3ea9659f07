#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// NegativeBinomial(total_count r, p) on {0, 1, ...}, TFP's convention: in independent trials with
/// success probability p = `probs`, the number of successes k seen before the r-th failure,
///   log p(k) = lgamma(k + r) - lgamma(r) - lgamma(k + 1) + k log p + r log(1 - p),
///   mean r p / (1 - p),   variance r p / (1 - p)^2.
/// (Boost's and Stan's neg_binomial count failures before r successes: TFP's NegativeBinomial(r, p)
/// is Boost's negative_binomial(r, 1 - p).) r > 0 may be real (the gamma-Poisson mixture); probs
/// in [0, 1), or logits = log(p / (1 - p)) (stable for large |logits|). Samples are Poisson draws
/// with a Gamma(r, rate (1 - p) / p) rate; a gradient of a draw throws (discrete). The log density
/// is differentiable in r and in p's parameter. The cdf at k >= 0 is I_{1-p}(r, floor(k) + 1) (Boost's
/// negative_binomial cdf with success fraction 1 - p), differentiable in p's parameter; a gradient
/// with respect to total_count throws. Reference: TFP tfd.NegativeBinomial.
class NegativeBinomial final : public Distribution {
 public:
  static NegativeBinomial from_probs(Tensor total_count, Tensor probs);
  static NegativeBinomial from_logits(Tensor total_count, Tensor logits);

  const char* name() const override { return "NegativeBinomial"; }
  const Tensor& total_count() const { return total_count_; }
  Tensor probs_parameter() const;
  Tensor logits_parameter() const;

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::nonnegative_integer(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;

 private:
  NegativeBinomial(const Tensor& total_count, const Tensor& param, bool is_logits);
  /// p / (1 - p), differentiable.
  Tensor odds() const;
  Tensor total_count_;
  Tensor param_;  // probs or logits
  bool is_logits_;
};

}  // namespace variate::dist
