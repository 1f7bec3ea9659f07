#include "variate/distributions/distribution.hpp"

namespace variate {

Tensor Distribution::mean() const { variate::detail::fail(name(), ": the mean is not available in closed form"); }
Tensor Distribution::variance() const { variate::detail::fail(name(), ": the variance is not available in closed form"); }
Tensor Distribution::cdf(const Tensor&) const { variate::detail::fail(name(), ": the cdf is not available"); }

Shape Distribution::sample_full_shape(const Shape& sample_shape) const {
  Shape s = sample_shape;
  for (auto d : batch_shape_) s.push_back(d);
  for (auto d : event_shape_) s.push_back(d);
  return s;
}

}  // namespace variate
