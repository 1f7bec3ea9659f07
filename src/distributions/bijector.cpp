#include "variate/distributions/bijector.hpp"

namespace variate {

Tensor Bijector::inverse_log_det_jacobian(const Tensor& y) const { return -forward_log_det_jacobian(inverse(y)); }

}  // namespace variate
