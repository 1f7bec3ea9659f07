#include "variate/distributions/ordered.hpp"

namespace variate::dist {
namespace {

const int kLast[] = {-1};

void check_vectors(const char* op, const char* what, const Shape& shape) {
  VARIATE_CHECK(shape.rank() >= 1 && shape.dim(-1) >= 1, op, "expects ", what,
                " of shape (..., K) with K >= 1, got shape ", shape);
}

// y_k - y_(k-1) for k = 2..K: the increments whose logs are the free parameters x_2..x_K.
Tensor increments(const Tensor& y) {
  const std::int64_t k = y.dim(-1);
  return slice(y, -1, 1, k) - slice(y, -1, 0, k - 1);
}

}  // namespace

Tensor Ordered::forward(const Tensor& x) const {
  check_vectors("Ordered", "free parameters", x.shape());
  const std::int64_t k = x.dim(-1);
  if (k == 1) return x;
  return cumsum(concat({slice(x, -1, 0, 1), exp(slice(x, -1, 1, k))}, -1), -1);
}

Tensor Ordered::inverse(const Tensor& y) const {
  check_vectors("Ordered", "ordered vectors", y.shape());
  if (y.dim(-1) == 1) return y;
  return concat({slice(y, -1, 0, 1), log(increments(y))}, -1);
}

Tensor Ordered::forward_log_det_jacobian(const Tensor& x) const {
  check_vectors("Ordered", "free parameters", x.shape());
  return sum(slice(x, -1, 1, x.dim(-1)), kLast);
}

Constraint Ordered::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? Constraint::ordered() : Bijector::forward_image(domain);
}

Tensor PositiveOrdered::forward(const Tensor& x) const {
  check_vectors("PositiveOrdered", "free parameters", x.shape());
  return cumsum(exp(x), -1);
}

Tensor PositiveOrdered::inverse(const Tensor& y) const {
  check_vectors("PositiveOrdered", "positive ordered vectors", y.shape());
  if (y.dim(-1) == 1) return log(y);
  return concat({log(slice(y, -1, 0, 1)), log(increments(y))}, -1);
}

Tensor PositiveOrdered::forward_log_det_jacobian(const Tensor& x) const {
  check_vectors("PositiveOrdered", "free parameters", x.shape());
  return sum(x, kLast);
}

Constraint PositiveOrdered::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? Constraint::positive_ordered() : Bijector::forward_image(domain);
}

}  // namespace variate::dist
