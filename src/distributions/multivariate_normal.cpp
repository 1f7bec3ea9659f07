#include "variate/distributions/multivariate_normal.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

namespace {

constexpr const char* kFamily = "MultivariateNormal";

void check_loc(const Tensor& loc) {
  dist::detail::check_min_rank(kFamily, "loc", loc, 1, "(..., k) with the event last");
  dist::check_finite(kFamily, "loc", loc);
}

// A finite (..., k, k) matrix whose k matches loc's event size.
void check_matrix(const char* role, const Tensor& m, const Tensor& loc) {
  dist::detail::check_min_rank(kFamily, role, m, 2, "(..., k, k)");
  if (m.dim(-1) != m.dim(-2))
    variate::detail::fail(kFamily, ": ", role, " must be square (..., k, k), got shape ", m.shape());
  if (m.dim(-1) != loc.dim(-1))
    variate::detail::fail(kFamily, ": ", role, " of shape ", m.shape(), " does not match loc of shape ", loc.shape(),
                          " (event size ", loc.dim(-1), ")");
  dist::check_finite(kFamily, role, m);
}

// Calls bad(matrix, i, j, value) for the first entry of m (..., k, k) for which ok(i, j, value,
// transposed value) is false.
template <class Ok, class Bad>
void scan_entries(const Tensor& m, Ok ok, Bad bad) {
  const autodiff::NoRecording reads_values;
  const Tensor values = cast(m, DType::f64);
  const double* v = values.data<double>();
  const std::int64_t k = m.dim(-1);
  for (std::int64_t b = 0; b < (k > 0 ? m.numel() / (k * k) : 0); ++b) {
    const double* a = v + b * k * k;
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t j = 0; j < k; ++j)
        if (!ok(i, j, a[i * k + j], a[j * k + i])) bad(b, i, j, a[i * k + j], a[j * k + i]);
  }
}

void check_symmetric(const Tensor& covariance_matrix, double tolerance) {
  scan_entries(
      covariance_matrix,
      [&](std::int64_t, std::int64_t, double a, double at) {
        return std::abs(a - at) <= tolerance * (std::abs(a) + std::abs(at));
      },
      [&](std::int64_t b, std::int64_t i, std::int64_t j, double a, double at) {
        variate::detail::fail(kFamily, ": covariance_matrix must be symmetric, got entries (", i, ", ", j, ") = ", a,
                              " and (", j, ", ", i, ") = ", at, " in matrix ", b, " of the batch of shape ",
                              covariance_matrix.shape());
      });
}

void check_lower_triangular(const Tensor& scale_tril) {
  // Replayed at every evaluation of a model with a computed factor: a plain pass over the upper
  // triangles first, and the scan that names the offending entry only when it fails.
  bool ok = true;
  {
    const autodiff::NoRecording reads_values;
    const Tensor values = cast(scale_tril, DType::f64);
    const double* v = values.data<double>();
    const std::int64_t k = scale_tril.dim(-1), matrices = k > 0 ? scale_tril.numel() / (k * k) : 0;
    for (std::int64_t b = 0; b < matrices; ++b)
      for (std::int64_t i = 0; i < k; ++i) {
        const double* row = v + (b * k + i) * k;
        ok &= row[i] > 0;
        for (std::int64_t j = i + 1; j < k; ++j) ok &= row[j] == 0;
      }
  }
  if (ok) return;
  scan_entries(
      scale_tril, [](std::int64_t i, std::int64_t j, double a, double) { return i == j ? a > 0 : (j < i || a == 0); },
      [&](std::int64_t b, std::int64_t i, std::int64_t j, double a, double) {
        variate::detail::fail(kFamily, ": scale_tril must be lower triangular with a positive diagonal, got ", a,
                              " at (", i, ", ", j, ") in matrix ", b, " of the batch of shape ", scale_tril.shape());
      });
}

Tensor eye(std::int64_t k, DType dtype) {
  Tensor e = Tensor::zeros(Shape{k, k}, DType::f64);
  for (std::int64_t i = 0; i < k; ++i) e.data<double>()[i * k + i] = 1.0;
  return cast(e, dtype);
}

}  // namespace

MultivariateNormal::MultivariateNormal(const Tensor& loc, const Tensor& scale_tril, const Shape& scale_batch)
    : Distribution(broadcast_shapes(kFamily, dist::detail::drop_trailing(loc.shape(), 1), scale_batch),
                   Shape{loc.dim(-1)}, loc.dtype()),
      loc_(loc),
      scale_tril_(scale_tril) {}

MultivariateNormal MultivariateNormal::from_covariance(Tensor loc, Tensor covariance_matrix) {
  const char* role = "covariance_matrix";
  check_loc(loc);
  check_matrix(role, covariance_matrix, loc);
  const DType dtype = dist::common_float_type({loc, covariance_matrix});
  // Cholesky reads one triangle only, so an asymmetric matrix would be silently misread. A computed
  // matrix (a GP's kernel) is checked again at each replay; a failed factorization makes the replay
  // fall back to this evaluation, which throws.
  const double tolerance = std::sqrt(dtype == DType::f32 ? double(std::numeric_limits<float>::epsilon())
                                                         : std::numeric_limits<double>::epsilon());
  host_check({covariance_matrix}, [covariance_matrix, tolerance] { check_symmetric(covariance_matrix, tolerance); });
  Tensor scale_tril;
  try {
    scale_tril = cholesky(dist::as_dtype(covariance_matrix, dtype));
  } catch (const Error& e) {
    variate::detail::fail(kFamily, ": ", role, " must be positive definite, but its Cholesky factorization failed (",
                          e.what(), ")");
  }
  return MultivariateNormal(dist::as_dtype(loc, dtype), scale_tril,
                            dist::detail::drop_trailing(covariance_matrix.shape(), 2));
}

MultivariateNormal MultivariateNormal::from_scale_tril(Tensor loc, Tensor scale_tril) {
  check_loc(loc);
  check_matrix("scale_tril", scale_tril, loc);
  // A computed factor (cholesky(K(theta)), diag(sigma) L) is checked again at each replay.
  host_check({scale_tril}, [scale_tril] { check_lower_triangular(scale_tril); });
  const DType dtype = dist::common_float_type({loc, scale_tril});
  return MultivariateNormal(dist::as_dtype(loc, dtype), dist::as_dtype(scale_tril, dtype),
                            dist::detail::drop_trailing(scale_tril.shape(), 2));
}

MultivariateNormal MultivariateNormal::from_scale_diag(Tensor loc, Tensor scale_diag) {
  const char* role = "scale_diag";
  check_loc(loc);
  dist::detail::check_min_rank(kFamily, role, scale_diag, 1, "(..., k)");
  if (scale_diag.dim(-1) != loc.dim(-1))
    variate::detail::fail(kFamily, ": ", role, " of shape ", scale_diag.shape(), " does not match loc of shape ",
                          loc.shape(), " (event size ", loc.dim(-1), ")");
  dist::check_positive(kFamily, role, scale_diag);
  const DType dtype = dist::common_float_type({loc, scale_diag});
  // diag(d) = d[..., :, None] * I, differentiable in d.
  const Tensor scale_tril = expand_dims(dist::as_dtype(scale_diag, dtype), -1) * eye(scale_diag.dim(-1), dtype);
  return MultivariateNormal(dist::as_dtype(loc, dtype), scale_tril, dist::detail::drop_trailing(scale_diag.shape(), 1));
}

Tensor MultivariateNormal::sample(random::Key key, const Shape& sample_shape) const {
  const Tensor eps = random::normal(key, sample_full_shape(sample_shape), dtype());
  return loc_ + squeeze(matmul(scale_tril_, expand_dims(eps, -1)), -1);
}

Tensor MultivariateNormal::log_prob(const Tensor& value) const {
  const std::int64_t k = event_shape()[0];
  VARIATE_CHECK(value.rank() >= 1 && value.dim(-1) == k, kFamily, "value must have shape (..., ", k,
                ") with the event last, got shape ", value.shape());
  const Tensor x = dist::as_dtype(value, dtype());
  const int last[] = {-1};
  // A value with an infinite component lies outside R^k: it is evaluated at loc instead, so that no
  // inf - inf reaches the solve or the gradients, and gets -inf.
  const Tensor outside = any(eq(abs(autodiff::stop_gradient(x)), INFINITY), last);
  const Tensor inside_x = where(expand_dims(outside, -1), loc_, x);
  const Tensor z = squeeze(triangular_solve(scale_tril_, expand_dims(inside_x - loc_, -1)), -1);
  const Tensor log_det_scale = sum(log(diagonal(scale_tril_)), last);
  const Tensor lp = -0.5 * sum(square(z), last) - log_det_scale - 0.5 * double(k) * std::log(2 * std::numbers::pi);
  return where(outside, Tensor::scalar(-INFINITY, dtype()), lp);
}

Tensor MultivariateNormal::mean() const { return broadcast_to(loc_, sample_full_shape({})); }

Tensor MultivariateNormal::variance() const {
  const int last[] = {-1};
  return broadcast_to(sum(square(scale_tril_), last), sample_full_shape({}));
}

// k (1 + log(2 pi)) / 2 + log|det scale_tril|.
Tensor MultivariateNormal::entropy() const {
  const int last[] = {-1};
  const double k = double(loc_.dim(-1));
  const Tensor log_det = sum(log(diagonal(scale_tril_)), last);
  return broadcast_to(log_det + 0.5 * k * (1 + std::log(2 * std::numbers::pi)), batch_shape());
}

}  // namespace variate::dist
