#include "variate/distributions/gaussian_process.hpp"

#include <vector>

#include "variate/distributions/parameters.hpp"

namespace variate::dist {

namespace {

constexpr const char* kFamily = "GaussianProcess";

}  // namespace

GaussianProcess::GaussianProcess(const Kernel& kernel, Tensor index_points, Tensor observation_noise_variance,
                                 Tensor mean, double jitter)
    : GaussianProcess(build(kernel, index_points, observation_noise_variance, mean, jitter)) {}

GaussianProcess::GaussianProcess(Parts parts)
    : Distribution(parts.mvn.batch_shape(), parts.mvn.event_shape(), parts.mvn.dtype()),
      covariance_(std::move(parts.covariance)),
      mvn_(std::move(parts.mvn)) {}

GaussianProcess::Parts GaussianProcess::build(const Kernel& kernel, const Tensor& index_points, const Tensor& noise,
                                              const Tensor& mean, double jitter) {
  VARIATE_CHECK(index_points.defined() && index_points.rank() >= 1, kFamily,
                "index_points must have shape (N) or (..., N, F), got ",
                index_points.defined() ? index_points.shape() : Shape{});
  dist::check_finite(kFamily, "index_points", index_points);
  dist::check_nonnegative(kFamily, "observation_noise_variance", noise);
  VARIATE_CHECK(jitter >= 0, kFamily, "jitter must be non-negative, got ", jitter);
  const std::int64_t n = index_points.rank() == 1 ? index_points.dim(0) : index_points.dim(-2);
  const Tensor k = kernel.matrix(index_points, index_points);
  const DType dtype = dist::common_float_type({k, noise});
  std::vector<double> eye(std::size_t(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) eye[std::size_t(i * n + i)] = 1.0;
  const Tensor identity = cast(Tensor::from(eye, Shape{n, n}), dtype);
  const Tensor diagonal_term = (expand_dims(expand_dims(dist::as_dtype(noise, dtype), -1), -1) + jitter) * identity;
  Tensor covariance = dist::as_dtype(k, dtype) + diagonal_term;
  Tensor loc = mean.defined() ? mean : Tensor::zeros(Shape{n}, dtype);
  if (mean.defined()) {
    VARIATE_CHECK(mean.rank() == 0 || mean.dim(-1) == n || mean.dim(-1) == 1, kFamily, "mean must have shape (..., ", n,
                  ") (one value per index point) or broadcast to it, got ", mean.shape());
    if (mean.rank() == 0 || mean.dim(-1) == 1) loc = mean * Tensor::ones(Shape{n}, dtype);
  }
  try {
    MultivariateNormal mvn = MultivariateNormal::from_covariance(loc, covariance);
    return {std::move(covariance), std::move(mvn)};
  } catch (const Error& e) {
    variate::detail::fail(kFamily, ": the covariance K(X, X) + (observation_noise_variance + jitter) I: ", e.what());
  }
}

}  // namespace variate::dist
