#include "variate/distributions/wishart.hpp"

#include "distributions/probs_or_logits.hpp"
#include "distributions/wishart_math.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

using detail::check_value;
using detail::checked_batch;
using detail::event_of;
using detail::matrix_batch;

Wishart::Wishart(Tensor df, Tensor scale_matrix)
    : Distribution(checked_batch("Wishart", "scale_matrix", df, scale_matrix),
                   event_of("Wishart", "scale_matrix", scale_matrix), dist::common_float_type({df, scale_matrix})),
      df_(dist::as_dtype(df, dtype())),
      scale_tril_(detail::scale_tril_of("Wishart", scale_matrix, dtype())) {}

Tensor Wishart::log_prob(const Tensor& value) const {
  check_value(name(), value, event_shape()[0]);
  const Tensor w = dist::as_dtype(value, dtype());
  const Tensor l = cholesky(detail::inside_or_identity(dist::in_support(support(), w), w));
  return dist::mask_outside_support(support(), w, detail::wishart_log_density(df_, scale_tril_, l));
}

Tensor Wishart::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor a = detail::bartlett_factor(key, df_, event_shape()[0], batch_shape(), sample_shape, dtype());
  const Tensor l = matmul(scale_tril_, a);
  return matmul(l, l, false, true);
}

Tensor Wishart::mean() const {
  const Tensor s = matmul(scale_tril_, scale_tril_, false, true);
  return broadcast_to(matrix_batch(df_) * s, sample_full_shape({}));
}

Tensor Wishart::variance() const {
  const Tensor s = matmul(scale_tril_, scale_tril_, false, true);
  const Tensor d = diagonal(s);
  return broadcast_to(matrix_batch(df_) * (square(s) + expand_dims(d, -1) * expand_dims(d, -2)), sample_full_shape({}));
}

WishartCholesky::WishartCholesky(Tensor df, Tensor scale_tril)
    : Distribution(checked_batch("WishartCholesky", "scale_tril", df, scale_tril),
                   event_of("WishartCholesky", "scale_tril", scale_tril), dist::common_float_type({df, scale_tril})),
      df_(dist::as_dtype(df, dtype())),
      scale_tril_(dist::as_dtype(scale_tril, dtype())) {
  detail::check_scale_tril(name(), scale_tril_);
}

Tensor WishartCholesky::log_prob(const Tensor& value) const {
  check_value(name(), value, event_shape()[0]);
  const Tensor l = dist::as_dtype(value, dtype());
  const Tensor safe = detail::inside_or_identity(dist::in_support(support(), l), l);
  const Tensor lp = detail::wishart_log_density(df_, scale_tril_, safe) + detail::outer_product_log_jacobian(safe);
  return dist::mask_outside_support(support(), l, lp);
}

Tensor WishartCholesky::sample(random::Key key, const Shape& sample_shape) const {
  return matmul(scale_tril_, detail::bartlett_factor(key, df_, event_shape()[0], batch_shape(), sample_shape, dtype()));
}

}  // namespace variate::dist
