#include "variate/distributions/parameters.hpp"

#include <cmath>

#include "distributions/support_mask.hpp"
#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate::dist {

void check_defined(const char* family, const char* role, const Tensor& x) {
  VARIATE_CHECK(x.defined(), family, role, " is undefined");
}
void check_finite(const char* family, const char* role, const Tensor& x) {
  check_each(family, role, x, "finite", [](double v) { return std::isfinite(v); });
}
void check_positive(const char* family, const char* role, const Tensor& x) {
  check_each(family, role, x, "positive and finite", [](double v) { return v > 0 && std::isfinite(v); });
}
void check_nonnegative(const char* family, const char* role, const Tensor& x) {
  check_each(family, role, x, "non-negative and finite", [](double v) { return v >= 0 && std::isfinite(v); });
}
void check_probability(const char* family, const char* role, const Tensor& x) {
  check_each(family, role, x, "a probability in [0, 1]", [](double v) { return v >= 0 && v <= 1; });
}
void check_not_nan(const char* family, const char* role, const Tensor& x) {
  check_each(family, role, x, "a number (not NaN)", [](double v) { return !std::isnan(v); });
}

namespace {

void check_less(const char* family, const char* low_role, const Tensor& low, const char* high_role,
                const Tensor& high) {
  const autodiff::NoRecording reads_values;
  VARIATE_CHECK(all(lt(low, high)).item() != 0, family, low_role, " must be less than ", high_role, ", got ", low_role,
                " = ", low, " and ", high_role, " = ", high);
}

}  // namespace

void check_ordered(const char* family, const char* low_role, const Tensor& low, const char* high_role,
                   const Tensor& high) {
  if (!recording_kernels()) return check_less(family, low_role, low, high_role, high);
  host_check({low, high},
             [family = std::string(family), low_role = std::string(low_role), low, high_role = std::string(high_role),
              high] { check_less(family.c_str(), low_role.c_str(), low, high_role.c_str(), high); });
}

void check_x_if_nan(const char* family, const Tensor& log_lik, const Tensor& x) {
  const auto check = [](const char* family, const Tensor& log_lik, const Tensor& x) {
    const autodiff::NoRecording reads_values;
    if (std::isnan(sum(log_lik).item())) check_finite(family, "x", x);
  };
  if (!recording_kernels()) return check(family, log_lik, x);
  host_check({log_lik}, [check, family = std::string(family), log_lik, x] { check(family.c_str(), log_lik, x); });
}

bool is_constant_scalar(const Tensor& x, double value) {
  // Not on any transform's tape, the enclosing ones' included.
  return x.rank() == 0 && x.tape_ref().slot < 0 && same_at_every_replay(x) && x.item() == value;
}

DType common_float_type(std::initializer_list<Tensor> params) {
  bool all_f32 = true;
  for (const Tensor& p : params) all_f32 = all_f32 && p.dtype() == DType::f32;
  return all_f32 && params.size() > 0 ? DType::f32 : DType::f64;
}

Shape broadcast_batch(const char* family, std::initializer_list<Tensor> params) {
  Shape s;
  for (const Tensor& p : params) s = broadcast_shapes(family, s, p.shape());
  return s;
}

Tensor as_dtype(const Tensor& x, DType dtype) { return x.dtype() == dtype ? x : cast(x, dtype); }

Tensor in_support(const Constraint& c, const Tensor& value) {
  using K = Constraint::Kind;
  const autodiff::NoRecording mask_only;
  const Tensor& v = value;
  const Tensor zero = Tensor::scalar(0.0, float_type(v.dtype()));
  // floor(inf) == inf, so finiteness is checked too: an infinite count lies outside every support.
  auto integer = [&] { return logical_and(eq(floor(v), v), lt(abs(v), INFINITY)); };
  const int last[] = {-1};
  switch (c.kind) {
    case K::real: return lt(abs(v), INFINITY);
    // (0, inf) and (low, inf) are open at infinity too: a density there is 0 (or NaN as inf - inf).
    case K::positive: return logical_and(gt(v, zero), lt(v, INFINITY));
    case K::unit_interval: return logical_and(gt(v, zero), lt(v, 1.0));
    case K::interval: return logical_and(gt(v, c.low), lt(v, c.high));
    case K::greater_than: return logical_and(gt(v, c.low), lt(v, INFINITY));
    case K::less_than: return logical_and(lt(v, c.high), gt(v, -INFINITY));
    case K::nonnegative_integer: return logical_and(integer(), ge(v, zero));
    case K::integer_interval: return logical_and(integer(), logical_and(ge(v, c.low), le(v, c.high)));
    case K::boolean: return logical_and(integer(), logical_and(ge(v, zero), le(v, 1.0)));
    case K::simplex: return logical_and(ge(min(v, last), 0.0), lt(abs(sum(v, last) - 1.0), 1e-6));
    case K::ordered:
    case K::positive_ordered: {
      // Finite and strictly increasing along the last axis (and y_1 > 0 for positive_ordered).
      Tensor ok = all(lt(abs(v), INFINITY), last);
      const std::int64_t k = v.dim(-1);
      if (k > 1) ok = logical_and(ok, all(gt(slice(v, -1, 1, k) - slice(v, -1, 0, k - 1), zero), last));
      if (c.kind == K::positive_ordered) ok = logical_and(ok, gt(squeeze(slice(v, -1, 0, 1), -1), zero));
      return ok;
    }
    case K::unit_vector: {
      // |1 - |y|^2| within Stan's tolerance (check_unit_vector: 1e-8), looser for f32's rounding.
      const double tolerance = v.dtype() == DType::f32 ? 1e-5 : 1e-8;
      return le(abs(sum(square(v), last) - 1.0), tolerance);
    }
    case K::multinomial_counts:
      return logical_and(all(logical_and(integer(), ge(v, zero)), last), eq(sum(v, last), c.high));
    case K::corr_cholesky:
    case K::lower_cholesky: {
      // Lower triangular with a positive diagonal (and unit rows for correlation factors).
      const std::int64_t n = v.dim(-1);
      Tensor upper = Tensor::zeros(Shape{n, n}, DType::boolean);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j) upper.data<bool>()[i * n + j] = true;
      const int two[] = {-2, -1};
      Tensor ok = logical_and(eq(sum(abs(where(upper, v, zero)), two), 0.0), gt(min(diagonal(v), last), 0.0));
      if (c.kind == K::corr_cholesky) ok = logical_and(ok, all(lt(abs(sum(square(v), last) - 1.0), 1e-6), last));
      return ok;
    }
    case K::positive_definite:
    case K::corr_matrix: {
      // Finite, symmetric to a relative sqrt(eps) of the dtype, and positive definite: every pivot
      // of symmetric Gaussian elimination (the squares of the Cholesky diagonal) is positive. Made of
      // kernels only, so that a replay re-evaluates it (no host-side Cholesky).
      const std::int64_t n = v.dim(-1);
      const int two[] = {-2, -1};
      const double tolerance = v.dtype() == DType::f32 ? 3.5e-4 : 1.5e-8;
      const Tensor vt = transpose(v);
      const Tensor symmetric = le(abs(v - vt), (abs(v) + abs(vt)) * tolerance);
      Tensor ok = logical_and(all(symmetric, two), all(lt(abs(v), INFINITY), two));
      Tensor a = cast(v, float_type(v.dtype()));
      for (std::int64_t k = 0; k < n; ++k) {
        const Tensor pivot = slice(slice(a, -2, k, k + 1), -1, k, k + 1);  // (..., 1, 1)
        const Tensor positive = gt(pivot, 0.0);
        ok = logical_and(ok, all(positive, two));
        const Tensor safe = where(positive, pivot, Tensor::scalar(1.0, a.dtype()));
        a = a - slice(a, -1, k, k + 1) * slice(a, -2, k, k + 1) / safe;
      }
      if (c.kind == K::corr_matrix) ok = logical_and(ok, all(lt(abs(diagonal(v) - 1.0), 1e-6), last));
      return ok;
    }
  }
  return eq(v, v);
}

Tensor mask_outside_support(const Constraint& support, const Tensor& value, const Tensor& log_prob) {
  // NaN values are neither inside nor outside: they keep their NaN log density.
  if (support.event_ndims() == 0) return SupportMask(support, value).mask(log_prob);
  return where(in_support(support, value), log_prob, Tensor::scalar(-INFINITY, log_prob.dtype()));
}

}  // namespace variate::dist
