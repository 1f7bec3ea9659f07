#pragma once
// The inner-product register tile for products X W with very few columns N (2 or 4 chains of a
// regression), used by the skinny forward product (matmul_skinny.cpp). (The fused GLM, which may
// keep a copy of X in a layout of its own, reads panels instead: glm_panels.hpp.)
//
// Broadcasting one element of X per multiply-add would leave most lanes idle and make the load
// ports the limit; here each row of X is loaded as full vectors and multiplied by the N columns of
// W (packed as N rows of k, zero-padded to whole vectors), and each result is the lane sum of its
// accumulator. Each result's operations do not depend on where its row falls in a tile.
#include <algorithm>
#include <cstdint>

#include "tensor/cpu/simd.hpp"

namespace variate::cpu {

/// Rows per tile for N columns: R x N accumulators, at most 16, so that their lane sums fill whole
/// vectors (f64 on AVX-512: 8 lanes).
constexpr int dot_tile_rows(int n) { return std::clamp(16 / n, 1, 8); }

/// Length of each packed column of W: k rounded up to whole vectors.
template <class T>
constexpr std::int64_t dot_packed_length(std::int64_t k) {
  constexpr int W = Simd<T>::lanes;
  return (k + W - 1) / W * W;
}

/// bt (n x kp) = the n columns of op(B) (k x n; B's storage is n x k when tb), zero past k.
template <class T>
void pack_dot_columns(const T* b, bool tb, std::int64_t k, int n, std::int64_t kp, T* bt) {
  for (int j = 0; j < n; ++j) {
    for (std::int64_t l = 0; l < k; ++l) bt[j * kp + l] = tb ? b[j * k + l] : b[l * n + j];
    std::fill(bt + j * kp + k, bt + (j + 1) * kp, T(0));
  }
}

/// The R x N products of k columns of rows `row`, ..., `row` + R - 1 of X (at a, row stride lda)
/// with the packed columns bt, in row-major order (result r * N + j), handed to
/// sink(row, first, count, sums) a vector at a time: lane l of `sums` is result first + l, for
/// l < count.
template <class T, int R, int N, class Sink>
void dot_tile(const T* a, std::int64_t lda, std::int64_t k, const T* bt, std::int64_t kp, std::int64_t row,
              Sink&& sink) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  constexpr int W = S::lanes;
  Vec acc[R * N];
#pragma GCC unroll 32
  for (int i = 0; i < R * N; ++i) acc[i] = Vec{};
  auto step = [&](const Vec(&x)[R], std::int64_t l) {
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) {
      const Vec b = S::load(bt + j * kp + l);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) acc[r * N + j] += x[r] * b;
    }
  };
  const std::int64_t whole = k / W * W;
  for (std::int64_t l = 0; l < whole; l += W) {
    Vec x[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) x[r] = S::load(a + r * lda + l);
    step(x, l);
  }
  if (whole < k) {  // the zero lanes meet W's zero padding
    Vec x[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) x[r] = S::load_first(a + r * lda + whole, int(k - whole));
    step(x, whole);
  }
#pragma GCC unroll 4
  for (int first = 0; first < R * N; first += W) {
    const int count = std::min(W, R * N - first);
    Vec group[W];
#pragma GCC unroll 16
    for (int i = 0; i < W; ++i) group[i] = i < count ? acc[first + i] : Vec{};
    sink(row, first, count, S::lane_sums(group));
  }
}

}  // namespace variate::cpu
