#include "variate/distributions/corr_cholesky.hpp"

#include <cmath>
#include <numbers>
#include <vector>

#include "distributions/reverse_cumsum.hpp"

namespace variate::dist {
namespace {

// K for n = K(K-1)/2 free parameters; throws unless n is such a number.
std::int64_t order_of(const Shape& x_shape) {
  VARIATE_CHECK(x_shape.rank() >= 1, "CorrCholesky", "expects free parameters of shape (..., K(K-1)/2), got shape ",
                x_shape);
  const std::int64_t n = x_shape.dim(-1);
  const auto k = std::int64_t(std::llround((1 + std::sqrt(1 + 8 * double(n))) / 2));
  VARIATE_CHECK(k * (k - 1) / 2 == n, "CorrCholesky",
                "the last axis must hold K(K-1)/2 free parameters for some K, got ", n, " (shape ", x_shape, ")");
  return k;
}

void check_square(const Shape& y_shape) {
  VARIATE_CHECK(y_shape.rank() >= 2 && y_shape.dim(-1) == y_shape.dim(-2), "CorrCholesky",
                "expects square matrices of shape (..., K, K), got shape ", y_shape);
}

// (K, K) indices into [x, 0]: entry (i, j) of the strictly lower triangle takes free parameter
// i(i-1)/2 + j, every other entry the appended zero.
Tensor lower_index(std::int64_t k) {
  const std::int64_t n = k * (k - 1) / 2;
  std::vector<std::int64_t> index(static_cast<std::size_t>(k * k), n);
  for (std::int64_t i = 1; i < k; ++i)
    for (std::int64_t j = 0; j < i; ++j) index[std::size_t(i * k + j)] = i * (i - 1) / 2 + j;
  return Tensor::from(index, Shape{k, k});
}

// Positions of the strictly lower triangle in a flattened K x K matrix, in the free parameters'
// order.
Tensor lower_positions(std::int64_t k) {
  std::vector<std::int64_t> positions;
  for (std::int64_t i = 1; i < k; ++i)
    for (std::int64_t j = 0; j < i; ++j) positions.push_back(i * k + j);
  return Tensor::from(positions, Shape{std::int64_t(positions.size())});
}

// 1 on the strictly lower triangle (below = true) or the diagonal (below = false), else 0.
Tensor pattern(std::int64_t k, bool below, DType dtype) {
  std::vector<double> v(static_cast<std::size_t>(k * k), 0.0);
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j <= i; ++j) v[std::size_t(i * k + j)] = (j < i) == below ? 1.0 : 0.0;
  return cast(Tensor::from(v, Shape{k, k}), dtype);
}

// The pieces that forward and its log-determinant share, as (..., K, K) matrices that are zero
// off the strictly lower triangle (log_remaining: on and below the diagonal).
struct Rows {
  Tensor z;              // tanh(x), the canonical partial correlations
  Tensor log1m_z2;       // log(1 - z^2)
  Tensor log_remaining;  // log(1 - w_i0^2 - ... - w_i(j-1)^2) = sum_(j'<j) log(1 - z_ij'^2)
  Tensor lower;          // the strictly lower mask
};

Rows rows(const Tensor& x) {
  const std::int64_t k = order_of(x.shape());
  const DType dtype = float_type(x.dtype());
  Shape column = x.shape();
  column[column.rank() - 1] = 1;
  const Tensor filled = take(concat({x, Tensor::zeros(column, dtype)}, -1), lower_index(k), -1);
  Rows r;
  r.lower = pattern(k, true, dtype);
  r.z = tanh(filled);
  r.log1m_z2 = 2.0 * (std::numbers::ln2 - filled - softplus(-2.0 * filled)) * r.lower;
  // Exclusive prefix sums along each row: a zero column, then all but the last inclusive sum.
  Shape zero_column = r.log1m_z2.shape();
  zero_column[zero_column.rank() - 1] = 1;
  r.log_remaining = concat({Tensor::zeros(zero_column, dtype), slice(cumsum(r.log1m_z2, -1), -1, 0, k - 1)}, -1);
  return r;
}

const int kMatrix[] = {-2, -1};

}  // namespace

Tensor CorrCholesky::forward(const Tensor& x) const {
  const Rows r = rows(x);
  const Tensor eye = pattern(r.z.dim(-1), false, r.z.dtype());
  // z is zero on and above the diagonal, so (z + I) * sqrt(remaining) is zero above it, z_ij
  // sqrt(remaining_ij) below it and sqrt(remaining_ii) on it.
  return (r.z + eye) * exp(0.5 * r.log_remaining);
}

Tensor CorrCholesky::forward_log_det_jacobian(const Tensor& x) const {
  const Rows r = rows(x);
  return sum(r.log1m_z2, kMatrix) + 0.5 * sum(r.log_remaining * r.lower, kMatrix);
}

Tensor CorrCholesky::inverse(const Tensor& y) const {
  check_square(y.shape());
  const std::int64_t k = y.dim(-1);
  std::vector<std::int64_t> flat(y.shape().begin(), y.shape().end() - 2);
  flat.push_back(k * k);
  const Tensor positions = lower_positions(k);
  // Only the strictly lower entries are divided: above the diagonal the tails are 0.
  const Tensor w = take(reshape(y, flat), positions, -1);
  const Tensor tail = take(reshape(detail::reverse_cumsum(square(y)), flat), positions, -1);
  const Tensor z = w / sqrt(tail);
  return 0.5 * (log1p(z) - log1p(-z));
}

Shape CorrCholesky::forward_shape(const Shape& x_shape) const {
  const std::int64_t k = order_of(x_shape);
  Shape s = x_shape;
  s[s.rank() - 1] = k;
  s.push_back(k);
  return s;
}

Shape CorrCholesky::inverse_shape(const Shape& y_shape) const {
  check_square(y_shape);
  const std::int64_t k = y_shape.dim(-1);
  Shape s = y_shape;
  s.erase(s.rank() - 1);
  s[s.rank() - 1] = k * (k - 1) / 2;
  return s;
}

Constraint CorrCholesky::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? Constraint::corr_cholesky() : Bijector::forward_image(domain);
}

}  // namespace variate::dist
