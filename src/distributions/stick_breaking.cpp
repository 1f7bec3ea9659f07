#include "variate/distributions/stick_breaking.hpp"

#include <cmath>
#include <vector>

#include "distributions/reverse_cumsum.hpp"

namespace variate::dist {
namespace {

const int kLast[] = {-1};

void check_free(const char* op, const Shape& x_shape) {
  VARIATE_CHECK(x_shape.rank() >= 1 && x_shape.dim(-1) >= 1, op,
                "expects free parameters of shape (..., K-1) with K-1 >= 1, got shape ", x_shape);
}

void check_simplex(const char* op, const Shape& y_shape) {
  VARIATE_CHECK(y_shape.rank() >= 1 && y_shape.dim(-1) >= 2, op,
                "expects simplexes of shape (..., K) with K >= 2, got shape ", y_shape);
}

// log(K - k) for k = 1..K-1 (K - 1 = n): the offsets that make x = 0 the uniform simplex.
Tensor offsets(std::int64_t n, DType dtype) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) v[std::size_t(k)] = std::log(double(n - k));
  return cast(Tensor::from(v, Shape{n}), dtype);
}

// log y_1, ..., log y_K: log y_k = log z_k + sum_(j<k) log(1 - z_j), with log z_K = 0.
Tensor log_simplex(const Tensor& x) {
  check_free("StickBreaking", x.shape());
  const DType dtype = float_type(x.dtype());
  const Tensor u = x - offsets(x.dim(-1), dtype);
  Shape column = x.shape();
  column[column.rank() - 1] = 1;
  const Tensor zero = Tensor::zeros(column, dtype);
  const Tensor log_remaining = concat({zero, cumsum(log_sigmoid(-u), -1)}, -1);
  return concat({log_sigmoid(u), zero}, -1) + log_remaining;
}

}  // namespace

Tensor StickBreaking::forward(const Tensor& x) const { return exp(log_simplex(x)); }

Tensor StickBreaking::inverse(const Tensor& y) const {
  check_simplex("StickBreaking", y.shape());
  const std::int64_t k = y.dim(-1);
  const Tensor tail = detail::reverse_cumsum(y);  // tail_k = y_k + ... + y_K
  return log(slice(y, -1, 0, k - 1)) - log(slice(tail, -1, 1, k)) + offsets(k - 1, float_type(y.dtype()));
}

Tensor StickBreaking::forward_log_det_jacobian(const Tensor& x) const { return sum(log_simplex(x), kLast); }

Tensor StickBreaking::inverse_log_det_jacobian(const Tensor& y) const {
  check_simplex("StickBreaking", y.shape());
  return -sum(log(y), kLast);
}

Shape StickBreaking::forward_shape(const Shape& x_shape) const {
  check_free("StickBreaking", x_shape);
  Shape s = x_shape;
  s[s.rank() - 1] += 1;
  return s;
}

Shape StickBreaking::inverse_shape(const Shape& y_shape) const {
  check_simplex("StickBreaking", y_shape);
  Shape s = y_shape;
  s[s.rank() - 1] -= 1;
  return s;
}

Constraint StickBreaking::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? Constraint::simplex() : Bijector::forward_image(domain);
}

}  // namespace variate::dist
