#include "variate/distributions/deterministic.hpp"

#include <cmath>

#include "variate/distributions/parameters.hpp"

namespace variate::dist {

Deterministic::Deterministic(Tensor loc) : Distribution(loc.shape(), {}, dist::common_float_type({loc})) {
  dist::check_finite("Deterministic", "loc", loc);
  loc_ = dist::as_dtype(loc, dtype());
}

Tensor Deterministic::sample(random::Key, const Shape& sample_shape) const {
  return broadcast_to(loc_, sample_full_shape(sample_shape));
}

Tensor Deterministic::log_prob(const Tensor& value) const {
  const Tensor x = prim::cast(value, dtype());
  const Tensor elsewhere =
      prim::where(prim::binary(BinaryOp::ne, x, x), Tensor::scalar(NAN, dtype()), Tensor::scalar(-INFINITY, dtype()));
  return prim::where(prim::binary(BinaryOp::eq, x, loc_), Tensor::scalar(0.0, dtype()), elsewhere);
}

Tensor Deterministic::mean() const { return loc_; }
Tensor Deterministic::variance() const { return Tensor::zeros(batch_shape(), dtype()); }

}  // namespace variate::dist
