#pragma once
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// CorrCholesky: R^(K(K-1)/2) -> Cholesky factors of K x K correlation matrices (LKJ's support),
/// Stan's transform (Stan Reference Manual, "Cholesky factors of correlation matrices"). The free
/// parameters fill the strictly lower triangle row by row (x -> (1,0), (2,0), (2,1), (3,0), ...;
/// Stan reads them column by column, which permutes x but changes no value of the density),
/// z = tanh(x) are canonical partial correlations, and row i of W is built left to right:
///   w_i0 = z_i0,  w_ij = z_ij sqrt(1 - w_i0^2 - ... - w_i(j-1)^2),  w_ii = sqrt(1 - sum_(j<i) w_ij^2),
/// so every row has unit norm and a positive diagonal. The Jacobian of x -> (w_ij)_(i>j) is
/// triangular, giving
///   log|det J| = sum_(i>j) [ log(1 - z_ij^2) + log(1 - w_i0^2 - ... - w_i(j-1)^2) / 2 ],
/// where 1 - w_i0^2 - ... - w_i(j-1)^2 = prod_(j'<j) (1 - z_ij'^2) is accumulated in logs and
/// log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2 x)) stays finite for large |x|.
/// Inverse: z_ij = w_ij / sqrt(w_ij^2 + ... + w_ii^2) (the row's tail, equal to the remainder for
/// unit rows), x = atanh(z).
class CorrCholesky final : public Bijector {
 public:
  const char* name() const override { return "CorrCholesky"; }
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
