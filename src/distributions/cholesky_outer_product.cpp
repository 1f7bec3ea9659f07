#include "variate/distributions/cholesky_outer_product.hpp"

#include <cmath>
#include <numbers>
#include <vector>

namespace variate::dist {
namespace {

void check_square(const Shape& shape) {
  VARIATE_CHECK(shape.rank() >= 2 && shape.dim(-1) == shape.dim(-2), "CholeskyOuterProduct",
                "expects square matrices of shape (..., K, K), got shape ", shape);
}

}  // namespace

Tensor CholeskyOuterProduct::forward(const Tensor& x) const {
  check_square(x.shape());
  return matmul(x, x, false, true);
}

Tensor CholeskyOuterProduct::inverse(const Tensor& y) const {
  check_square(y.shape());
  // Of the symmetric part: a perturbation of either triangle then moves the result alike.
  return cholesky(0.5 * (y + transpose(y)));
}

Tensor CholeskyOuterProduct::forward_log_det_jacobian(const Tensor& x) const {
  check_square(x.shape());
  const std::int64_t k = x.dim(-1);
  std::vector<double> exponent;
  for (std::int64_t i = 0; i < k; ++i) exponent.push_back(double(k - i));
  const DType dtype = float_type(x.dtype());
  const Tensor e = cast(Tensor::from(exponent, Shape{k}), dtype);
  const int last[] = {-1};
  return sum(e * log(diagonal(x)), last) + double(k) * std::numbers::ln2;
}

Constraint CholeskyOuterProduct::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::lower_cholesky ? Constraint::positive_definite()
                                                         : Bijector::forward_image(domain);
}

}  // namespace variate::dist
