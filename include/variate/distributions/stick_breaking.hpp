#pragma once
#include "variate/distributions/bijector.hpp"

namespace variate::dist {

/// StickBreaking: R^(K-1) -> the unit simplex in R^K, Stan's transform (Stan Reference Manual,
/// "Unit simplex"). With z_k = sigmoid(x_k - log(K - k)) for k = 1..K-1 (the offset makes x = 0
/// the uniform simplex), y_k = z_k (1 - y_1 - ... - y_(k-1)) and y_K = 1 - y_1 - ... - y_(K-1).
/// The Jacobian of x -> (y_1..y_(K-1)) is triangular with diagonal z_k (1 - z_k) (1 - y_1 - ... -
/// y_(k-1)), whose log telescopes to log|det J| = sum_(k=1..K) log y_k. Everything is formed in
/// logs (log_sigmoid, cumulative sums of log(1 - z_k)), so no y_k underflows to 0 before it must.
/// Inverse: x_k = log y_k - log(y_(k+1) + ... + y_K) + log(K - k), with the tail sums added from
/// the end so that small remainders keep their precision.
class StickBreaking final : public Bijector {
 public:
  const char* name() const override { return "StickBreaking"; }
  Tensor forward(const Tensor& x) const override;
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  Tensor inverse_log_det_jacobian(const Tensor& y) const override;
  int forward_event_ndims() const override { return 1; }
  Shape forward_shape(const Shape& x_shape) const override;
  Shape inverse_shape(const Shape& y_shape) const override;
  Constraint forward_image(const Constraint& domain) const override;
};

}  // namespace variate::dist
