#include "variate/distributions/lkj.hpp"

#include <vector>

#include "variate/distributions/lkj_cholesky.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

namespace {

constexpr const char* kFamily = "LKJ";

Shape checked_batch(std::int64_t dimension, const Tensor& concentration) {
  if (dimension < 2)
    variate::detail::fail(
        kFamily, ": dimension must be at least 2 (a correlation matrix with off-diagonal entries), got ", dimension);
  dist::check_positive(kFamily, "concentration", concentration);
  return concentration.shape();
}

Tensor identity(std::int64_t d, DType dtype) {
  std::vector<double> v(std::size_t(d * d), 0.0);
  for (std::int64_t i = 0; i < d; ++i) v[std::size_t(i * d + i)] = 1.0;
  return cast(Tensor::from(v, Shape{d, d}), dtype);
}

}  // namespace

LKJ::LKJ(std::int64_t dimension, Tensor concentration)
    : Distribution(checked_batch(dimension, concentration), Shape{dimension, dimension},
                   dist::common_float_type({concentration})),
      concentration_(dist::as_dtype(concentration, dtype())) {}

Tensor LKJ::log_prob(const Tensor& value) const {
  const std::int64_t d = dimension();
  VARIATE_CHECK(value.rank() >= 2 && value.dim(-1) == d && value.dim(-2) == d, kFamily, "value must have shape (..., ",
                d, ", ", d, "), got shape ", value.shape());
  const Tensor omega = dist::as_dtype(value, dtype());
  // Outside the support the identity is factored instead, so that the Cholesky factorization
  // cannot fail and the masked result has finite gradients.
  const Tensor inside = dist::in_support(support(), omega);
  const Tensor safe = where(expand_dims(expand_dims(inside, -1), -1), omega, identity(d, dtype()));
  const int last[] = {-1};
  const Tensor log_det = 2.0 * sum(log(diagonal(cholesky(safe))), last);
  const Tensor lp = (concentration_ - 1.0) * log_det - LKJCholesky(d, concentration_).log_normalizer();
  return dist::mask_outside_support(support(), omega, lp);
}

Tensor LKJ::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor l = LKJCholesky(dimension(), concentration_).sample(key, sample_shape);
  return matmul(l, l, false, true);
}

Tensor LKJ::mean() const { return broadcast_to(identity(dimension(), dtype()), sample_full_shape({})); }

Tensor LKJ::variance() const {
  const std::int64_t d = dimension();
  const Tensor off_diagonal = 1.0 - identity(d, dtype());
  const Tensor v = 1.0 / (2.0 * concentration_ + double(d - 1));
  return broadcast_to(expand_dims(expand_dims(v, -1), -1) * off_diagonal, sample_full_shape({}));
}

}  // namespace variate::dist
