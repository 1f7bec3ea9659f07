#include "variate/distributions/factor.hpp"

#include "variate/distributions/parameters.hpp"

namespace variate::dist {

Factor::Factor(Tensor log_weight)
    : Distribution(log_weight.shape(), {}, log_weight.defined() ? dist::common_float_type({log_weight}) : DType::f64) {
  dist::check_defined("Factor", "log_weight", log_weight);
  dist::check_not_nan("Factor", "log_weight", log_weight);  // -inf is allowed: a rejected region
  log_weight_ = dist::as_dtype(log_weight, dtype());
}

Tensor Factor::sample(random::Key, const Shape&) const {
  variate::detail::fail("Factor: a factor is a term of the log density, not a random quantity; it has no draws");
}

Tensor Factor::log_prob(const Tensor&) const { return log_weight_; }

}  // namespace variate::dist
