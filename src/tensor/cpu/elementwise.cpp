// Element-wise kernels: fill, copy, cast, unary and binary math, where, broadcast_to.
#include <cmath>
#include <cstring>
#include <type_traits>

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

template <class T>
void unary_float(UnaryOp op, const Tensor& x, Tensor& out) {
  using D = double;  // special functions are evaluated in double, then rounded to T
  switch (op) {
    case UnaryOp::neg: return map_unary<T>(x, out, [](T v) { return T(-v); });
    case UnaryOp::exp: return map_unary<T>(x, out, [](T v) { return T(vexp(D(v))); });
    case UnaryOp::log: return map_unary<T>(x, out, [](T v) { return T(vlog(D(v))); });
    case UnaryOp::log1p: return map_unary<T>(x, out, [](T v) { return T(vlog1p(D(v))); });
    case UnaryOp::expm1: return map_unary<T>(x, out, [](T v) { return std::expm1(v); });
    case UnaryOp::sqrt: return map_unary<T>(x, out, [](T v) { return std::sqrt(v); });
    case UnaryOp::abs: return map_unary<T>(x, out, [](T v) { return std::abs(v); });
    case UnaryOp::sign: return map_unary<T>(x, out, [](T v) { return v != v ? v : T((v > 0) - (v < 0)); });
    case UnaryOp::square: return map_unary<T>(x, out, [](T v) { return v * v; });
    case UnaryOp::reciprocal: return map_unary<T>(x, out, [](T v) { return T(1) / v; });
    case UnaryOp::sigmoid: return map_unary<T>(x, out, [](T v) { return T(vsigmoid(D(v))); });
    case UnaryOp::log_sigmoid: return map_unary<T>(x, out, [](T v) { return T(-vsoftplus(-D(v))); });
    case UnaryOp::softplus: return map_unary<T>(x, out, [](T v) { return T(vsoftplus(D(v))); });
    case UnaryOp::tanh: return map_unary<T>(x, out, [](T v) { return std::tanh(v); });
    case UnaryOp::atan: return map_unary<T>(x, out, [](T v) { return std::atan(v); });
    case UnaryOp::lgamma: return map_unary<T>(x, out, [](T v) { return T(log_gamma(D(v))); });
    case UnaryOp::digamma: return map_unary<T>(x, out, [](T v) { return T(digamma(D(v))); });
    case UnaryOp::trigamma: return map_unary<T>(x, out, [](T v) { return T(trigamma(D(v))); });
    case UnaryOp::erf: return map_unary<T>(x, out, [](T v) { return std::erf(v); });
    case UnaryOp::erfc: return map_unary<T>(x, out, [](T v) { return std::erfc(v); });
    case UnaryOp::floor: return map_unary<T>(x, out, [](T v) { return std::floor(v); });
    case UnaryOp::logical_not: break;
  }
  detail::fail("unary ", name(op), ": not defined for floating tensors");
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

// A special function f(double, double), evaluated in double and rounded to T. prim::binary gives
// these ops floating operands only.
template <class T>
void map_special(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out, double (*f)(double, double)) {
  if constexpr (std::is_floating_point_v<T>) {
    map_binary<T, T>(a, b, out, [f](T x, T y) { return T(f(double(x), double(y))); });
  } else {
    detail::fail("binary ", name(op), ": not defined for integer tensors");
  }
}

template <class T>
T nan_max(T x, T y) {
  return (x > y || x != x) ? x : y;
}
template <class T>
T nan_min(T x, T y) {
  return (x < y || x != x) ? x : y;
}

template <class T>
void binary_typed(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  switch (op) {
    case BinaryOp::add: return map_binary<T, T>(a, b, out, [](T x, T y) { return T(x + y); });
    case BinaryOp::sub: return map_binary<T, T>(a, b, out, [](T x, T y) { return T(x - y); });
    case BinaryOp::mul: return map_binary<T, T>(a, b, out, [](T x, T y) { return T(x * y); });
    case BinaryOp::div: return map_binary<T, T>(a, b, out, [](T x, T y) { return T(x / y); });
    case BinaryOp::pow: return map_binary<T, T>(a, b, out, [](T x, T y) { return T(std::pow(x, y)); });
    case BinaryOp::maximum: return map_binary<T, T>(a, b, out, nan_max<T>);
    case BinaryOp::minimum: return map_binary<T, T>(a, b, out, nan_min<T>);
    case BinaryOp::igamma: return map_special<T>(op, a, b, out, igamma_p);
    case BinaryOp::igammac: return map_special<T>(op, a, b, out, igamma_q);
    case BinaryOp::eq: return map_binary<T, bool>(a, b, out, [](T x, T y) { return x == y; });
    case BinaryOp::ne: return map_binary<T, bool>(a, b, out, [](T x, T y) { return x != y; });
    case BinaryOp::lt: return map_binary<T, bool>(a, b, out, [](T x, T y) { return x < y; });
    case BinaryOp::le: return map_binary<T, bool>(a, b, out, [](T x, T y) { return x <= y; });
    case BinaryOp::gt: return map_binary<T, bool>(a, b, out, [](T x, T y) { return x > y; });
    case BinaryOp::ge: return map_binary<T, bool>(a, b, out, [](T x, T y) { return x >= y; });
    case BinaryOp::logical_and: return map_binary<T, bool>(a, b, out, [](T x, T y) { return bool(x) && bool(y); });
    case BinaryOp::logical_or: return map_binary<T, bool>(a, b, out, [](T x, T y) { return bool(x) || bool(y); });
  }
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
  parallel_chunks(bytes, [&](std::int64_t b, std::int64_t e) { std::memcpy(o + b, in + b, std::size_t(e - b)); },
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
  switch (x.dtype()) {
    case DType::f64: return unary_float<double>(op, x, out);
    case DType::f32: return unary_float<float>(op, x, out);
    case DType::i64: return unary_integer<std::int64_t>(op, x, out);
    case DType::i32: return unary_integer<std::int32_t>(op, x, out);
    case DType::boolean:
      VARIATE_CHECK(op == UnaryOp::logical_not, "unary", name(op), " is not defined for bool tensors");
      return map_unary<bool>(x, out, [](bool v) { return !v; });
  }
}

void CpuBackend::binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  dispatch_dtype(a.dtype(), [&](auto zero) { binary_typed<decltype(zero)>(op, a, b, out); });
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
