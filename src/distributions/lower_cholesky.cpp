#include "variate/distributions/lower_cholesky.hpp"

#include <cmath>
#include <vector>

namespace variate::dist {
namespace {

const int kLast[] = {-1};

// K for n = K(K+1)/2 free parameters; throws unless n is such a number.
std::int64_t order_of(const Shape& x_shape) {
  VARIATE_CHECK(x_shape.rank() >= 1, "LowerCholesky", "expects free parameters of shape (..., K(K+1)/2), got shape ",
                x_shape);
  const std::int64_t n = x_shape.dim(-1);
  const auto k = std::int64_t(std::llround((std::sqrt(1 + 8 * double(n)) - 1) / 2));
  VARIATE_CHECK(k * (k + 1) / 2 == n, "LowerCholesky",
                "the last axis must hold K(K+1)/2 free parameters for some K, got ", n, " (shape ", x_shape, ")");
  return k;
}

void check_square(const Shape& y_shape) {
  VARIATE_CHECK(y_shape.rank() >= 2 && y_shape.dim(-1) == y_shape.dim(-2), "LowerCholesky",
                "expects square matrices of shape (..., K, K), got shape ", y_shape);
}

// Where free parameter (i, i) sits: i(i+1)/2 + i.
Tensor diagonal_positions(std::int64_t k) {
  std::vector<std::int64_t> index;
  for (std::int64_t i = 0; i < k; ++i) index.push_back(i * (i + 1) / 2 + i);
  return Tensor::from(index, Shape{k});
}

}  // namespace

Tensor LowerCholesky::forward(const Tensor& x) const {
  const std::int64_t k = order_of(x.shape()), n = k * (k + 1) / 2;
  Shape column = x.shape();
  column[column.rank() - 1] = 1;
  // One gather from [x, 0, exp(diagonal of x)]: strictly lower entries take x, the diagonal its
  // exponential, the upper triangle the zero. Exponentiating only the diagonal keeps a large
  // off-diagonal x from overflowing.
  const Tensor values =
      concat({x, Tensor::zeros(column, float_type(x.dtype())), exp(take(x, diagonal_positions(k), -1))}, -1);
  std::vector<std::int64_t> index(static_cast<std::size_t>(k * k), n);
  for (std::int64_t i = 0; i < k; ++i) {
    for (std::int64_t j = 0; j < i; ++j) index[std::size_t(i * k + j)] = i * (i + 1) / 2 + j;
    index[std::size_t(i * k + i)] = n + 1 + i;
  }
  return take(values, Tensor::from(index, Shape{k, k}), -1);
}

Tensor LowerCholesky::forward_log_det_jacobian(const Tensor& x) const {
  return sum(take(x, diagonal_positions(order_of(x.shape())), -1), kLast);
}

Tensor LowerCholesky::inverse(const Tensor& y) const {
  check_square(y.shape());
  const std::int64_t k = y.dim(-1);
  std::vector<std::int64_t> flat(y.shape().begin(), y.shape().end() - 2);
  flat.push_back(k * k);
  // [strictly lower entries row by row, log of the diagonal], then reordered into the free
  // parameters' order. The log only sees the diagonal, so zeros below it give no infinite gradients.
  const std::int64_t m = k * (k - 1) / 2;
  std::vector<std::int64_t> strict, order;
  for (std::int64_t i = 0; i < k; ++i) {
    for (std::int64_t j = 0; j < i; ++j) {
      strict.push_back(i * k + j);
      order.push_back(i * (i - 1) / 2 + j);
    }
    order.push_back(m + i);
  }
  const Tensor parts = concat({take(reshape(y, flat), Tensor::from(strict, Shape{m}), -1), log(diagonal(y))}, -1);
  return take(parts, Tensor::from(order, Shape{m + k}), -1);
}

Shape LowerCholesky::forward_shape(const Shape& x_shape) const {
  const std::int64_t k = order_of(x_shape);
  Shape s = x_shape;
  s[s.rank() - 1] = k;
  s.push_back(k);
  return s;
}

Shape LowerCholesky::inverse_shape(const Shape& y_shape) const {
  check_square(y_shape);
  const std::int64_t k = y_shape.dim(-1);
  Shape s = y_shape;
  s.erase(s.rank() - 1);
  s[s.rank() - 1] = k * (k + 1) / 2;
  return s;
}

Constraint LowerCholesky::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? Constraint::lower_cholesky() : Bijector::forward_image(domain);
}

}  // namespace variate::dist
