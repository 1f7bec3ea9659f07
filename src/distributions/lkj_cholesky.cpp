#include "variate/distributions/lkj_cholesky.hpp"

#include <cmath>
#include <numbers>
#include <vector>

#include "distributions/draw_gradients.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

namespace {

constexpr const char* kFamily = "LKJCholesky";

Shape checked_batch(std::int64_t dimension, const Tensor& concentration) {
  if (dimension < 2)
    variate::detail::fail(
        kFamily, ": dimension must be at least 2 (a correlation matrix with off-diagonal entries), got ", dimension);
  dist::check_positive(kFamily, "concentration", concentration);
  return concentration.shape();
}

// A (d) or (d, d) f64 table from f(i) or f(i, j), cast to dtype.
template <class F>
Tensor vector_of(std::int64_t d, DType dtype, F f) {
  std::vector<double> v(static_cast<std::size_t>(d));
  for (std::int64_t i = 0; i < d; ++i) v[std::size_t(i)] = f(i);
  return cast(Tensor::from(v, Shape{d}), dtype);
}
template <class F>
Tensor matrix_of(std::int64_t d, DType dtype, F f) {
  std::vector<double> v(static_cast<std::size_t>(d * d));
  for (std::int64_t i = 0; i < d; ++i)
    for (std::int64_t j = 0; j < d; ++j) v[std::size_t(i * d + j)] = f(i, j);
  return cast(Tensor::from(v, Shape{d, d}), dtype);
}

}  // namespace

LKJCholesky::LKJCholesky(std::int64_t dimension, Tensor concentration)
    : Distribution(checked_batch(dimension, concentration), Shape{dimension, dimension},
                   dist::common_float_type({concentration})),
      concentration_(dist::as_dtype(concentration, dtype())) {}

Tensor LKJCholesky::log_normalizer() const {
  const std::int64_t d = dimension();
  const int last[] = {-1};
  // Terms j = 1, ..., d - 1 along a trailing axis.
  const Tensor j = vector_of(d - 1, dtype(), [](std::int64_t i) { return double(i + 1); });
  const Tensor eta = expand_dims(concentration_, -1);
  const Tensor terms = lgamma(eta + (j - 1.0) * 0.5) - lgamma(eta + j * 0.5) + 0.5 * std::log(std::numbers::pi);
  return sum(j * terms, last);
}

Tensor LKJCholesky::log_prob(const Tensor& value) const {
  const std::int64_t d = dimension();
  VARIATE_CHECK(value.rank() >= 2 && value.dim(-1) == d && value.dim(-2) == d, kFamily, "value must have shape (..., ",
                d, ", ", d, "), got shape ", value.shape());
  const Tensor l = dist::as_dtype(value, dtype());
  const int last[] = {-1};
  // Outside the support the diagonal is replaced by ones, so that log() sees no zero or negative
  // entry and the masked result has finite gradients.
  const Tensor inside = dist::in_support(support(), l);
  const Tensor diag = where(expand_dims(inside, -1), diagonal(l), Tensor::scalar(1.0, dtype()));
  // Exponent of L_ii (rows from 0): (2 eta - 2) + (d - 1 - i) for i >= 1; row 0 has L_00 = 1.
  const Tensor has_term = vector_of(d, dtype(), [](std::int64_t i) { return i >= 1 ? 1.0 : 0.0; });
  const Tensor offset = vector_of(d, dtype(), [d](std::int64_t i) { return i >= 1 ? double(d - 1 - i) : 0.0; });
  const Tensor exponent = expand_dims(2.0 * concentration_ - 2.0, -1) * has_term + offset;
  const Tensor lp = sum(exponent * log(diag), last) - log_normalizer();
  return dist::mask_outside_support(support(), l, lp);
}

Tensor LKJCholesky::sample(random::Key key, const Shape& sample_shape) const {
  const std::int64_t d = dimension();
  const DType dt = dtype();
  // The onion method (Lewandowski, Kurowicka & Joe 2009, as in TFP): differentiable in the
  // concentration through the beta draws' implicit gradients (draw_gradients.hpp), the rest being a
  // smooth function of them and of the concentration-free directions u.
  const Tensor& eta = concentration_;
  Shape rows_shape = sample_shape;  // sample + batch + [d - 1]: one y per row 1, ..., d - 1
  for (auto s : batch_shape()) rows_shape.push_back(s);
  rows_shape.push_back(d - 1);
  Shape full = sample_full_shape(sample_shape);
  const auto [beta_key, sphere_key] = random::split(key);

  // y_i ~ Beta(i / 2, eta + (d - 1 - i) / 2), the squared length of row i's off-diagonal part.
  const Tensor half_i = vector_of(d - 1, dt, [](std::int64_t i) { return double(i + 1) / 2; });
  const Tensor tail = vector_of(d - 1, dt, [d](std::int64_t i) { return double(d - 2 - i) / 2; });
  const Tensor y_rows = dist::detail::beta_draw(beta_key, half_i, expand_dims(eta, -1) + tail, rows_shape);
  Shape first_shape = rows_shape;
  first_shape[first_shape.rank() - 1] = 1;
  const Tensor parts[] = {Tensor::zeros(first_shape, y_rows.dtype()), y_rows};
  const Tensor y = concat(parts, -1);  // row 0 has no off-diagonal part

  // u: the strictly lower part of each row of a normal matrix, scaled to unit length.
  const Tensor strictly_lower = matrix_of(d, dt, [](std::int64_t i, std::int64_t j) { return j < i ? 1.0 : 0.0; });
  const Tensor z = random::normal(sphere_key, full, dt) * strictly_lower;
  const int last[] = {-1};
  const Tensor norms = sqrt(sum(square(z), last, true));
  const Tensor u = z / where(gt(norms, Tensor::scalar(0.0, dt)), norms, Tensor::scalar(1.0, dt));

  const Tensor identity = matrix_of(d, dt, [](std::int64_t i, std::int64_t j) { return i == j ? 1.0 : 0.0; });
  // Row 0's sqrt(0) has an infinite derivative, but it multiplies u's empty row 0 and belongs to the
  // constant zeros of the concat, whose backward drops it.
  const Tensor off = expand_dims(sqrt(y), -1) * u;
  const Tensor on = expand_dims(sqrt(1.0 - y), -1) * identity;
  return cast(off + on, dt);
}

}  // namespace variate::dist
