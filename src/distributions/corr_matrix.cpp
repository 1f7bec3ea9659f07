#include "variate/distributions/corr_matrix.hpp"

#include <vector>

#include "variate/distributions/corr_cholesky.hpp"

namespace variate::dist {

Tensor CorrMatrix::forward(const Tensor& x) const {
  const Tensor w = CorrCholesky().forward(x);
  return matmul(w, w, false, true);
}

Tensor CorrMatrix::inverse(const Tensor& y) const {
  VARIATE_CHECK(y.rank() >= 2 && y.dim(-1) == y.dim(-2), "CorrMatrix",
                "expects square matrices of shape (..., K, K), got shape ", y.shape());
  // Of the symmetric part: a perturbation of either triangle then moves the result alike.
  return CorrCholesky().inverse(cholesky(0.5 * (y + transpose(y))));
}

Tensor CorrMatrix::forward_log_det_jacobian(const Tensor& x) const {
  const Tensor w = CorrCholesky().forward(x);
  const std::int64_t k = w.dim(-1);
  std::vector<double> exponent;
  for (std::int64_t i = 0; i < k; ++i) exponent.push_back(i == 0 ? 0.0 : double(k - 1 - i));
  const Tensor e = cast(Tensor::from(exponent, Shape{k}), w.dtype());
  const int last[] = {-1};
  return CorrCholesky().forward_log_det_jacobian(x) + sum(e * log(diagonal(w)), last);
}

Shape CorrMatrix::forward_shape(const Shape& x_shape) const { return CorrCholesky().forward_shape(x_shape); }
Shape CorrMatrix::inverse_shape(const Shape& y_shape) const { return CorrCholesky().inverse_shape(y_shape); }

Constraint CorrMatrix::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? Constraint::corr_matrix() : Bijector::forward_image(domain);
}

}  // namespace variate::dist
