#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// ImproperUniform(support) (NumPyro): the flat "density" 1 on an element-wise support: Stan's
/// parameter declared without a sampling statement (`real mu;`, `real<lower=0> sigma;`). log p(x)
/// is 0 inside the support and -inf outside. It is not a probability distribution, so it has no
/// draws (sample throws); inference starts such a site at a point of its own (Unconstrained).
class ImproperUniform final : public Distribution {
 public:
  /// support: real, positive, unit_interval, greater_than or interval.
  ImproperUniform(Constraint support, Shape batch_shape, DType dtype = DType::f64);
  const char* name() const override { return "ImproperUniform"; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return support_; }

 private:
  Constraint support_;
};

}  // namespace variate::dist
