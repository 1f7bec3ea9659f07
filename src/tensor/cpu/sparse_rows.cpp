#include "tensor/cpu/sparse_rows.hpp"

#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/cpu/derived_copies.hpp"
#include "tensor/cpu/simd.hpp"
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

constexpr std::size_t kKeptCopies = 4;  // as glm_panels
constexpr std::int64_t kRowsPerTask = 256;

template <class T>
SparseRows compress(const Tensor& x) {
  const std::int64_t n = x.dim(0), d = x.dim(1);
  if (d > std::numeric_limits<std::int32_t>::max()) return {};
  const T* px = x.data<T>();
  Tensor starts = Tensor::empty(Shape{n + 1}, DType::i64);
  std::int64_t* ps = starts.data<std::int64_t>();
  ps[0] = 0;
  parallel_blocks(n, kRowsPerTask, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      std::int64_t count = 0;
      for (std::int64_t j = 0; j < d; ++j) count += px[i * d + j] != T(0);
      ps[i + 1] = count;
    }
  });
  for (std::int64_t i = 0; i < n; ++i) ps[i + 1] += ps[i];
  const std::int64_t nonzeros = ps[n];
  if (double(nonzeros) >= kSparseRowsMaxDensity * double(n) * double(d)) return {};
  SparseRows rows{starts, Tensor::empty(Shape{nonzeros}, DType::i32), Tensor::empty(Shape{nonzeros}, x.dtype())};
  std::int32_t* pc = rows.columns.data<std::int32_t>();
  T* pv = rows.values.data<T>();
  parallel_blocks(n, kRowsPerTask, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      std::int64_t p = ps[i];
      for (std::int64_t j = 0; j < d; ++j) {
        if (px[i * d + j] == T(0)) continue;
        pc[p] = std::int32_t(j);
        pv[p++] = px[i * d + j];
      }
    }
  });
  return rows;
}

// Calls body(std::integral_constant<int, V>, c0) for tiles of V vectors covering the columns
// [c0, c0 + V lanes) of [0, vectors lanes), V <= 8, so that a tile's accumulators stay in registers.
template <class Body>
void for_each_column_tile(std::int64_t vectors, Body&& body) {
  std::int64_t v0 = 0;
  for (; v0 + 8 <= vectors; v0 += 8) body(std::integral_constant<int, 8>{}, v0);
  switch (vectors - v0) {
    case 7: return body(std::integral_constant<int, 7>{}, v0);
    case 6: return body(std::integral_constant<int, 6>{}, v0);
    case 5: return body(std::integral_constant<int, 5>{}, v0);
    case 4: return body(std::integral_constant<int, 4>{}, v0);
    case 3: return body(std::integral_constant<int, 3>{}, v0);
    case 2: return body(std::integral_constant<int, 2>{}, v0);
    case 1: return body(std::integral_constant<int, 1>{}, v0);
    default: return;
  }
}

// The nonzeros of the rows from r0 on, as the products read them.
template <class T>
struct Nonzeros {
  Nonzeros(const SparseRows& x, std::int64_t r0)
      : starts(x.starts.data<std::int64_t>() + r0),
        columns(x.columns.data<std::int32_t>()),
        values(x.values.data<T>()) {}
  const std::int64_t* starts;
  const std::int32_t* columns;
  const T* values;
};

}  // namespace

SparseRows sparse_rows(const Tensor& x) {
  static auto& copies = *new DerivedCopies<SparseRows>(kKeptCopies);  // never destroyed: see backend()
  return copies.get(x,
                    [](const Tensor& x) { return x.dtype() == DType::f32 ? compress<float>(x) : compress<double>(x); });
}

template <class T>
std::int64_t sparse_rows_stride(std::int64_t n) {
  constexpr std::int64_t L = Simd<T>::lanes;
  return (n + L - 1) / L * L;
}

template <class T>
void sparse_rows_times(const SparseRows& x, std::int64_t r0, std::int64_t rows, const T* w, T* z, std::int64_t n) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  const Nonzeros<T> nz(x, r0);
  const std::int64_t stride = sparse_rows_stride<T>(n), vectors = stride / S::lanes;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t p0 = nz.starts[i], p1 = nz.starts[i + 1];
    T* zi = z + i * n;
    for_each_column_tile(vectors, [&](auto tile, std::int64_t v0) {
      constexpr int V = decltype(tile)::value;
      const std::int64_t c0 = v0 * S::lanes;
      Vec acc[V] = {};
      for (std::int64_t p = p0; p < p1; ++p) {
        const T* wj = w + std::int64_t(nz.columns[p]) * stride + c0;
        const Vec xv = Vec{} + nz.values[p];
        for (int v = 0; v < V; ++v) acc[v] += xv * S::load(wj + v * S::lanes);
      }
      for (int v = 0; v < V; ++v) {
        const std::int64_t c = c0 + v * S::lanes;
        if (c + S::lanes <= n)
          S::store(zi + c, acc[v]);
        else  // the last, partial vector: its padding lanes are not z's
          std::memcpy(zi + c, &acc[v], std::size_t(n - c) * sizeof(T));
      }
    });
  }
}

template <class T>
void sparse_rows_transposed_times_add(const SparseRows& x, std::int64_t r0, std::int64_t rows, const T* g, T* out,
                                      std::int64_t n) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  const Nonzeros<T> nz(x, r0);
  const std::int64_t stride = sparse_rows_stride<T>(n), vectors = stride / S::lanes;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t p0 = nz.starts[i], p1 = nz.starts[i + 1];
    const T* gi = g + i * n;
    for_each_column_tile(vectors, [&](auto tile, std::int64_t v0) {
      constexpr int V = decltype(tile)::value;
      const std::int64_t c0 = v0 * S::lanes;
      Vec gv[V];
      for (int v = 0; v < V; ++v) {
        const std::int64_t c = c0 + v * S::lanes;
        gv[v] = c + S::lanes <= n ? S::load(gi + c) : S::load_first(gi + c, int(n - c));
      }
      for (std::int64_t p = p0; p < p1; ++p) {
        T* oj = out + std::int64_t(nz.columns[p]) * stride + c0;
        const Vec xv = Vec{} + nz.values[p];
        for (int v = 0; v < V; ++v) S::store(oj + v * S::lanes, S::load(oj + v * S::lanes) + xv * gv[v]);
      }
    });
  }
}

template std::int64_t sparse_rows_stride<float>(std::int64_t);
template std::int64_t sparse_rows_stride<double>(std::int64_t);
template void sparse_rows_times<float>(const SparseRows&, std::int64_t, std::int64_t, const float*, float*,
                                       std::int64_t);
template void sparse_rows_times<double>(const SparseRows&, std::int64_t, std::int64_t, const double*, double*,
                                        std::int64_t);
template void sparse_rows_transposed_times_add<float>(const SparseRows&, std::int64_t, std::int64_t, const float*,
                                                      float*, std::int64_t);
template void sparse_rows_transposed_times_add<double>(const SparseRows&, std::int64_t, std::int64_t, const double*,
                                                       double*, std::int64_t);

}  // namespace variate::cpu
