#include "variate/distributions/bijector.hpp"

namespace variate {

Constraint Bijector::forward_image(const Constraint& domain) const {
  variate::detail::fail(name(), ": the image of the ", domain.str(), " support is not known");
}

Tensor Bijector::inverse_log_det_jacobian(const Tensor& y) const { return -forward_log_det_jacobian(inverse(y)); }

}  // namespace variate
