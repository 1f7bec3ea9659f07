#include "distributions/wishart_math.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "distributions/draw_gradients.hpp"
#include "distributions/probs_or_logits.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist::detail {

namespace {

const int kLast[] = {-1};
const int kMatrix[] = {-2, -1};

Tensor log_det_of_tril(const Tensor& tril) { return 2.0 * sum(log(diagonal(tril)), kLast); }

// Calls fail for the first (i, j) entry of a (..., p, p) batch where ok(i, j, a_ij, a_ji) is false.
template <class Ok>
void scan(const char* family, const char* role, const Tensor& m, const char* expected, Ok ok) {
  const autodiff::NoRecording reads_values;
  const Tensor values = cast(m, DType::f64);
  const double* v = values.data<double>();
  const std::int64_t p = m.dim(-1);
  for (std::int64_t b = 0; b < (p > 0 ? m.numel() / (p * p) : 0); ++b)
    for (std::int64_t i = 0; i < p; ++i)
      for (std::int64_t j = 0; j < p; ++j) {
        const double a = v[b * p * p + i * p + j], at = v[b * p * p + j * p + i];
        if (!ok(i, j, a, at))
          variate::detail::fail(family, ": ", role, " must be ", expected, ", got ", a, " at (", i, ", ", j,
                                ") in matrix ", b, " of the batch of shape ", m.shape());
      }
}

}  // namespace

std::int64_t check_square_scale(const char* family, const char* role, const Tensor& scale) {
  dist::check_defined(family, role, scale);
  if (scale.rank() < 2 || scale.dim(-1) != scale.dim(-2))
    variate::detail::fail(family, ": ", role, " must be square (..., p, p), got shape ", scale.shape());
  dist::check_finite(family, role, scale);
  return scale.dim(-1);
}

void check_wishart_df(const char* family, const Tensor& df, std::int64_t p) {
  const std::string expected = "greater than dimension - 1 = " + std::to_string(p - 1) + " and finite";
  const double bound = double(p - 1);
  dist::check_each(family, "df", df, expected.c_str(),
                   [bound](double v) { return v > bound && v < std::numeric_limits<double>::infinity(); });
}

Tensor scale_tril_of(const char* family, const Tensor& scale_matrix, DType dtype) {
  const double tolerance = std::sqrt(dtype == DType::f32 ? double(std::numeric_limits<float>::epsilon())
                                                         : std::numeric_limits<double>::epsilon());
  // Cholesky reads one triangle only, so an asymmetric matrix would be silently misread; a computed
  // matrix is checked again at each replay.
  const std::string f = family;
  host_check({scale_matrix}, [f, scale_matrix, tolerance] {
    scan(f.c_str(), "scale_matrix", scale_matrix, "symmetric",
         [tolerance](std::int64_t, std::int64_t, double a, double at) {
           return std::abs(a - at) <= tolerance * (std::abs(a) + std::abs(at));
         });
  });
  try {
    return cholesky(dist::as_dtype(scale_matrix, dtype));
  } catch (const Error& e) {
    variate::detail::fail(family, ": scale_matrix must be positive definite, but its Cholesky factorization failed (",
                          e.what(), ")");
  }
}

void check_scale_tril(const char* family, const Tensor& scale_tril) {
  const std::string f = family;
  host_check({scale_tril}, [f, scale_tril] {
    scan(f.c_str(), "scale_tril", scale_tril, "lower triangular with a positive diagonal",
         [](std::int64_t i, std::int64_t j, double a, double) { return i == j ? a > 0 : (j < i || a == 0); });
  });
}

Tensor log_multivariate_gamma(const Tensor& a, std::int64_t p) {
  std::vector<double> offsets;
  for (std::int64_t j = 1; j <= p; ++j) offsets.push_back(double(1 - j) / 2);
  const Tensor o = cast(Tensor::from(offsets, Shape{p}), float_type(a.dtype()));
  return sum(lgamma(expand_dims(a, -1) + o), kLast) + double(p * (p - 1)) / 4 * std::log(std::numbers::pi);
}

Tensor identity_matrix(std::int64_t p, DType dtype) {
  std::vector<double> v(std::size_t(p * p), 0.0);
  for (std::int64_t i = 0; i < p; ++i) v[std::size_t(i * p + i)] = 1.0;
  return cast(Tensor::from(v, Shape{p, p}), dtype);
}

Tensor inside_or_identity(const Tensor& inside, const Tensor& value) {
  return where(expand_dims(expand_dims(inside, -1), -1), value, identity_matrix(value.dim(-1), value.dtype()));
}

Tensor bartlett_factor(random::Key key, const Tensor& df, std::int64_t p, const Shape& batch_shape,
                       const Shape& sample_shape, DType dtype) {
  Shape diagonal_shape = sample_shape;  // sample + batch + [p]
  for (auto s : batch_shape) diagonal_shape.push_back(s);
  diagonal_shape.push_back(p);
  Shape full = diagonal_shape;
  full.push_back(p);
  const auto [gamma_key, normal_key] = random::split(key);
  std::vector<double> minus_i;
  for (std::int64_t i = 0; i < p; ++i) minus_i.push_back(-double(i));
  const Tensor offsets = cast(Tensor::from(minus_i, Shape{p}), dtype);
  // chi2(df - i) = 2 Gamma((df - i) / 2).
  const Tensor g = gamma_draw(gamma_key, (expand_dims(df, -1) + offsets) * 0.5, diagonal_shape);
  std::vector<double> below(std::size_t(p * p), 0.0);
  for (std::int64_t i = 0; i < p; ++i)
    for (std::int64_t j = 0; j < i; ++j) below[std::size_t(i * p + j)] = 1.0;
  const Tensor strictly_lower = cast(Tensor::from(below, Shape{p, p}), dtype);
  const Tensor z = random::normal(normal_key, full, dtype) * strictly_lower;
  return z + expand_dims(sqrt(2.0 * cast(g, dtype)), -1) * identity_matrix(p, dtype);
}

Tensor wishart_log_density(const Tensor& df, const Tensor& scale_tril, const Tensor& value_tril) {
  const double p = double(value_tril.dim(-1));
  const Tensor solved = triangular_solve(scale_tril, value_tril);
  const Tensor trace = sum(square(solved), kMatrix);
  return 0.5 * (df - p - 1.0) * log_det_of_tril(value_tril) - 0.5 * trace - 0.5 * p * std::numbers::ln2 * df -
         0.5 * df * log_det_of_tril(scale_tril) - log_multivariate_gamma(0.5 * df, value_tril.dim(-1));
}

Tensor inverse_wishart_log_density(const Tensor& df, const Tensor& scale_tril, const Tensor& value_tril) {
  const double p = double(value_tril.dim(-1));
  const Tensor solved = triangular_solve(value_tril, scale_tril);
  const Tensor trace = sum(square(solved), kMatrix);
  return 0.5 * df * log_det_of_tril(scale_tril) - 0.5 * p * std::numbers::ln2 * df -
         log_multivariate_gamma(0.5 * df, value_tril.dim(-1)) - 0.5 * (df + p + 1.0) * log_det_of_tril(value_tril) -
         0.5 * trace;
}

Tensor outer_product_log_jacobian(const Tensor& value_tril) {
  const std::int64_t p = value_tril.dim(-1);
  std::vector<double> exponent;
  for (std::int64_t i = 0; i < p; ++i) exponent.push_back(double(p - i));
  const Tensor e = cast(Tensor::from(exponent, Shape{p}), value_tril.dtype());
  return sum(e * log(diagonal(value_tril)), kLast) + double(p) * std::numbers::ln2;
}

Shape checked_batch(const char* family, const char* role, const Tensor& df, const Tensor& scale) {
  const std::int64_t p = check_square_scale(family, role, scale);
  check_wishart_df(family, df, p);
  return broadcast_shapes(family, df.shape(), drop_trailing(scale.shape(), 2));
}

Shape event_of(const char* family, const char* role, const Tensor& scale) {
  const std::int64_t p = check_square_scale(family, role, scale);
  return Shape{p, p};
}

void check_value(const char* family, const Tensor& value, std::int64_t p) {
  VARIATE_CHECK(value.rank() >= 2 && value.dim(-1) == p && value.dim(-2) == p, family, "value must have shape (..., ",
                p, ", ", p, "), got shape ", value.shape());
}

Tensor matrix_batch(const Tensor& x) { return expand_dims(expand_dims(x, -1), -1); }

}  // namespace variate::dist::detail
