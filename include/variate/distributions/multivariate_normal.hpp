#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// MultivariateNormal(loc, scale L) on R^k with covariance L L^T (event shape [k]):
///   log p(x) = -|z|^2 / 2 - sum_i log L_ii - k log(2 pi) / 2,   L z = x - loc,
/// solved with one triangular solve. Built from a full covariance matrix (factored by Cholesky, with
/// an error naming the matrix when it is not symmetric positive definite), from the lower Cholesky
/// factor scale_tril, or from the diagonal scale_diag: TFP's MultivariateNormalFullCovariance,
/// MultivariateNormalTriL and MultivariateNormalDiag in one class. Batch shape = broadcast of
/// loc.shape[:-1] and the scale's batch dims. Samples loc + L eps are reparameterized.
/// Reference: TFP tfd.MultivariateNormalTriL; Stan Functions Reference, "Multivariate normal
/// distribution, Cholesky parameterization".
class MultivariateNormal final : public Distribution {
 public:
  static MultivariateNormal from_covariance(Tensor loc, Tensor covariance_matrix);
  static MultivariateNormal from_scale_tril(Tensor loc, Tensor scale_tril);
  static MultivariateNormal from_scale_diag(Tensor loc, Tensor scale_diag);

  const char* name() const override { return "MultivariateNormal"; }
  const Tensor& loc() const { return loc_; }
  /// The lower Cholesky factor L of the covariance (..., k, k).
  const Tensor& scale_tril() const { return scale_tril_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::real(); }
  /// loc and the diagonal of L L^T, per component (batch_shape + [k]).
  Tensor mean() const override;
  Tensor variance() const override;
  Tensor entropy() const override;

 private:
  MultivariateNormal(const Tensor& loc, const Tensor& scale_tril, const Shape& scale_batch);
  Tensor loc_, scale_tril_;
};

}  // namespace variate::dist
