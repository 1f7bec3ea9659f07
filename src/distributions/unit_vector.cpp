#include "variate/distributions/unit_vector.hpp"

namespace variate::dist {
namespace {

const int kLast[] = {-1};

void check_vectors(const char* what, const Shape& shape) {
  VARIATE_CHECK(shape.rank() >= 1 && shape.dim(-1) >= 2, "UnitVector", "expects ", what,
                " of shape (..., K) with K >= 2, got shape ", shape);
}

}  // namespace

Tensor UnitVector::forward(const Tensor& x) const {
  check_vectors("free parameters", x.shape());
  return x / sqrt(sum(square(x), kLast, /*keepdims=*/true));
}

Tensor UnitVector::inverse(const Tensor& y) const {
  check_vectors("unit vectors", y.shape());
  return y;
}

Tensor UnitVector::forward_log_det_jacobian(const Tensor& x) const {
  check_vectors("free parameters", x.shape());
  return -0.5 * sum(square(x), kLast);
}

Constraint UnitVector::forward_image(const Constraint& domain) const {
  return domain.kind == Constraint::Kind::real ? Constraint::unit_vector() : Bijector::forward_image(domain);
}

}  // namespace variate::dist
