#pragma once
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// CholeskyOuterProduct: lower-triangular K x K matrices L with a positive diagonal -> symmetric
/// positive-definite matrices, Sigma = L L^T (TFP's tfb.CholeskyOuterProduct). As a map of the
/// K(K+1)/2 lower entries of L to the lower entries of Sigma its Jacobian is triangular, with
///   log|det J| = K log 2 + sum_(i=0)^(K-1) (K - i) log L_ii
/// (rows from 0; Stan Reference Manual, "Covariance matrices", whose 1-based exponent K - k + 2
/// also counts the exp of LowerCholesky's diagonal). Inverse: the Cholesky factor of (Sigma + Sigma^T) / 2.
/// Chain({CholeskyOuterProduct, LowerCholesky}) is the default bijector onto positive_definite,
/// Stan's cov_matrix transform.
class CholeskyOuterProduct final : public Bijector {
 public:
  const char* name() const override { return "CholeskyOuterProduct"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  int forward_event_ndims() const override { return 2; }
  int inverse_event_ndims() const override { return 2; }
  Constraint forward_image(const Constraint& domain) const override;
};

}  // namespace variate::dist
