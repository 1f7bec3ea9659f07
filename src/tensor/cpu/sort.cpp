// Sorting along an axis. NaN compares greater than every number (as in PyTorch), so it goes last in
// ascending and first in descending order. Ties are broken by position, which makes the order
// total: std::sort then gives the stable result without stable_sort's buffer.
#include <algorithm>
#include <type_traits>

#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

template <class T>
bool less(T a, T b) {
  return a < b || (is_nan(b) && !is_nan(a));
}

}  // namespace

void CpuBackend::sort(const Tensor& x, int axis, bool descending, Tensor* values, Tensor* indices) {
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.dim(i);
  for (int i = axis + 1; i < x.rank(); ++i) inner *= x.dim(i);
  const std::int64_t n = x.dim(axis), lines = outer * inner;
  // One contiguous permutation per line, allocated here: nothing inside the parallel region can throw.
  Tensor order = Tensor::empty(Shape{lines, n}, DType::i64);
  dispatch_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* px = x.data<T>();
    T* pv = values && values->defined() ? values->data<T>() : nullptr;
    std::int64_t* pi = indices && indices->defined() ? indices->data<std::int64_t>() : nullptr;
    std::int64_t* perm_all = order.data<std::int64_t>();
    parallel_chunks(
        lines,
        [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t line = b; line < e; ++line) {
            const std::int64_t base = (line / inner) * n * inner + line % inner;
            const T* in = px + base;
            std::int64_t* perm = perm_all + line * n;
            for (std::int64_t k = 0; k < n; ++k) perm[k] = k;
            std::sort(perm, perm + n, [&](std::int64_t i, std::int64_t j) {
              const T vi = in[i * inner], vj = in[j * inner];
              if (descending ? less(vj, vi) : less(vi, vj)) return true;
              if (descending ? less(vi, vj) : less(vj, vi)) return false;
              return i < j;
            });
            for (std::int64_t k = 0; k < n; ++k) {
              if (pv) pv[base + k * inner] = in[perm[k] * inner];
              if (pi) pi[base + k * inner] = perm[k];
            }
          }
        },
        std::max<std::int64_t>(1, kParallelGrain / std::max<std::int64_t>(1, n)));
  });
}

}  // namespace variate::cpu
