#include "variate/distributions/inverse_wishart.hpp"

#include <cmath>

#include "distributions/probs_or_logits.hpp"
#include "distributions/wishart_math.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

using detail::check_value;
using detail::checked_batch;
using detail::event_of;
using detail::matrix_batch;

namespace {

// X = B^T B with B = A^-1 L_S^T: X^-1 = L_S^-T A A^T L_S^-1 ~ Wishart(df, S^-1).
Tensor draw(random::Key key, const Tensor& df, const Tensor& scale_tril, const Distribution& d,
            const Shape& sample_shape) {
  const Tensor a = detail::bartlett_factor(key, df, d.event_shape()[0], d.batch_shape(), sample_shape, d.dtype());
  const Tensor b = triangular_solve(a, broadcast_to(transpose(scale_tril), a.shape()));
  return matmul(b, b, true, false);
}

}  // namespace

InverseWishart::InverseWishart(Tensor df, Tensor scale_matrix)
    : Distribution(checked_batch("InverseWishart", "scale_matrix", df, scale_matrix),
                   event_of("InverseWishart", "scale_matrix", scale_matrix),
                   dist::common_float_type({df, scale_matrix})),
      df_(dist::as_dtype(df, dtype())),
      scale_tril_(detail::scale_tril_of("InverseWishart", scale_matrix, dtype())) {}

Tensor InverseWishart::log_prob(const Tensor& value) const {
  check_value(name(), value, event_shape()[0]);
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor l = cholesky(detail::inside_or_identity(dist::in_support(support(), x), x));
  return dist::mask_outside_support(support(), x, detail::inverse_wishart_log_density(df_, scale_tril_, l));
}

Tensor InverseWishart::sample(random::Key key, const Shape& sample_shape) const {
  return draw(key, df_, scale_tril_, *this, sample_shape);
}

Tensor InverseWishart::mean() const {
  const double p = double(event_shape()[0]);
  const Tensor s = matmul(scale_tril_, scale_tril_, false, true);
  const Tensor m = s / matrix_batch(df_ - p - 1.0);
  return broadcast_to(
      where(matrix_batch(gt(df_, Tensor::scalar(p + 1.0, dtype()))), m, Tensor::scalar(INFINITY, dtype())),
      sample_full_shape({}));
}

Tensor InverseWishart::variance() const {
  const double p = double(event_shape()[0]);
  const Tensor s = matmul(scale_tril_, scale_tril_, false, true);
  const Tensor d = diagonal(s);
  const Tensor nu = matrix_batch(df_);
  const Tensor top = (nu - p + 1.0) * square(s) + (nu - p - 1.0) * expand_dims(d, -1) * expand_dims(d, -2);
  const Tensor v = top / ((nu - p) * square(nu - p - 1.0) * (nu - p - 3.0));
  return broadcast_to(
      where(matrix_batch(gt(df_, Tensor::scalar(p + 3.0, dtype()))), v, Tensor::scalar(INFINITY, dtype())),
      sample_full_shape({}));
}

InverseWishartCholesky::InverseWishartCholesky(Tensor df, Tensor scale_tril)
    : Distribution(checked_batch("InverseWishartCholesky", "scale_tril", df, scale_tril),
                   event_of("InverseWishartCholesky", "scale_tril", scale_tril),
                   dist::common_float_type({df, scale_tril})),
      df_(dist::as_dtype(df, dtype())),
      scale_tril_(dist::as_dtype(scale_tril, dtype())) {
  detail::check_scale_tril(name(), scale_tril_);
}

Tensor InverseWishartCholesky::log_prob(const Tensor& value) const {
  check_value(name(), value, event_shape()[0]);
  const Tensor l = dist::as_dtype(value, dtype());
  const Tensor safe = detail::inside_or_identity(dist::in_support(support(), l), l);
  const Tensor lp =
      detail::inverse_wishart_log_density(df_, scale_tril_, safe) + detail::outer_product_log_jacobian(safe);
  return dist::mask_outside_support(support(), l, lp);
}

Tensor InverseWishartCholesky::sample(random::Key key, const Shape& sample_shape) const {
  return cholesky(draw(key, df_, scale_tril_, *this, sample_shape));
}

}  // namespace variate::dist
