#include "variate/distributions/deterministic.hpp"

#include <cmath>

#include "distributions/probs_or_logits.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

Deterministic::Deterministic(Tensor loc) : Deterministic(loc, Unchecked{}) {
  dist::check_finite("Deterministic", "loc", loc);
}

Deterministic::Deterministic(Tensor loc, Unchecked) : Distribution(loc.shape(), {}, dist::common_float_type({loc})) {
  loc_ = dist::as_dtype(loc, dtype());
}

Tensor Deterministic::sample(random::Key, const Shape& sample_shape) const {
  return broadcast_to(loc_, sample_full_shape(sample_shape));
}

Tensor Deterministic::log_prob(const Tensor& value) const {
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor elsewhere = where(ne(x, x), Tensor::scalar(NAN, dtype()), Tensor::scalar(-INFINITY, dtype()));
  const Tensor lp = where(eq(x, loc_), Tensor::scalar(0.0, dtype()), elsewhere);
  // A point mass: 0 at loc and -inf at every other point, so no derivative in loc or in the value.
  const char* why = "a point mass: the log density jumps from 0 to -inf off loc";
  return dist::detail::not_differentiable_in(name(), "the value", why,
                                             dist::detail::not_differentiable_in(name(), "loc", why, lp, loc_), value);
}

Tensor Deterministic::mean() const { return loc_; }
Tensor Deterministic::variance() const { return Tensor::zeros(batch_shape(), dtype()); }

}  // namespace variate::dist
