#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// HalfNormal(scale), the law of |X| for X ~ Normal(0, scale), on x > 0:
/// log p(x) = log 2 - log(scale) - log(2 pi) / 2 - (x / scale)^2 / 2.
/// Reference: TFP `tfd.HalfNormal`. Samples are reparameterized (scale * |eps|).
class HalfNormal final : public Distribution {
 public:
  explicit HalfNormal(Tensor scale);
  const char* name() const override { return "HalfNormal"; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::positive(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor entropy() const override;

 private:
  Tensor scale_;
};

}  // namespace variate::dist
