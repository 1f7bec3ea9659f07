#include "variate/distributions/distribution.hpp"

namespace variate {

Tensor Distribution::mean() const { variate::detail::fail(name(), ": the mean is not available in closed form"); }
Tensor Distribution::variance() const {
  variate::detail::fail(name(), ": the variance is not available in closed form");
}
Tensor Distribution::cdf(const Tensor&) const { variate::detail::fail(name(), ": the cdf is not available"); }
Tensor Distribution::icdf(const Tensor&) const {
  variate::detail::fail(name(), ": the inverse cdf (quantile function) is not available");
}
Tensor Distribution::entropy() const { variate::detail::fail(name(), ": the entropy is not available in closed form"); }

Shape Distribution::sample_full_shape(const Shape& sample_shape) const {
  Shape s = sample_shape;
  for (auto d : batch_shape_) s.push_back(d);
  for (auto d : event_shape_) s.push_back(d);
  return s;
}

}  // namespace variate
