// Indexing kernels: slices, concatenation, gathers, and the adjoints that add into an output
// (slice_add, scatter_add, take_add). Index values were range-checked by the caller.
// The scatter-type kernels split work by output column (a position off the indexed axis), so each
// output element is accumulated by one thread in source order: no races, and the same rounding
// for any thread count.
#include <algorithm>
#include <climits>
#include <cstring>

#include "tensor/cpu/cpu_binder.hpp"
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

// A tensor viewed as [outer, n, inner] around `axis`.
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

template <class Fn>
void dispatch_index(DType t, Fn&& fn) {
  if (t == DType::i32)
    fn(std::int32_t{});
  else
    fn(std::int64_t{});
}

// Runs fn(r) for every row r in [0, rows), rows being `width` elements long, in parallel when large.
template <class Fn>
void for_rows(std::int64_t rows, std::int64_t width, Fn&& fn) {
  parallel_chunks(
      rows,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t r = b; r < e; ++r) fn(r);
      },
      std::max<std::int64_t>(1, kParallelGrain / std::max<std::int64_t>(1, width)));
}

// For every source position (a, i, c) of `src` viewed as [outer, n, inner], adds it into
// out[a, row_of(a, i, c), c] where out is [outer, out_n, inner]. Threads own disjoint (a, c)
// columns and walk i in order.
template <class T, class RowOf>
void add_by_columns(const T* src, const AxisView& s, std::int64_t out_n, T* out, RowOf row_of) {
  const std::int64_t columns = s.outer * s.inner;
  if (columns == 0) return;
  parallel_chunks(
      columns,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t a = b / s.inner; a * s.inner < e; ++a) {
          const std::int64_t c0 = std::max(b - a * s.inner, std::int64_t(0));
          const std::int64_t c1 = std::min(e - a * s.inner, s.inner);
          for (std::int64_t i = 0; i < s.n; ++i) {
            const T* row = src + (a * s.n + i) * s.inner;
            T* base = out + a * out_n * s.inner;
            for (std::int64_t c = c0; c < c1; ++c) {
              T& dst = base[std::int64_t(row_of(a, i, c)) * s.inner + c];
              dst = T(dst + row[c]);
            }
          }
        }
      },
      std::max<std::int64_t>(1, kParallelGrain / std::max<std::int64_t>(1, s.n)));
}

// Like make_plan, but for operands given by their strides over out's dims (0 where not advancing).
StridedPlan<2> plan_from_strides(const Shape& out, const std::array<std::array<std::int64_t, kMaxRank>, 2>& full) {
  StridedPlan<2> plan;
  for (int i = 0; i < out.rank(); ++i) {
    if (out[i] == 1) continue;
    const int r = plan.rank;
    const bool merge =
        r > 0 && plan.strides[0][r - 1] == full[0][i] * out[i] && plan.strides[1][r - 1] == full[1][i] * out[i];
    const int d = merge ? r - 1 : r;
    plan.dims[d] = merge ? plan.dims[d] * out[i] : out[i];
    plan.strides[0][d] = full[0][i];
    plan.strides[1][d] = full[1][i];
    if (!merge) ++plan.rank;
  }
  return plan;
}

}  // namespace

void CpuBackend::slice(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) {
  const AxisView in = axis_view(x.shape(), axis), o = axis_view(out.shape(), axis);
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    if (step == 1 || o.n == 1) {  // one run per outer index: a latent site of a batch of chains
      const std::int64_t run = o.n * o.inner;
      for_rows(o.outer, run, [&](std::int64_t a) {
        const T* src = px + (a * in.n + start) * o.inner;
        std::copy(src, src + run, po + a * run);
      });
      return;
    }
    for_rows(o.outer * o.n, o.inner, [&](std::int64_t r) {
      const T* src = px + ((r / o.n) * in.n + start + (r % o.n) * step) * o.inner;
      std::copy(src, src + o.inner, po + r * o.inner);
    });
  });
}

void CpuBackend::slice_add(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) {
  const AxisView in = axis_view(x.shape(), axis), o = axis_view(out.shape(), axis);
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    if (step == 1 || in.n == 1) {  // one run per outer index
      const std::int64_t run = in.n * in.inner;
      for_rows(in.outer, run, [&](std::int64_t a) {
        const T* src = px + a * run;
        T* dst = po + (a * o.n + start) * in.inner;
        for (std::int64_t c = 0; c < run; ++c) dst[c] = T(dst[c] + src[c]);
      });
      return;
    }
    // step > 0, so distinct source rows land on distinct output rows.
    for_rows(in.outer * in.n, in.inner, [&](std::int64_t r) {
      const T* src = px + r * in.inner;
      T* dst = po + ((r / in.n) * o.n + start + (r % in.n) * step) * in.inner;
      for (std::int64_t c = 0; c < in.inner; ++c) dst[c] = T(dst[c] + src[c]);
    });
  });
}

namespace {

// Bound slices (cpu_binder.hpp): step 1 (or one index), small enough that for_rows runs it on one
// thread. The part is `rows` runs of n elements, one per index of the axes before `axis`, which lie
// strides[0] elements apart in the whole (one run for a slice of the leading axis; a batch of
// chains' rows for a latent site of a vectorized point).
template <class T>
void run_bound_slice(const BoundKernel& k) {
  const T* src = static_cast<const T*>(k.a);
  T* dst = static_cast<T*>(k.out);
  const std::int64_t stride = k.strides[0];
  if (k.n == 1) {  // a scalar site of each chain: a gather, not a copy call per row
    for (std::int64_t r = 0; r < k.rows; ++r) dst[r] = src[r * stride];
    return;
  }
  for (std::int64_t r = 0; r < k.rows; ++r) std::copy(src + r * stride, src + r * stride + k.n, dst + r * k.n);
}

template <class T>
void run_bound_slice_add(const BoundKernel& k) {
  const T* src = static_cast<const T*>(k.a);
  T* dst = static_cast<T*>(k.out);
  const std::int64_t stride = k.strides[0];
  for (std::int64_t r = 0; r < k.rows; ++r)
    for (std::int64_t i = 0; i < k.n; ++i) dst[r * stride + i] = T(dst[r * stride + i] + src[r * k.n + i]);
}

// The runs of the range [start, start + part.dim(axis)) along `axis` of whole, bound into k (its
// offset into whole returned), or -1 when they are not contiguous runs or not small.
std::int64_t bind_runs(const Shape& whole, const Shape& part, int axis, std::int64_t start, std::int64_t step,
                       BoundKernel& k) {
  const AxisView w = axis_view(whole, axis), p = axis_view(part, axis);
  if ((step != 1 && p.n != 1) || p.outer * p.n * p.inner >= kParallelGrain || w.n * w.inner > INT32_MAX) return -1;
  k.rows = p.outer;
  k.n = p.n * p.inner;
  k.strides[0] = std::int32_t(w.n * w.inner);
  return start * w.inner;
}

}  // namespace

BoundKernel CpuBinder::slice(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) const {
  BoundKernel k;
  const std::int64_t offset = bind_runs(x.shape(), out.shape(), axis, start, step, k);
  if (offset < 0) return {};
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    k.run = &run_bound_slice<T>;
    k.a = x.data<T>() + offset;
    k.out = out.data<T>();
  });
  return k;
}

BoundKernel CpuBinder::slice_add(const Tensor& x, int axis, std::int64_t start, std::int64_t step, Tensor& out) const {
  BoundKernel k;
  const std::int64_t offset = bind_runs(out.shape(), x.shape(), axis, start, step, k);
  if (offset < 0) return {};
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    k.run = &run_bound_slice_add<T>;
    k.a = x.data<T>();
    k.out = out.data<T>() + offset;
  });
  return k;
}

void CpuBackend::concat(std::span<const Tensor> xs, int axis, Tensor& out) {
  // Each input contributes one contiguous block per outer index; copying bytes serves every dtype.
  const AxisView o = axis_view(out.shape(), axis);
  const std::size_t inner_bytes = std::size_t(o.inner) * itemsize(out.dtype());
  char* po = static_cast<char*>(out.raw());
  for_rows(o.outer, o.n * o.inner, [&](std::int64_t a) {
    char* dst = po + std::size_t(a * o.n) * inner_bytes;
    for (const Tensor& x : xs) {
      const std::size_t bytes = std::size_t(x.dim(axis)) * inner_bytes;
      std::memcpy(dst, static_cast<const char*>(x.raw()) + std::size_t(a) * bytes, bytes);
      dst += bytes;
    }
  });
}

void CpuBackend::gather(const Tensor& x, int axis, const Tensor& index, Tensor& out) {
  // index has out's shape; x is read with stride 0 on the indexed axis (the index supplies that
  // offset) and on the dims where it broadcasts.
  const auto xs = row_major_strides(x.shape());
  std::array<std::array<std::int64_t, kMaxRank>, 2> strides{};
  strides[0] = row_major_strides(index.shape());
  for (int i = 0; i < out.rank(); ++i) strides[1][i] = i == axis || x.dim(i) == 1 ? 0 : xs[i];
  const auto plan = plan_from_strides(out.shape(), strides);
  const std::int64_t axis_stride = xs[axis];
  dispatch_dtype(x.dtype(), [&](auto zero) {
    dispatch_index(index.dtype(), [&](auto index_zero) {
      using T = decltype(zero);
      using I = decltype(index_zero);
      const T* px = x.data<T>();
      const I* pi = index.data<I>();
      T* po = out.data<T>();
      parallel_chunks(out.numel(), [&](std::int64_t s, std::int64_t e) {
        strided_range(plan, s, e, [&](std::int64_t o, auto off, std::int64_t len, auto inner) {
          for (std::int64_t i = 0; i < len; ++i)
            po[o + i] = px[off[1] + i * inner[1] + std::int64_t(pi[off[0] + i * inner[0]]) * axis_stride];
        });
      });
    });
  });
}

void CpuBackend::scatter_add(const Tensor& src, int axis, const Tensor& index, Tensor& out) {
  const AxisView s = axis_view(src.shape(), axis);  // index has src's shape
  const std::int64_t out_n = out.dim(axis);
  dispatch_dtype(src.dtype(), [&](auto zero) {
    dispatch_index(index.dtype(), [&](auto index_zero) {
      using T = decltype(zero);
      using I = decltype(index_zero);
      const I* pi = index.data<I>();
      add_by_columns(src.data<T>(), s, out_n, out.data<T>(),
                     [&](std::int64_t a, std::int64_t i, std::int64_t c) { return pi[(a * s.n + i) * s.inner + c]; });
    });
  });
}

void CpuBackend::take(const Tensor& x, int axis, const Tensor& index, Tensor& out) {
  const AxisView in = axis_view(x.shape(), axis), o = axis_view(out.shape(), axis);
  dispatch_dtype(x.dtype(), [&](auto zero) {
    dispatch_index(index.dtype(), [&](auto index_zero) {
      using T = decltype(zero);
      using I = decltype(index_zero);
      const T* px = x.data<T>();
      const I* pi = index.data<I>();
      T* po = out.data<T>();
      for_rows(o.outer * o.n, o.inner, [&](std::int64_t r) {
        const T* row = px + ((r / o.n) * in.n + std::int64_t(pi[r % o.n])) * o.inner;
        std::copy(row, row + o.inner, po + r * o.inner);
      });
    });
  });
}

void CpuBackend::take_add(const Tensor& src, int axis, const Tensor& index, Tensor& out) {
  const AxisView s = axis_view(src.shape(), axis);
  const std::int64_t out_n = out.dim(axis);
  dispatch_dtype(src.dtype(), [&](auto zero) {
    dispatch_index(index.dtype(), [&](auto index_zero) {
      using T = decltype(zero);
      using I = decltype(index_zero);
      const I* pi = index.data<I>();
      add_by_columns(src.data<T>(), s, out_n, out.data<T>(),
                     [&](std::int64_t, std::int64_t i, std::int64_t) { return pi[i]; });
    });
  });
}

}  // namespace variate::cpu
