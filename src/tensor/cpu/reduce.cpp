// Reductions over any set of axes, argmax, cumsum and the linear recurrence. Results do not depend
// on the thread count: work is split into blocks whose size depends only on the shape, and partial
// results are combined in block order.
#include <cmath>
#include <limits>

#include "tensor/cpu/cpu_binder.hpp"
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

// x viewed with adjacent axes of the same kind (reduced or kept) merged and size-1 axes dropped.
struct MergedAxes {
  int rank = 0;
  std::int64_t dims[kMaxRank];
  std::int64_t x_strides[kMaxRank];
  std::int64_t out_strides[kMaxRank];  // 0 on reduced axes
  bool reduced[kMaxRank];
};

MergedAxes merge_axes(const Shape& shape, std::span<const bool> reduced) {
  MergedAxes m;
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape[i] == 1) continue;
    if (m.rank > 0 && m.reduced[m.rank - 1] == reduced[i]) {
      m.dims[m.rank - 1] *= shape[i];
    } else {
      m.dims[m.rank] = shape[i];
      m.reduced[m.rank] = reduced[i];
      ++m.rank;
    }
  }
  std::int64_t xs = 1, os = 1;
  for (int i = m.rank - 1; i >= 0; --i) {
    m.x_strides[i] = xs;
    xs *= m.dims[i];
    m.out_strides[i] = m.reduced[i] ? 0 : os;
    if (!m.reduced[i]) os *= m.dims[i];
  }
  return m;
}

// op folded over x[0, n) onto acc. Past 16 values, eight interleaved partial results (combined
// pairwise at the end) let the operations overlap, where one chain waits out each addition's latency.
// The order depends on n only: the same bits on any thread count, bound or not.
template <class A, class T, class Op>
A fold(A acc, const T* x, std::int64_t n, Op op) {
  std::int64_t i = 0;
  if (n >= 16) {
    A part[8];
    for (int l = 0; l < 8; ++l) part[l] = A(x[l]);
    for (i = 8; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) part[l] = op(part[l], A(x[i + l]));
    for (int width = 4; width >= 1; width /= 2)
      for (int l = 0; l < width; ++l) part[l] = op(part[l], part[l + width]);
    acc = op(acc, part[0]);
  }
  for (; i < n; ++i) acc = op(acc, A(x[i]));
  return acc;
}

template <class T, class A, class Op>
void accumulate(const MergedAxes& m, int depth, const T* x, A* out, Op op) {
  const std::int64_t n = m.dims[depth];
  if (depth == m.rank - 1) {
    if (m.reduced[depth]) {
      *out = fold(*out, x, n, op);
    } else {
      for (std::int64_t i = 0; i < n; ++i) out[i] = op(out[i], A(x[i]));
    }
    return;
  }
  for (std::int64_t i = 0; i < n; ++i)
    accumulate(m, depth + 1, x + i * m.x_strides[depth], out + i * m.out_strides[depth], op);
}

template <class T, class A, class Op>
void reduce_into(const Tensor& x, std::span<const bool> reduced, A* out, std::int64_t out_n, A init, Op op) {
  std::fill(out, out + out_n, init);
  if (x.numel() == 0) return;
  const MergedAxes m = merge_axes(x.shape(), reduced);
  const T* px = x.data<T>();
  if (m.rank == 0) {
    if (x.numel() == 1) out[0] = op(out[0], A(px[0]));
    return;
  }
  const std::int64_t top = m.dims[0], inner = m.x_strides[0];
  if (!m.reduced[0]) {  // disjoint outputs per top index
    parallel_chunks(
        top,
        [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i)
            if (m.rank == 1)
              out[i] = op(out[i], A(px[i]));
            else
              accumulate(m, 1, px + i * inner, out + i * m.out_strides[0], op);
        },
        std::max<std::int64_t>(1, kParallelGrain / inner));
    return;
  }
  // Top axis reduced: fixed-size blocks of it, one partial result each, combined in order.
  const std::int64_t block = std::max<std::int64_t>(1, kParallelGrain / inner);
  const std::int64_t blocks = (top + block - 1) / block;
  if (blocks == 1) {
    accumulate(m, 0, px, out, op);
    return;
  }
  // Scratch comes from the tensor allocator, which recycles it: no heap allocation per call.
  Tensor scratch = Tensor::empty(Shape{blocks * out_n}, dtype_of<A>::value);
  A* partial = scratch.data<A>();
  std::fill(partial, partial + blocks * out_n, init);
  const MergedAxes sub = m;
  parallel_chunks(
      blocks,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t k = b; k < e; ++k) {
          MergedAxes part = sub;
          part.dims[0] = std::min(block, top - k * block);
          accumulate(part, 0, px + k * block * inner, partial + k * out_n, op);
        }
      },
      1);
  for (std::int64_t k = 0; k < blocks; ++k)
    for (std::int64_t i = 0; i < out_n; ++i) out[i] = op(out[i], partial[k * out_n + i]);
}

// Calls use(init, f) with op's identity and combining function in the accumulator type A.
template <class A, class Use>
void with_reduce_function(ReduceOp op, Use&& use) {
  constexpr bool has_inf = std::numeric_limits<A>::has_infinity;
  const A lowest = has_inf ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::lowest();
  const A highest = has_inf ? std::numeric_limits<A>::infinity() : std::numeric_limits<A>::max();
  switch (op) {
    case ReduceOp::sum: return use(A(0), [](A a, A b) { return A(a + b); });
    case ReduceOp::prod: return use(A(1), [](A a, A b) { return A(a * b); });
    case ReduceOp::max: return use(lowest, [](A a, A b) { return (b > a || b != b) ? b : a; });
    case ReduceOp::min: return use(highest, [](A a, A b) { return (b < a || b != b) ? b : a; });
  }
}

// Sums of float tensors are accumulated in double.
template <class T>
using Accumulator = std::conditional_t<std::is_same_v<T, float>, double, T>;

template <class T>
void reduce_typed(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) {
  using A = Accumulator<T>;
  const std::int64_t n = out.numel();
  Tensor widened = std::is_same_v<A, T> ? out : Tensor::empty(out.shape(), dtype_of<A>::value);
  A* acc = widened.data<A>();
  with_reduce_function<A>(op, [&](A init, auto f) { reduce_into<T>(x, reduced, acc, n, init, f); });
  if constexpr (!std::is_same_v<A, T>) {
    T* o = out.data<T>();
    for (std::int64_t i = 0; i < n; ++i) o[i] = T(acc[i]);
  }
}

// A bound reduction (cpu_binder.hpp): x viewed as [k.rows, k.n, inner] (inner = k.strides[0]),
// reduced over its middle axis into [k.rows, inner], each output from the identity k.value over
// the reduced axis as reduce_into's single-block loops do (so the same bits).
template <class T, class F>
void run_bound_reduce(const BoundKernel& k) {
  using A = Accumulator<T>;
  const F f{};
  const T* x = static_cast<const T*>(k.a);
  T* out = static_cast<T*>(k.out);
  const std::int64_t inner = k.strides[0];
  for (std::int64_t r = 0; r < k.rows; ++r) {
    const T* row = x + r * k.n * inner;
    if (inner == 1) {
      out[r] = T(fold(A(k.value), row, k.n, f));
      continue;
    }
    for (std::int64_t j = 0; j < inner; ++j) {
      A acc = A(k.value);
      for (std::int64_t i = 0; i < k.n; ++i) acc = f(acc, A(row[i * inner + j]));
      out[r * inner + j] = T(acc);
    }
  }
}

// Views x as [outer, n, inner] around `axis`.
struct AxisView {
  std::int64_t outer = 1, n = 1, inner = 1;
};
AxisView axis_view(const Shape& s, int axis) {
  AxisView v;
  for (int i = 0; i < axis; ++i) v.outer *= s[i];
  v.n = s[axis];
  for (int i = axis + 1; i < s.rank(); ++i) v.inner *= s[i];
  return v;
}

}  // namespace

void CpuBackend::reduce(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) {
  switch (x.dtype()) {
    case DType::f64: return reduce_typed<double>(op, x, reduced, out);
    case DType::f32: return reduce_typed<float>(op, x, reduced, out);
    case DType::i64: return reduce_typed<std::int64_t>(op, x, reduced, out);
    case DType::i32: return reduce_typed<std::int32_t>(op, x, reduced, out);
    case DType::boolean: detail::fail("reduce: bool tensors must be cast before reducing");
  }
}

BoundKernel CpuBinder::reduce(ReduceOp op, const Tensor& x, std::span<const bool> reduced, Tensor& out) const {
  // Bound: floating x small enough for one block, reduced as a whole or over its trailing axes.
  if (!is_floating(x.dtype()) || x.numel() == 0 || x.numel() > kParallelGrain) return {};
  // Merged axes alternate between reduced and kept: bound up to [kept, reduced, kept].
  const MergedAxes m = merge_axes(x.shape(), reduced);
  const int first = m.rank > 0 && !m.reduced[0];  // the leading kept axis, if any
  if (m.rank - first > 2 || (m.rank > first && !m.reduced[first])) return {};
  const std::int64_t rows = first ? m.dims[0] : 1, n = m.rank > first ? m.dims[first] : 1;
  const std::int64_t inner = m.rank == first + 2 ? m.dims[first + 1] : 1;
  BoundKernel k;
  const auto bind = [&](auto zero) {
    using T = decltype(zero);
    using A = Accumulator<T>;
    with_reduce_function<A>(op, [&](A init, auto f) {
      k = {&run_bound_reduce<T, decltype(f)>, x.data<T>(), nullptr, out.data<T>(), n, rows, double(init)};
      k.strides[0] = std::int32_t(inner);
    });
  };
  if (x.dtype() == DType::f64)
    bind(0.0);
  else
    bind(0.0f);
  return k;
}

void CpuBackend::argmax(const Tensor& x, int axis, Tensor& out) {
  const AxisView v = axis_view(x.shape(), axis);
  std::int64_t* o = out.data<std::int64_t>();
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* px = x.data<T>();
    for (std::int64_t a = 0; a < v.outer; ++a)
      for (std::int64_t c = 0; c < v.inner; ++c) {
        const T* base = px + a * v.n * v.inner + c;
        std::int64_t best = 0;
        for (std::int64_t i = 1; i < v.n; ++i) {
          const T cur = base[i * v.inner], top = base[best * v.inner];
          if (top != top) break;  // NaN wins, as in NumPy
          if (cur > top || cur != cur) best = i;
        }
        o[a * v.inner + c] = best;
      }
  });
}

void CpuBackend::cumsum(const Tensor& x, int axis, bool reverse, Tensor& out) {
  const AxisView v = axis_view(x.shape(), axis);
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>) {
      detail::fail("cumsum: bool tensors must be cast first");
    } else {
      const T* px = x.data<T>();
      T* po = out.data<T>();
      for (std::int64_t a = 0; a < v.outer; ++a)
        for (std::int64_t c = 0; c < v.inner; ++c) {
          const std::int64_t base = a * v.n * v.inner + c;
          T acc = 0;
          for (std::int64_t k = 0; k < v.n; ++k) {
            const std::int64_t i = reverse ? v.n - 1 - k : k;
            acc += px[base + i * v.inner];
            po[base + i * v.inner] = acc;
          }
        }
    }
  });
}

void CpuBackend::linear_recurrence(const Tensor& a, const Tensor& u, int axis, bool adjoint, Tensor& out) {
  const AxisView v = axis_view(u.shape(), axis);
  if (v.n == 0) return;
  dispatch_dtype(u.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_floating_point_v<T>) {
      detail::fail("linear_recurrence: expected floating tensors, got ", u.dtype());
    } else {
      const T *pa = a.data<T>(), *pu = u.data<T>();
      T* po = out.data<T>();
      const std::int64_t step = v.inner;
      // Each series (one per outer and inner index) runs on its own, on any thread.
      parallel_chunks(
          v.outer * v.inner,
          [&](std::int64_t s, std::int64_t e) {
            for (std::int64_t series = s; series < e; ++series) {
              const std::int64_t b = series / v.inner, c = series % v.inner;
              const std::int64_t first = b * v.n * v.inner + c, last = first + (v.n - 1) * step;
              if (!adjoint) {
                T h = po[first] = pu[first];
                for (std::int64_t i = first + step; i <= last; i += step) po[i] = h = pa[i] * h + pu[i];
              } else {
                T h = po[last] = pu[last];
                for (std::int64_t i = last - step; i >= first; i -= step) po[i] = h = pu[i] + pa[i + step] * h;
              }
            }
          },
          std::max<std::int64_t>(1, kParallelGrain / v.n));
    }
  });
}

}  // namespace variate::cpu
