#include "variate/distributions/kernels.hpp"

#include <cmath>
#include <numbers>

#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {
namespace {

// (..., N, F): a 1-d tensor is N points of one feature.
Tensor with_features(const char* family, const Tensor& x) {
  VARIATE_CHECK(x.defined() && x.rank() >= 1, family, "index points must have shape (N) or (..., N, F), got ",
                x.defined() ? x.shape() : Shape{});
  return x.rank() == 1 ? expand_dims(x, -1) : x;
}

// A batch-shaped hyperparameter as (..., 1, 1), to broadcast against a (..., N, M) matrix.
Tensor as_matrix_batch(const Tensor& p) { return expand_dims(expand_dims(p, -1), -1); }

}  // namespace

StationaryKernel::StationaryKernel(const char* family, Tensor amplitude, Tensor length_scale)
    : amplitude_(std::move(amplitude)), length_scale_(std::move(length_scale)) {
  dist::check_positive(family, "amplitude", amplitude_);
  dist::check_positive(family, "length_scale", length_scale_);
  const DType dtype = dist::common_float_type({amplitude_, length_scale_});
  amplitude_ = dist::as_dtype(amplitude_, dtype);
  length_scale_ = dist::as_dtype(length_scale_, dtype);
}

Tensor StationaryKernel::distance(const Tensor& r2) {
  const Tensor positive = gt(autodiff::stop_gradient(r2), Tensor::scalar(0.0, r2.dtype()));
  return where(positive, sqrt(where(positive, r2, Tensor::scalar(1.0, r2.dtype()))), Tensor::scalar(0.0, r2.dtype()));
}

Tensor StationaryKernel::matrix(const Tensor& x1, const Tensor& x2) const {
  const Tensor a = with_features(name(), x1), b = with_features(name(), x2);
  VARIATE_CHECK(a.dim(-1) == b.dim(-1), name(), "index points with ", a.dim(-1), " and ", b.dim(-1),
                " features (shapes ", a.shape(), " and ", b.shape(), ")");
  const int last[] = {-1};
  const Tensor diff = expand_dims(a, -2) - expand_dims(b, -3);  // (..., N, M, F)
  const Tensor r2 = sum(square(diff), last) / square(as_matrix_batch(length_scale_));
  return square(as_matrix_batch(amplitude_)) * profile(r2);
}

ExponentiatedQuadratic::ExponentiatedQuadratic(Tensor amplitude, Tensor length_scale)
    : StationaryKernel("ExponentiatedQuadratic", std::move(amplitude), std::move(length_scale)) {}
Tensor ExponentiatedQuadratic::profile(const Tensor& r2) const { return exp(-0.5 * r2); }

Matern12::Matern12(Tensor amplitude, Tensor length_scale)
    : StationaryKernel("Matern12", std::move(amplitude), std::move(length_scale)) {}
Tensor Matern12::profile(const Tensor& r2) const { return exp(-distance(r2)); }

Matern32::Matern32(Tensor amplitude, Tensor length_scale)
    : StationaryKernel("Matern32", std::move(amplitude), std::move(length_scale)) {}
Tensor Matern32::profile(const Tensor& r2) const {
  const Tensor s = std::sqrt(3.0) * distance(r2);
  return (1.0 + s) * exp(-s);
}

Matern52::Matern52(Tensor amplitude, Tensor length_scale)
    : StationaryKernel("Matern52", std::move(amplitude), std::move(length_scale)) {}
Tensor Matern52::profile(const Tensor& r2) const {
  const Tensor s = std::sqrt(5.0) * distance(r2);
  return (1.0 + s + (5.0 / 3.0) * r2) * exp(-s);
}

Periodic::Periodic(Tensor amplitude, Tensor length_scale, Tensor period)
    : amplitude_(std::move(amplitude)), length_scale_(std::move(length_scale)), period_(std::move(period)) {
  dist::check_positive("Periodic", "amplitude", amplitude_);
  dist::check_positive("Periodic", "length_scale", length_scale_);
  dist::check_positive("Periodic", "period", period_);
  const DType dtype = dist::common_float_type({amplitude_, length_scale_, period_});
  amplitude_ = dist::as_dtype(amplitude_, dtype);
  length_scale_ = dist::as_dtype(length_scale_, dtype);
  period_ = dist::as_dtype(period_, dtype);
}

Tensor Periodic::matrix(const Tensor& x1, const Tensor& x2) const {
  const Tensor a = with_features(name(), x1), b = with_features(name(), x2);
  VARIATE_CHECK(a.dim(-1) == b.dim(-1), name(), "index points with ", a.dim(-1), " and ", b.dim(-1),
                " features (shapes ", a.shape(), " and ", b.shape(), ")");
  const int last[] = {-1};
  const Tensor diff = expand_dims(a, -2) - expand_dims(b, -3);  // (..., N, M, F)
  const Tensor phase = diff * (std::numbers::pi / expand_dims(as_matrix_batch(period_), -1));
  const Tensor s2 = sum(square(sin(phase)), last);  // sin^2, not a distance: smooth where x = x'
  return square(as_matrix_batch(amplitude_)) * exp(-2.0 * s2 / square(as_matrix_batch(length_scale_)));
}

}  // namespace variate::dist
