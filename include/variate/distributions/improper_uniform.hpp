#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// ImproperUniform(support, shape) (NumPyro): the flat "density" 1 on a continuous support: Stan's
/// parameter declared without a sampling statement (`real mu;`, `real<lower=0> sigma;`,
/// `ordered[K] c;`, `unit_vector[3] u;`). log p(x) is 0 inside the support and -inf outside. It is
/// not a probability distribution in general, so it has no draws (sample throws); inference starts
/// such a site at a point of its own (Unconstrained). On a bounded set it is the uniform
/// distribution up to a constant: on unit_vector the uniform distribution on the sphere, on
/// simplex Dirichlet(1, ..., 1).
class ImproperUniform final : public Distribution {
 public:
  /// support: any continuous one (real, positive, unit_interval, greater_than, less_than, interval,
  /// ordered, positive_ordered, unit_vector, simplex, lower_cholesky, corr_cholesky,
  /// positive_definite, corr_matrix). `shape` is the shape of one value: its
  /// last support.event_ndims() axes are the event (the vector or matrix), the rest the batch.
  ImproperUniform(Constraint support, Shape shape, DType dtype = DType::f64);
  const char* name() const override { return "ImproperUniform"; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return support_; }

 private:
  Constraint support_;
};

}  // namespace variate::dist
