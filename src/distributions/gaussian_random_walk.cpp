#include "variate/distributions/gaussian_random_walk.hpp"

#include <cmath>
#include <numbers>

#include "variate/distributions/normal.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

namespace {

std::int64_t checked_steps(std::int64_t num_steps) {
  VARIATE_CHECK(num_steps >= 1, "GaussianRandomWalk", "num_steps must be at least 1, got ", num_steps);
  return num_steps;
}

}  // namespace

GaussianRandomWalk::GaussianRandomWalk(Tensor scale, std::int64_t num_steps)
    : Distribution(scale.shape(), Shape{checked_steps(num_steps)}, dist::common_float_type({scale})) {
  dist::check_positive("GaussianRandomWalk", "scale", scale);
  scale_ = dist::as_dtype(scale, dtype());
}

Tensor GaussianRandomWalk::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor steps = expand_dims(scale_, -1) * random::normal(key, sample_full_shape(sample_shape), dtype());
  return cumsum(steps, -1);
}

Tensor GaussianRandomWalk::log_prob(const Tensor& value) const {
  // The increments x_t - x_{t-1} (with x_0 = 0) are independent Normal(0, scale) draws; Normal's node
  // gives their log densities (and -inf for a non-finite value), summed over the path.
  const Tensor x = dist::as_dtype(value, dtype());
  VARIATE_CHECK(x.rank() >= 1 && x.dim(-1) == num_steps(), "GaussianRandomWalk", "the value must end in the ",
                num_steps(), " steps of a path, got shape ", x.shape());
  const std::int64_t n = num_steps();
  Shape first = x.shape();
  first[first.rank() - 1] = 1;
  const Tensor previous = concat({Tensor::zeros(first, dtype()), slice(x, -1, 0, n - 1)}, -1);
  const int last[] = {-1};
  return sum(Normal(Tensor::scalar(0.0, dtype()), expand_dims(scale_, -1)).log_prob(x - previous), last);
}

Tensor GaussianRandomWalk::mean() const { return Tensor::zeros(sample_full_shape({}), dtype()); }

Tensor GaussianRandomWalk::variance() const {
  std::vector<double> t;
  for (std::int64_t i = 1; i <= num_steps(); ++i) t.push_back(double(i));
  const Tensor steps = cast(Tensor::from(t, Shape{num_steps()}), dtype());
  return broadcast_to(expand_dims(square(scale_), -1) * steps, sample_full_shape({}));
}

Tensor GaussianRandomWalk::entropy() const {
  const double per_step = 0.5 * std::log(2 * std::numbers::pi * std::numbers::e);
  return (log(scale_) + per_step) * double(num_steps());
}

}  // namespace variate::dist
