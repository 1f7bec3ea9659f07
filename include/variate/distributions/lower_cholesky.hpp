#pragma once
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// LowerCholesky: R^(K(K+1)/2) -> lower-triangular K x K matrices with a positive diagonal
/// (Cholesky factors of covariance matrices), Stan's transform (Stan Reference Manual, "Cholesky
/// factors of covariance matrices"; TFP's FillScaleTriL with an Exp diagonal and no shift). The free
/// parameters fill the lower triangle row by row (x -> (0,0), (1,0), (1,1), (2,0), ...); the
/// diagonal entries are exponentiated: L_ij = x_ij below the diagonal, L_ii = exp(x_ii). The
/// Jacobian of x -> (L_ij)_(i>=j) is diagonal, so log|det J| = sum_i x_ii. The default bijector of
/// Constraint::lower_cholesky(), Stan's `cholesky_factor_cov[K]` (the square case only: Stan's
/// M x N factors with M > N have no constraint kind here). E.g. Stan's
/// `cholesky_factor_cov[3] L; to_vector(L) ~ normal(0, 1);` (diagonal half-normal, below it normal):
///
///   auto L = variate::Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(0.0, 1.0),
///                                                               Shape{3, 3}),
///                                Constraint::lower_cholesky(), "L");
class LowerCholesky final : public Bijector {
 public:
  const char* name() const override { return "LowerCholesky"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  int forward_event_ndims() const override { return 1; }
  int inverse_event_ndims() const override { return 2; }
  Shape forward_shape(const Shape& x_shape) const override;
  Shape inverse_shape(const Shape& y_shape) const override;
  Constraint forward_image(const Constraint& domain) const override;
};

}  // namespace variate::dist
