// Element-wise kernels: fill, copy, cast, unary and binary math, where, broadcast_to.
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "tensor/cpu/bessel.hpp"
#include "tensor/cpu/cpu_binder.hpp"
#include "tensor/cpu/special_functions.hpp"
#include "tensor/cpu/strided_loop.hpp"
#include "tensor/cpu/vector_math.hpp"

namespace variate::cpu {
namespace {

template <class T, class F>
void map_unary(const Tensor& x, Tensor& out, F f) {
  const T* in = x.data<T>();
  T* o = out.data<T>();
  parallel_chunks(out.numel(), [&](std::int64_t b, std::int64_t e) {
#pragma omp simd
    for (std::int64_t i = b; i < e; ++i) o[i] = f(in[i]);
  });
}

// Calls use(f) with the element function f of op for floating T: a captureless lambda, so that
// the bound kernels below can name its type. Returns false for ops not defined on floats.
template <class T, class Use>
bool with_unary_function(UnaryOp op, Use&& use) {
  using D = double;  // lgamma, digamma and trigamma are evaluated in double, then rounded to T
  switch (op) {
    case UnaryOp::neg: return use([](T v) { return T(-v); });
    // vector_math.hpp's functions run in T's own precision, at full vector width.
    case UnaryOp::exp: return use([](T v) { return vexp(v); });
    case UnaryOp::log: return use([](T v) { return vlog(v); });
    case UnaryOp::log1p: return use([](T v) { return vlog1p(v); });
    case UnaryOp::expm1: return use([](T v) { return vexpm1(v); });
    case UnaryOp::sqrt: return use([](T v) { return std::sqrt(v); });
    case UnaryOp::abs: return use([](T v) { return std::abs(v); });
    case UnaryOp::sign: return use([](T v) { return v != v ? v : T((v > 0) - (v < 0)); });
    case UnaryOp::square: return use([](T v) { return v * v; });
    case UnaryOp::reciprocal: return use([](T v) { return T(1) / v; });
    case UnaryOp::sigmoid: return use([](T v) { return vsigmoid(v); });
    case UnaryOp::log_sigmoid: return use([](T v) { return -vsoftplus(-v); });
    case UnaryOp::softplus: return use([](T v) { return vsoftplus(v); });
    case UnaryOp::tanh: return use([](T v) { return vtanh(v); });
    case UnaryOp::atan: return use([](T v) { return std::atan(v); });
    case UnaryOp::lgamma: return use([](T v) { return T(log_gamma(D(v))); });
    case UnaryOp::digamma: return use([](T v) { return T(digamma(D(v))); });
    case UnaryOp::trigamma: return use([](T v) { return T(trigamma(D(v))); });
    case UnaryOp::erf: return use([](T v) { return std::erf(v); });
    case UnaryOp::erfc: return use([](T v) { return std::erfc(v); });
    case UnaryOp::floor: return use([](T v) { return std::floor(v); });
    case UnaryOp::sin: return use([](T v) { return std::sin(v); });
    case UnaryOp::cos: return use([](T v) { return std::cos(v); });
    case UnaryOp::log_bessel_i0: return use([](T v) { return T(log_bessel_i0(D(v))); });
    case UnaryOp::bessel_i1_over_i0: return use([](T v) { return T(bessel_i1_over_i0(D(v))); });
    case UnaryOp::logical_not: return false;
  }
  return false;
}

template <class T>
void unary_integer(UnaryOp op, const Tensor& x, Tensor& out) {
  switch (op) {
    case UnaryOp::neg: return map_unary<T>(x, out, [](T v) { return T(-v); });
    case UnaryOp::abs: return map_unary<T>(x, out, [](T v) { return T(v < 0 ? -v : v); });
    case UnaryOp::sign: return map_unary<T>(x, out, [](T v) { return T((v > 0) - (v < 0)); });
    case UnaryOp::square: return map_unary<T>(x, out, [](T v) { return T(v * v); });
    default: break;
  }
  detail::fail("unary ", name(op), ": not defined for integer tensors");
}

// Runs f(a, b) over the broadcast of a and b into out (contiguous), in parallel when large.
template <class T, class R, class F>
void map_binary(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  R* po = out.data<R>();
  const std::int64_t n = out.numel();
  if (a.shape() == out.shape() && b.shape() == out.shape()) {
    parallel_chunks(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(pa[i], pb[i]);
    });
    return;
  }
  // A scalar with a tensor of the output's shape (common in small models) needs no plan.
  if (b.numel() == 1 && a.shape() == out.shape()) {
    const T y = *pb;
    parallel_chunks(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(pa[i], y);
    });
    return;
  }
  if (a.numel() == 1 && b.shape() == out.shape()) {
    const T x = *pa;
    parallel_chunks(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(x, pb[i]);
    });
    return;
  }
  const auto plan = make_plan<2>(out.shape(), {&a.shape(), &b.shape()});
  parallel_chunks(n, [&](std::int64_t s, std::int64_t e) {
    strided_range(plan, s, e, [&](std::int64_t o, auto off, std::int64_t len, auto inner) {
      const T* x = pa + off[0];
      const T* y = pb + off[1];
      R* z = po + o;
      const std::int64_t sx = inner[0], sy = inner[1];
      if (sx == 1 && sy == 1) {
        for (std::int64_t i = 0; i < len; ++i) z[i] = f(x[i], y[i]);
      } else if (sy == 0) {
        const T yv = *y;
        for (std::int64_t i = 0; i < len; ++i) z[i] = f(x[i * sx], yv);
      } else {
        for (std::int64_t i = 0; i < len; ++i) z[i] = f(x[i * sx], y[i * sy]);
      }
    });
  });
}

template <class T>
T nan_max(T x, T y) {
  return (x > y || x != x) ? x : y;
}
template <class T>
T nan_min(T x, T y) {
  return (x < y || x != x) ? x : y;
}

// Calls use(f) with the element function f(T, T) of op, a captureless lambda as for unary ops.
// Returns false for an op not defined on T.
template <class T, class Use>
bool with_binary_function(BinaryOp op, Use&& use) {
  switch (op) {
    case BinaryOp::add: return use([](T x, T y) { return T(x + y); });
    case BinaryOp::sub: return use([](T x, T y) { return T(x - y); });
    case BinaryOp::mul: return use([](T x, T y) { return T(x * y); });
    case BinaryOp::times_nonzero: return use([](T x, T y) { return x == T(0) ? T(0) : T(x * y); });
    case BinaryOp::div: return use([](T x, T y) { return T(x / y); });
    case BinaryOp::pow: return use([](T x, T y) { return T(std::pow(x, y)); });
    case BinaryOp::maximum: return use([](T x, T y) { return nan_max(x, y); });
    case BinaryOp::minimum: return use([](T x, T y) { return nan_min(x, y); });
    // Evaluated in double and rounded to T; prim::binary gives these ops floating operands only.
    case BinaryOp::igamma:
    case BinaryOp::igammac:
    case BinaryOp::gamma_log_draw_grad:
      if constexpr (std::is_floating_point_v<T>) {
        if (op == BinaryOp::igamma) return use([](T x, T y) { return T(igamma_p(double(x), double(y))); });
        if (op == BinaryOp::gamma_log_draw_grad)
          return use([](T x, T y) { return T(gamma_log_draw_grad(double(x), double(y))); });
        return use([](T x, T y) { return T(igamma_q(double(x), double(y))); });
      }
      return false;
    // Bernoulli(logits = l) at x, one pass instead of the dozen of log sigmoid(l) x + log sigmoid(-l)
    // (1 - x) with its support mask: log sigmoid(l) at 1, log sigmoid(-l) at 0, NaN at NaN, -inf
    // elsewhere; and its derivative in l, sigmoid(-l) at 1, -sigmoid(l) at 0, NaN at NaN, 0 elsewhere
    // (a constant -inf has none). One softplus or sigmoid of l or -l, chosen by a select, so that
    // the loop vectorizes; they are the element functions of UnaryOp::log_sigmoid and sigmoid, so
    // the results keep the bits of the composite form.
    case BinaryOp::bernoulli_logit_log_prob:
      if constexpr (std::is_floating_point_v<T>)
        return use([](T l, T x) {
          const T lp = -vsoftplus(x == T(1) ? -l : l);
          return (x == T(1)) | (x == T(0)) ? lp : x != x ? x : -std::numeric_limits<T>::infinity();
        });
      return false;
    case BinaryOp::bernoulli_logit_score:
      if constexpr (std::is_floating_point_v<T>)
        return use([](T l, T x) {
          const T s = vsigmoid(x == T(1) ? -l : l);
          return x == T(1) ? s : x == T(0) ? -s : x != x ? x : T(0);
        });
      return false;
    // -z^2 / 2 - b as one fused multiply-add of the exact -z / 2 (a power-of-two scaling): one
    // rounding, and the same in every loop that inlines it, where a contraction of the plain
    // expression would be the compiler's choice.
    case BinaryOp::normal_log_density:
      if constexpr (std::is_floating_point_v<T>) return use([](T z, T b) { return T(std::fma(T(-0.5) * z, z, -b)); });
      return false;
    case BinaryOp::eq: return use([](T x, T y) { return x == y; });
    case BinaryOp::ne: return use([](T x, T y) { return x != y; });
    case BinaryOp::lt: return use([](T x, T y) { return x < y; });
    case BinaryOp::le: return use([](T x, T y) { return x <= y; });
    case BinaryOp::gt: return use([](T x, T y) { return x > y; });
    case BinaryOp::ge: return use([](T x, T y) { return x >= y; });
    case BinaryOp::logical_and: return use([](T x, T y) { return bool(x) && bool(y); });
    case BinaryOp::logical_or: return use([](T x, T y) { return bool(x) || bool(y); });
  }
  return false;
}

// Bound kernels: the loops of map_unary and map_binary for an output small enough to run on one
// thread there, with the same element function, so the same bits.
template <class T, class F>
void run_bound_unary(const BoundKernel& k) {
  const F f{};
  const T* in = static_cast<const T*>(k.a);
  T* o = static_cast<T*>(k.out);
#pragma omp simd
  for (std::int64_t i = 0; i < k.n; ++i) o[i] = f(in[i]);
}

enum class Operands { same_shape, scalar_b, scalar_a };

template <class T, class F, Operands kind>
void run_bound_binary(const BoundKernel& k) {
  using R = std::invoke_result_t<F, T, T>;
  const F f{};
  const T* pa = static_cast<const T*>(k.a);
  const T* pb = static_cast<const T*>(k.b);
  R* po = static_cast<R*>(k.out);
  if constexpr (kind == Operands::same_shape) {
    for (std::int64_t i = 0; i < k.n; ++i) po[i] = f(pa[i], pb[i]);
  } else if constexpr (kind == Operands::scalar_b) {
    const T y = *pb;
    for (std::int64_t i = 0; i < k.n; ++i) po[i] = f(pa[i], y);
  } else {
    const T x = *pa;
    for (std::int64_t i = 0; i < k.n; ++i) po[i] = f(x, pb[i]);
  }
}

// The same for a single element (most calls of a scalar recursion): the loop's one iteration.
template <class T, class F>
void run_bound_binary_one(const BoundKernel& k) {
  using R = std::invoke_result_t<F, T, T>;
  *static_cast<R*>(k.out) = F{}(*static_cast<const T*>(k.a), *static_cast<const T*>(k.b));
}

// Calls are bound only where map_unary/map_binary/where run one serial loop (parallel_chunks'
// threshold).
bool serial(const Tensor& out) { return out.numel() < 2 * kParallelGrain; }

// where(cond, a, b): each operand of the output's shape or a scalar (Scalar*: read at 0).
template <class T, bool ScalarCond, bool ScalarA, bool ScalarB>
void run_bound_where(const BoundKernel& k) {
  const bool* pc = static_cast<const bool*>(k.c);
  const T* pa = static_cast<const T*>(k.a);
  const T* pb = static_cast<const T*>(k.b);
  T* po = static_cast<T*>(k.out);
  for (std::int64_t i = 0; i < k.n; ++i) po[i] = pc[ScalarCond ? 0 : i] ? pa[ScalarA ? 0 : i] : pb[ScalarB ? 0 : i];
}

// Broadcasts bound through a StridedPlan of rank 2 at most, the output viewed as [rows, n]: the
// element (r, i) of operand j is read at r * strides[2j] + i * strides[2j + 1].
template <int K>
bool bind_plan(const StridedPlan<K>& plan, BoundKernel& k) {
  if (plan.rank > 2) return false;
  const int last = plan.rank - 1;
  k.rows = plan.rank == 2 ? plan.dims[0] : 1;
  k.n = plan.rank >= 1 ? plan.dims[last] : 1;
  for (int j = 0; j < K; ++j) {
    k.strides[2 * j] = plan.rank == 2 ? std::int32_t(plan.strides[j][0]) : 0;
    k.strides[2 * j + 1] = plan.rank >= 1 ? std::int32_t(plan.strides[j][last]) : 0;
  }
  return true;
}

template <class T, class F>
void run_bound_broadcast_binary(const BoundKernel& k) {
  using R = std::invoke_result_t<F, T, T>;
  const F f{};
  const T* pa = static_cast<const T*>(k.a);
  const T* pb = static_cast<const T*>(k.b);
  R* po = static_cast<R*>(k.out);
  const std::int64_t a0 = k.strides[0], a1 = k.strides[1], b0 = k.strides[2], b1 = k.strides[3];
  for (std::int64_t r = 0; r < k.rows; ++r)
    for (std::int64_t i = 0; i < k.n; ++i) po[r * k.n + i] = f(pa[r * a0 + i * a1], pb[r * b0 + i * b1]);
}

template <class T>
void run_bound_broadcast(const BoundKernel& k) {
  const T* px = static_cast<const T*>(k.a);
  T* po = static_cast<T*>(k.out);
  for (std::int64_t r = 0; r < k.rows; ++r)
    for (std::int64_t i = 0; i < k.n; ++i) po[r * k.n + i] = px[r * k.strides[0] + i * k.strides[1]];
}

template <class From, class To>
void run_bound_cast(const BoundKernel& k) {
  const From* in = static_cast<const From*>(k.a);
  To* o = static_cast<To*>(k.out);
  for (std::int64_t i = 0; i < k.n; ++i) o[i] = static_cast<To>(in[i]);
}

template <class T>
void run_bound_fill(const BoundKernel& k) {
  T* o = static_cast<T*>(k.out);
  std::fill(o, o + k.n, static_cast<T>(k.value));
}

template <class T, std::size_t... Case>  // Case: bit 2 cond, bit 1 a, bit 0 b scalar
constexpr std::array<void (*)(const BoundKernel&), 8> where_runners(std::index_sequence<Case...>) {
  return {&run_bound_where<T, bool(Case & 4), bool(Case & 2), bool(Case & 1)>...};
}

}  // namespace

void CpuBackend::fill(Tensor& out, double value) {
  dispatch_dtype(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* o = out.data<T>();
    const T v = static_cast<T>(value);
    parallel_chunks(out.numel(), [&](std::int64_t b, std::int64_t e) { std::fill(o + b, o + e, v); });
  });
}

void CpuBackend::copy(const Tensor& x, Tensor& out) {
  const auto* in = static_cast<const char*>(x.raw());
  auto* o = static_cast<char*>(out.raw());
  const std::int64_t bytes = std::int64_t(out.nbytes());
  parallel_chunks(
      bytes, [&](std::int64_t b, std::int64_t e) { std::memcpy(o + b, in + b, std::size_t(e - b)); },
      kParallelGrain * 8);
}

void CpuBackend::cast(const Tensor& x, Tensor& out) {
  dispatch_dtype(x.dtype(), [&](auto from) {
    dispatch_dtype(out.dtype(), [&](auto to) {
      using From = decltype(from);
      using To = decltype(to);
      const From* in = x.data<From>();
      To* o = out.data<To>();
      parallel_chunks(out.numel(), [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) o[i] = static_cast<To>(in[i]);
      });
    });
  });
}

void CpuBackend::unary(UnaryOp op, const Tensor& x, Tensor& out) {
  const auto floating = [&](auto zero) {
    using T = decltype(zero);
    const bool defined = with_unary_function<T>(op, [&](auto f) {
      map_unary<T>(x, out, f);
      return true;
    });
    if (!defined) detail::fail("unary ", name(op), ": not defined for floating tensors");
  };
  switch (x.dtype()) {
    case DType::f64: return floating(0.0);
    case DType::f32: return floating(0.0f);
    case DType::i64: return unary_integer<std::int64_t>(op, x, out);
    case DType::i32: return unary_integer<std::int32_t>(op, x, out);
    case DType::boolean:
      VARIATE_CHECK(op == UnaryOp::logical_not, "unary", name(op), " is not defined for bool tensors");
      return map_unary<bool>(x, out, [](bool v) { return !v; });
  }
}

void CpuBackend::binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  dispatch_dtype(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const bool defined = with_binary_function<T>(op, [&](auto f) {
      map_binary<T, std::invoke_result_t<decltype(f), T, T>>(a, b, out, f);
      return true;
    });
    if (!defined) detail::fail("binary ", name(op), ": not defined for integer tensors");
  });
}

BoundKernel CpuBinder::where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) const {
  BoundKernel k;
  const auto operand = [&](const Tensor& t, bool& scalar) {
    scalar = t.numel() == 1 && out.numel() != 1;
    return scalar || t.shape() == out.shape();
  };
  bool sc = false, sa = false, sb = false;
  if (!serial(out) || !operand(cond, sc) || !operand(a, sa) || !operand(b, sb)) return k;
  dispatch_dtype(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    static constexpr auto runners = where_runners<T>(std::make_index_sequence<8>{});
    k = {runners[sc * 4 + sa * 2 + sb], a.data<T>(), b.data<T>(), out.data<T>(), out.numel()};
    k.c = cond.data<bool>();
  });
  return k;
}

BoundKernel CpuBinder::unary(UnaryOp op, const Tensor& x, Tensor& out) const {
  BoundKernel k;
  if (!serial(out)) return k;
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      with_unary_function<T>(op, [&](auto f) {
        k = {&run_bound_unary<T, decltype(f)>, x.data<T>(), nullptr, out.data<T>(), out.numel()};
        return true;
      });
    }
  });
  return k;
}

BoundKernel CpuBinder::binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) const {
  BoundKernel k;
  if (!serial(out) || a.dtype() != b.dtype()) return k;
  const bool same = a.shape() == out.shape() && b.shape() == out.shape();
  const bool scalar_b = !same && b.numel() == 1 && a.shape() == out.shape();
  const bool scalar_a = !same && !scalar_b && a.numel() == 1 && b.shape() == out.shape();
  const bool broadcast = !same && !scalar_b && !scalar_a;
  if (broadcast && !bind_plan(make_plan<2>(out.shape(), {&a.shape(), &b.shape()}), k)) return k;
  dispatch_dtype(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_binary_function<T>(op, [&](auto f) {
      using F = decltype(f);
      k.run = broadcast          ? &run_bound_broadcast_binary<T, F>
              : out.numel() == 1 ? &run_bound_binary_one<T, F>
              : same             ? &run_bound_binary<T, F, Operands::same_shape>
              : scalar_b         ? &run_bound_binary<T, F, Operands::scalar_b>
                                 : &run_bound_binary<T, F, Operands::scalar_a>;
      k.a = a.data<T>();
      k.b = b.data<T>();
      k.out = out.data<std::invoke_result_t<F, T, T>>();
      if (!broadcast) k.n = out.numel();
      return true;
    });
  });
  return k;
}

BoundKernel CpuBinder::fill(Tensor& out, double value) const {
  BoundKernel k;
  if (!serial(out)) return k;
  dispatch_dtype(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    k = {&run_bound_fill<T>, nullptr, nullptr, out.data<T>(), out.numel()};
    k.value = value;
  });
  return k;
}

BoundKernel CpuBinder::cast(const Tensor& x, Tensor& out) const {
  BoundKernel k;
  if (!serial(out)) return k;
  dispatch_dtype(x.dtype(), [&](auto from) {
    dispatch_dtype(out.dtype(), [&](auto to) {
      using From = decltype(from);
      using To = decltype(to);
      k = {&run_bound_cast<From, To>, x.data<From>(), nullptr, out.data<To>(), out.numel()};
    });
  });
  return k;
}

BoundKernel CpuBinder::broadcast_to(const Tensor& x, Tensor& out) const {
  BoundKernel k;
  if (!serial(out) || !bind_plan(make_plan<1>(out.shape(), {&x.shape()}), k)) return k;
  dispatch_dtype(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    k.run = &run_bound_broadcast<T>;
    k.a = x.data<T>();
    k.out = out.data<T>();
  });
  return k;
}

void CpuBackend::where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) {
  dispatch_dtype(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const bool* pc = cond.data<bool>();
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out.data<T>();
    const auto plan = make_plan<3>(out.shape(), {&cond.shape(), &a.shape(), &b.shape()});
    parallel_chunks(out.numel(), [&](std::int64_t s, std::int64_t e) {
      strided_range(plan, s, e, [&](std::int64_t o, auto off, std::int64_t len, auto inner) {
        for (std::int64_t i = 0; i < len; ++i)
          po[o + i] = pc[off[0] + i * inner[0]] ? pa[off[1] + i * inner[1]] : pb[off[2] + i * inner[2]];
      });
    });
  });
}

void CpuBackend::broadcast_to(const Tensor& x, Tensor& out) {
  dispatch_dtype(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    const auto plan = make_plan<1>(out.shape(), {&x.shape()});
    parallel_chunks(out.numel(), [&](std::int64_t s, std::int64_t e) {
      strided_range(plan, s, e, [&](std::int64_t o, auto off, std::int64_t len, auto inner) {
        for (std::int64_t i = 0; i < len; ++i) po[o + i] = px[off[0] + i * inner[0]];
      });
    });
  });
}

}  // namespace variate::cpu
