#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// HalfCauchy(loc, scale), the law of loc + |X| for X ~ Cauchy(0, scale), on x > loc; with
/// z = (x - loc) / scale: log p(x) = log(2 / pi) - log(scale) - log1p(z^2).
/// Reference: TFP `tfd.HalfCauchy`. Samples are reparameterized (loc + scale * |eps1 / eps2|). The
/// mean and the variance do not exist: they throw. The cdf is 2 atan(z) / pi above loc.
class HalfCauchy final : public Distribution {
 public:
  HalfCauchy(Tensor loc, Tensor scale);
  const char* name() const override { return "HalfCauchy"; }
  const Tensor& loc() const { return loc_; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::greater_than(loc_); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;

 private:
  Tensor loc_, scale_;
};

}  // namespace variate::dist
