#pragma once
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// CorrMatrix: R^(K(K-1)/2) -> K x K correlation matrices (LKJ's support), Stan's corr_matrix
/// transform (Stan Reference Manual, "Correlation matrices"): W = CorrCholesky(x), Omega = W W^T.
/// The map from the strictly lower entries of W to those of Omega (which determine Omega: it is
/// symmetric with a unit diagonal) has Jacobian determinant prod_(i=1)^(K-1) W_ii^(K-1-i) (rows
/// from 0; the factor L_ii^(d - i) that turns LKJ's density det(Omega)^(eta - 1) into LKJCholesky's,
/// Stan Functions Reference, "LKJ Cholesky distribution"), so
///   log|det J| = CorrCholesky's log|det J| + sum_(i=1)^(K-1) (K - 1 - i) log W_ii.
/// Inverse: CorrCholesky's inverse of the Cholesky factor of (Omega + Omega^T) / 2.
class CorrMatrix final : public Bijector {
 public:
  const char* name() const override { return "CorrMatrix"; }
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
