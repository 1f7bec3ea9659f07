#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// StudentT(df, loc, scale) on the real line, with z = (x - loc) / scale:
/// log p(x) = lgamma((df + 1) / 2) - lgamma(df / 2) - log(df pi) / 2 - log(scale)
///            - (df + 1) / 2 log1p(z^2 / df).
/// Reference: Stan Functions Reference, "Student-t distribution"; TFP `tfd.StudentT`. Samples are
/// loc + scale * eps / sqrt(chi2(df) / df): reparameterized in loc and scale, and in df through the
/// chi2 draw's implicit reparameterization gradient (Figurnov et al. 2018).
/// As in TFP, the mean is NaN where df <= 1 and the variance is +inf where 1 < df <= 2 and NaN
/// where df <= 1 (the moments do not exist there). The cdf is I_{df / (df + z^2)}(df / 2, 1 / 2) / 2
/// for z <= 0 and one minus that for z > 0 (as in TFP); it is differentiable in x, loc and scale,
/// and throws for a gradient with respect to df.
class StudentT final : public Distribution {
 public:
  StudentT(Tensor df, Tensor loc, Tensor scale);
  const char* name() const override { return "StudentT"; }
  const Tensor& df() const { return df_; }
  const Tensor& loc() const { return loc_; }
  const Tensor& scale() const { return scale_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::real(); }
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor cdf(const Tensor& value) const override;
  Tensor entropy() const override;

 private:
  Tensor df_, loc_, scale_;
};

}  // namespace variate::dist
