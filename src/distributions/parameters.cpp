#include "variate/distributions/parameters.hpp"

#include <cmath>

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
  const Tensor ok = prim::binary(BinaryOp::lt, low, high);
  const Tensor bad = prim::unary(UnaryOp::logical_not, ok);
  VARIATE_CHECK(prim::sum(bad).item() == 0, family, low_role, " must be less than ", high_role, ", got ", low_role,
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
    if (std::isnan(prim::sum(log_lik).item())) check_finite(family, "x", x);
  };
  if (!recording_kernels()) return check(family, log_lik, x);
  host_check({log_lik}, [check, family = std::string(family), log_lik, x] { check(family.c_str(), log_lik, x); });
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
  const Tensor v = autodiff::stop_gradient(value);
  const Tensor zero = Tensor::scalar(0.0, float_type(v.dtype()));
  auto both = [](const Tensor& a, const Tensor& b) { return prim::binary(BinaryOp::logical_and, a, b); };
  // floor(inf) == inf, so finiteness is checked too: an infinite count lies outside every support.
  auto integer = [&] {
    return both(prim::binary(BinaryOp::eq, prim::unary(UnaryOp::floor, v), v),
                prim::binary(BinaryOp::lt, prim::unary(UnaryOp::abs, v), INFINITY));
  };
  const int last[] = {-1};
  switch (c.kind) {
    case K::real: return prim::binary(BinaryOp::lt, prim::unary(UnaryOp::abs, v), INFINITY);
    // (0, inf) and (low, inf) are open at infinity too: a density there is 0 (or NaN as inf - inf).
    case K::positive: return both(prim::binary(BinaryOp::gt, v, zero), prim::binary(BinaryOp::lt, v, INFINITY));
    case K::unit_interval: return both(prim::binary(BinaryOp::gt, v, zero), prim::binary(BinaryOp::lt, v, 1.0));
    case K::interval: return both(prim::binary(BinaryOp::gt, v, c.low), prim::binary(BinaryOp::lt, v, c.high));
    case K::greater_than: return both(prim::binary(BinaryOp::gt, v, c.low), prim::binary(BinaryOp::lt, v, INFINITY));
    case K::less_than: return both(prim::binary(BinaryOp::lt, v, c.high), prim::binary(BinaryOp::gt, v, -INFINITY));
    case K::nonnegative_integer: return both(integer(), prim::binary(BinaryOp::ge, v, zero));
    case K::integer_interval:
      return both(integer(), both(prim::binary(BinaryOp::ge, v, c.low), prim::binary(BinaryOp::le, v, c.high)));
    case K::boolean:
      return both(integer(), both(prim::binary(BinaryOp::ge, v, zero), prim::binary(BinaryOp::le, v, 1.0)));
    case K::simplex: {
      const Tensor nonneg = prim::binary(BinaryOp::ge, prim::reduce(ReduceOp::min, v, last, false), 0.0);
      const Tensor total = prim::sum(v, last);
      return both(nonneg,
                  prim::binary(BinaryOp::lt, prim::unary(UnaryOp::abs, prim::binary(BinaryOp::sub, total, 1.0)), 1e-6));
    }
    case K::ordered:
    case K::positive_ordered: {
      // Finite and strictly increasing along the last axis (and y_1 > 0 for positive_ordered).
      const auto all_of = [&](const Tensor& ok) {
        return prim::binary(BinaryOp::eq, prim::reduce(ReduceOp::min, prim::cast(ok, DType::i64), last, false), 1.0);
      };
      Tensor ok = all_of(prim::binary(BinaryOp::lt, prim::unary(UnaryOp::abs, v), INFINITY));
      const std::int64_t k = v.dim(-1);
      if (k > 1) {
        const Tensor steps = prim::binary(BinaryOp::sub, prim::slice(v, -1, 1, k), prim::slice(v, -1, 0, k - 1));
        ok = both(ok, all_of(prim::binary(BinaryOp::gt, steps, zero)));
      }
      if (c.kind == K::positive_ordered)
        ok = both(ok, prim::binary(BinaryOp::gt, prim::squeeze(prim::slice(v, -1, 0, 1), -1), zero));
      return ok;
    }
    case K::unit_vector: {
      // |1 - |y|^2| within Stan's tolerance (check_unit_vector: 1e-8), looser for f32's rounding.
      const double tolerance = v.dtype() == DType::f32 ? 1e-5 : 1e-8;
      const Tensor norm2 = prim::sum(prim::unary(UnaryOp::square, v), last);
      return prim::binary(BinaryOp::le, prim::unary(UnaryOp::abs, prim::binary(BinaryOp::sub, norm2, 1.0)), tolerance);
    }
    case K::multinomial_counts: {
      const Tensor ok = both(integer(), prim::binary(BinaryOp::ge, v, zero));
      const Tensor all_ok =
          prim::binary(BinaryOp::eq, prim::reduce(ReduceOp::min, prim::cast(ok, DType::i64), last, false), 1.0);
      return both(all_ok, prim::binary(BinaryOp::eq, prim::sum(v, last), c.high));
    }
    case K::corr_cholesky:
    case K::lower_cholesky: {
      // Lower triangular with a positive diagonal (and unit rows for correlation factors).
      const std::int64_t n = v.dim(-1);
      Tensor upper = Tensor::zeros(Shape{n, n}, DType::boolean);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j) upper.data<bool>()[i * n + j] = true;
      const int two[] = {-2, -1};
      const Tensor above = prim::where(upper, v, zero);
      Tensor ok = prim::binary(BinaryOp::eq, prim::sum(prim::unary(UnaryOp::abs, above), two), 0.0);
      ok = both(ok, prim::binary(BinaryOp::gt, prim::reduce(ReduceOp::min, diagonal(v), last, false), 0.0));
      if (c.kind == K::corr_cholesky) {
        const Tensor norms = prim::sum(prim::unary(UnaryOp::square, v), last);
        const Tensor unit =
            prim::binary(BinaryOp::lt, prim::unary(UnaryOp::abs, prim::binary(BinaryOp::sub, norms, 1.0)), 1e-6);
        ok = both(ok, prim::binary(BinaryOp::eq, prim::reduce(ReduceOp::min, prim::cast(unit, DType::i64), last, false),
                                   1.0));
      }
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
      auto all = [&](const Tensor& mask) {
        return prim::binary(BinaryOp::eq, prim::reduce(ReduceOp::min, prim::cast(mask, DType::i64), two, false), 1.0);
      };
      const Tensor vt = prim::transpose(v);
      const Tensor gap = prim::unary(UnaryOp::abs, prim::sub(v, vt));
      const Tensor scale = prim::add(prim::unary(UnaryOp::abs, v), prim::unary(UnaryOp::abs, vt));
      Tensor ok = both(all(prim::binary(BinaryOp::le, gap, prim::binary(BinaryOp::mul, scale, tolerance))),
                       all(prim::binary(BinaryOp::lt, prim::unary(UnaryOp::abs, v), INFINITY)));
      Tensor a = prim::cast(v, float_type(v.dtype()));
      for (std::int64_t k = 0; k < n; ++k) {
        const Tensor pivot = prim::slice(prim::slice(a, -2, k, k + 1), -1, k, k + 1);  // (..., 1, 1)
        const Tensor positive = prim::binary(BinaryOp::gt, pivot, 0.0);
        ok = both(ok, all(positive));
        const Tensor safe = prim::where(positive, pivot, Tensor::scalar(1.0, a.dtype()));
        a = prim::sub(a, prim::div(prim::mul(prim::slice(a, -1, k, k + 1), prim::slice(a, -2, k, k + 1)), safe));
      }
      if (c.kind == K::corr_matrix) {
        const Tensor off_one = prim::unary(UnaryOp::abs, prim::binary(BinaryOp::sub, diagonal(v), 1.0));
        const Tensor unit = prim::cast(prim::binary(BinaryOp::lt, off_one, 1e-6), DType::i64);
        ok = both(ok, prim::binary(BinaryOp::eq, prim::reduce(ReduceOp::min, unit, last, false), 1.0));
      }
      return ok;
    }
  }
  return prim::binary(BinaryOp::eq, v, v);
}

Tensor mask_outside_support(const Constraint& support, const Tensor& value, const Tensor& log_prob) {
  const Tensor inside = in_support(support, value);
  // NaN values are neither inside nor outside: keep their NaN log density.
  const Tensor keep = support.event_ndims() == 0
                          ? prim::binary(BinaryOp::logical_or, inside, prim::binary(BinaryOp::ne, value, value))
                          : inside;
  return where(keep, log_prob, Tensor::scalar(-INFINITY, log_prob.dtype()));
}

}  // namespace variate::dist
