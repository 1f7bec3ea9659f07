// Products with few output columns over a large A, at the memory bound of reading A once, and
// products with a short contracted dimension, at the bound of writing the result once.
//
// A general GEMM (Goto & van de Geijn, "Anatomy of high-performance matrix multiplication", ACM
// TOMS 2008) packs panels of both operands so that a register tile is reused across a large n. With
// n <= 32 there is no such reuse: op(B) (k x n) is small, and the cost is streaming A from memory.
// Eigen still packs A, which reads and writes it again, and its register tile wastes most lanes when
// n is 10. Here A is read in place, exactly once, by one register-tile kernel (`tile`): R rows x NV
// SIMD vectors of accumulators; for each contracted index l, R broadcast scalars times NV vectors,
// i.e. the rank-1 (outer-product) form of the GEMM micro-kernel. What goes along the lanes is
// chosen so that as few lanes and broadcasts as possible are wasted:
//   * X W (A not transposed), n > kDotMaxN: lanes along n. op(B) is packed once into rows of NV
//     vectors (zero past n) that stay in cache; the broadcasts are R rows of A (`forward`).
//   * X W with n <= kDotMaxN (2 or 4 chains): lanes along k, as dot products of rows of A with the
//     columns of B and a lane sum at the end (`dot_forward`); broadcasting every element of A
//     would make the load ports the limit.
//   * X^T G (A transposed), n <= kAxpyMaxN: the transposed result G^T X, lanes along the contiguous
//     rows of A; the broadcasts are the n values of G's row l (`axpy_backward`).
//   * X^T G with larger n: lanes along n as for X W, the broadcasts are R contiguous values of a
//     row of A (`backward`).
//   * U V^T (k <= 64, n > 32) and other products with n > 32 and operands that fit in the caches:
//     lanes along n in panels of op(B); each tile is stored straight into the result (`panel`).
//
// Determinism: every element of the result is one chain of fused multiply-adds over the contracted
// index in increasing order (plus, for dot products, a fixed lane-sum order); a tile's rows and
// lanes are independent, tile positions depend only on the shape, and the single-row tile used for
// leftovers performs the same operations. When A is transposed, the contracted dimension is cut
// into "super-blocks" whose number depends only on k, and their partial results are added in
// super-block order, so the result does not depend on the thread count (DESIGN.md, "Determinism").
#include "tensor/cpu/matmul_skinny.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include "tensor/cpu/dot_tile.hpp"
#include "tensor/cpu/simd.hpp"
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

// Rows of the register tile for NV vectors of columns: as many as the accumulator registers allow,
// at most 12 (in the forward product each row is one stream of A from memory).
constexpr int tile_rows(int nv) { return std::clamp(kAccumulatorRegisters / nv, 1, 12); }

constexpr std::int64_t kForwardRowsPerBlock = 240;  // unit of parallel work when A is not transposed
constexpr std::int64_t kChunk = 32;                 // contracted rows per pass of the transposed kernel
constexpr std::int64_t kSuperBlockRows = 2048;      // contracted rows per partial result (transposed)
constexpr std::int64_t kMaxSuperBlocks = 64;
// The inner-product form (dot_forward) is used up to this n: above it, for a short k such as 51,
// the lane sums of its n accumulators per row cost more than the broadcasts it saves. (Measured on
// AVX-512 with A in L2, k = 51, ns per row of A, dot / broadcast form: f64 n = 4 10 / 29, n = 8
// 16-41 / 16; f32 n = 4 6-10 / 20, n = 8 18-27 / 19.)
constexpr int kDotMaxN = 4;
// The transposed product broadcasts B (axpy_backward) up to this n, where each l still has at least
// two vectors of A per broadcast; beyond, one broadcast of A per element (backward) costs less.
constexpr int kAxpyMaxN = kAccumulatorRegisters / 2;
constexpr int kPanelVectors = 3;                 // panel width of the panel product, in vectors
constexpr std::int64_t kPanelRowsPerBlock = 48;  // unit of parallel work there

// c (R x NV vectors, row stride ldc) = (load ? c : 0) + sum over l < len of A(r, l) * bp[l, :],
// with A(r, l) = a[r * rs + l * ls] and NV vectors at each row of bp (row stride ldb).
//
// A tile's data from X comes from short streams (R rows of X, or kChunk rows of X for the transposed
// products), too short for the hardware prefetcher to train on each one. The next tile's data is a
// contiguous range at `next` (or null), consumed at Step elements per step l, so each step
// prefetches that much of it (Step = 0: none): memory latency then overlaps the current tile's
// arithmetic. (Measured: this pays off for the transposed
// products always, and for the forward one only at one prefetch per step; with two, the extra
// load-port work outweighs what the prefetcher misses on R row streams.)
template <class T, int R, int NV, int Step = 0>
void tile(const T* a, std::int64_t rs, std::int64_t ls, const T* bp, std::int64_t ldb, std::int64_t len, T* c,
          std::int64_t ldc, bool load, const T* next) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  constexpr int W = S::lanes;
  constexpr int step_bytes = Step * int(sizeof(T));
  Vec acc[R][NV];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[r][v] = load ? S::load(c + r * ldc + v * W) : Vec{};
  for (std::int64_t l = 0; l < len; ++l) {
    Vec b[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) b[v] = S::load(bp + l * ldb + v * W);
    if (Step > 0 && next != nullptr) {
      const char* p = reinterpret_cast<const char*>(next + l * Step);
#pragma GCC unroll 4
      for (int offset = 0; offset < step_bytes; offset += 64) __builtin_prefetch(p + offset);
    }
    const T* al = a + l * ls;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      // x - 0 is x for every x (also -0), so GCC folds it into one broadcast load; 0 + x would
      // need a scalar add first.
      const Vec x = al[r * rs] - Vec{};
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] += x * b[v];
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) S::store(c + r * ldc + v * W, acc[r][v]);
}

// dst (len x ld) = rows l0 .. l0 + len and columns j0 .. j0 + cols of op(B) (k x n), zero past
// column cols.
template <class T>
void pack_b(const T* b, bool tb, std::int64_t k, std::int64_t n, std::int64_t l0, std::int64_t len, std::int64_t j0,
            std::int64_t cols, std::int64_t ld, T* dst) {
  for (std::int64_t l = 0; l < len; ++l) {
    T* row = dst + l * ld;
    for (std::int64_t j = 0; j < cols; ++j) row[j] = tb ? b[(j0 + j) * k + l0 + l] : b[(l0 + l) * n + j0 + j];
    std::fill(row + cols, row + ld, T(0));
  }
}

// Copies the first `cols` columns of `rows` rows of c (row stride ldc) to out (row stride ldo).
template <class T>
void copy_rows(const T* c, std::int64_t ldc, int rows, std::int64_t cols, T* out, std::int64_t ldo) {
  for (int r = 0; r < rows; ++r) std::copy(c + r * ldc, c + r * ldc + cols, out + r * ldo);
}

// A not transposed: blocks of rows of A (= rows of the result) in parallel; each tile of R rows
// streams its rows of A once against B packed by skinny_pack_right (k rows of NV vectors).
template <class T, int NV>
void forward(const T* a, const T* bp, T* out, std::int64_t m, std::int64_t k, std::int64_t n) {
  constexpr int R = tile_rows(NV), ld = NV * Simd<T>::lanes;
  auto rows = [&]<int Rows>(std::int64_t i) {
    T c[Rows * ld];
    constexpr bool prefetch = Rows * sizeof(T) <= 64;
    const T* next = prefetch && i + 2 * Rows <= m ? a + (i + Rows) * k : nullptr;
    tile<T, Rows, NV, prefetch ? Rows : 0>(a + i * k, k, 1, bp, ld, k, c, ld, false, next);
    copy_rows(c, ld, Rows, n, out + i * n, n);
  };
  parallel_blocks(m, kForwardRowsPerBlock, [&](std::int64_t r0, std::int64_t r1) {
    std::int64_t i = r0;
    for (; i + R <= r1; i += R) rows.template operator()<R>(i);
    for (; i < r1; ++i) rows.template operator()<1>(i);
  });
}

// How the transposed products split their work: `supers` super-blocks of `per` contracted rows
// (the last one shorter), and, when there are few (small k), also `col_blocks` blocks of
// `cols_per` columns of A (a multiple of the tile width `unit`) so that threads have work. All of it
// depends on the shape only.
struct Split {
  std::int64_t supers, per, col_blocks, cols_per;
};

Split split(std::int64_t k, std::int64_t m, std::int64_t unit) {
  Split s;
  s.supers = std::clamp<std::int64_t>((k + kSuperBlockRows - 1) / kSuperBlockRows, 1, kMaxSuperBlocks);
  s.per = (k + s.supers - 1) / s.supers;
  const std::int64_t chunk_cols = unit * ((128 + unit - 1) / unit);
  s.col_blocks = s.supers >= 4 ? 1 : (m + chunk_cols - 1) / chunk_cols;
  s.cols_per = s.supers >= 4 ? m : chunk_cols;
  return s;
}

// A transposed: the contracted dimension (rows of A's storage) is cut into super-blocks, each
// summed into its own m x ld partial result. Within a super-block, chunks of kChunk rows of A are
// swept left to right by R-column tiles, so A is read nearly sequentially (kChunk short streams)
// while the partial result, loaded and stored once per chunk, stays in L2.
template <class T, int NV>
void backward(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n, bool tb,
              bool transpose_out, bool accumulate) {
  constexpr int R = tile_rows(NV), ld = NV * Simd<T>::lanes;
  const auto [supers, per, col_blocks, cols_per] = split(k, m, R);
  Tensor scratch = Tensor::empty(Shape{supers, m, ld}, dtype_of<T>::value);
  T* partial = scratch.data<T>();
  auto item = [&](std::int64_t s, std::int64_t cb) {
    const std::int64_t l_begin = std::min(k, s * per), l_end = std::min(k, l_begin + per);
    const std::int64_t i_begin = cb * cols_per, i_end = std::min(m, i_begin + cols_per);
    T* acc = partial + s * m * ld;
    if (l_begin == l_end) std::fill(acc + i_begin * ld, acc + i_end * ld, T(0));
    T bp[kChunk * ld];
    for (std::int64_t l0 = l_begin; l0 < l_end; l0 += kChunk) {
      const std::int64_t len = std::min(kChunk, l_end - l0);
      pack_b(b, tb, k, n, l0, len, 0, n, ld, bp);
      const T* a_rows = a + l0 * m;
      const bool load = l0 != l_begin;
      // The next chunk's rows of A (len rows of m), swept at the pace of this chunk's tiles.
      const T* next = l0 + len + kChunk <= k ? a_rows + len * m : nullptr;
      std::int64_t i = i_begin;
      for (; i + R <= i_end; i += R)
        tile<T, R, NV, R>(a_rows + i, 1, m, bp, ld, len, acc + i * ld, ld, load, next ? next + i * len : nullptr);
      for (; i < i_end; ++i) tile<T, 1, NV>(a_rows + i, 1, m, bp, ld, len, acc + i * ld, ld, load, nullptr);
    }
  };
  parallel_chunks(
      supers * col_blocks,
      [&](std::int64_t s, std::int64_t e) {
        for (std::int64_t it = s; it < e; ++it) item(it / col_blocks, it % col_blocks);
      },
      1);
  // Super-blocks in order: the same additions for any thread count.
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      T total = partial[i * ld + j];
      for (std::int64_t s = 1; s < supers; ++s) total += partial[(s * m + i) * ld + j];
      T& result = out[transpose_out ? j * m + i : i * n + j];
      result = accumulate ? result + total : total;
    }
}

// Few columns (n <= kAxpyMaxN), A transposed: the transposed result G^T X (N x m) with the
// lanes along m. For each contracted index l, N broadcasts of B(l, :) meet NV vectors of the
// contiguous row l of A, instead of one broadcast per element of A in `backward`. The same tile
// serves, with B in the role of the broadcast operand; NV is the number of vectors left in the row.
template <class T, int N, int NV>
void axpy_tile(int vectors, const T* bl, std::int64_t rs_b, std::int64_t ls_b, const T* ap, std::int64_t lda,
               std::int64_t len, T* c, std::int64_t ldc, bool load, const T* next) {
  if constexpr (NV > 1) {
    if (vectors < NV) return axpy_tile<T, N, NV - 1>(vectors, bl, rs_b, ls_b, ap, lda, len, c, ldc, load, next);
  }
  tile<T, N, NV, NV * Simd<T>::lanes>(bl, rs_b, ls_b, ap, lda, len, c, ldc, load, next);
}

template <class T, int N>
void axpy_backward(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, bool tb, bool transpose_out,
                   bool accumulate) {
  constexpr int W = Simd<T>::lanes, NV = std::clamp(kAccumulatorRegisters / N, 1, 8), TW = NV * W;
  const std::int64_t mp = (m + W - 1) / W * W;  // row stride of the partial results
  const auto [supers, per, col_blocks, cols_per] = split(k, m, TW);
  const std::int64_t rs_b = tb ? k : 1, ls_b = tb ? 1 : N;  // B(l, j) = b[j * rs_b + l * ls_b]
  // With one super-block and rows of whole vectors, the tiles accumulate straight into the transposed
  // output.
  const bool direct = transpose_out && supers == 1 && mp == m;
  Tensor scratch = Tensor::empty(Shape{direct ? 0 : supers, N, mp}, dtype_of<T>::value);
  T* partial = direct ? out : scratch.data<T>();
  auto item = [&](std::int64_t s, std::int64_t cb) {
    const std::int64_t l_begin = std::min(k, s * per), l_end = std::min(k, l_begin + per);
    const std::int64_t i_begin = cb * cols_per, i_end = std::min(m, i_begin + cols_per);
    T* acc = partial + s * N * mp;
    // Accumulating straight into the output: the first chunk adds to what it holds.
    const bool add_to_output = direct && accumulate;
    if (l_begin == l_end && !add_to_output)
      for (int j = 0; j < N; ++j)
        std::fill(acc + j * mp + i_begin, acc + j * mp + std::min(mp, i_begin + cols_per), T(0));
    T padded[kChunk * TW];
    for (std::int64_t l0 = l_begin; l0 < l_end; l0 += kChunk) {
      const std::int64_t len = std::min(kChunk, l_end - l0);
      const bool load = add_to_output || l0 != l_begin;
      // The next chunk of rows of A, swept at the pace of this chunk's tiles (TW elements per row
      // and tile), when all of that lies inside A.
      const T* next = (l0 + len) * m + (m + TW - 1) / TW * TW * len <= k * m ? a + (l0 + len) * m : nullptr;
      for (std::int64_t i = i_begin; i < i_end; i += TW) {
        const std::int64_t cols = std::min<std::int64_t>(TW, i_end - i);
        const int vectors = int((cols + W - 1) / W);
        const T* ap = a + l0 * m + i;
        std::int64_t lda = m;
        // Whole vectors past column m read into the next row of A (lanes whose results are never
        // used), except after A's last row: there, copy the rows into a zero-padded buffer.
        if (i + vectors * W > m && l0 + len == k) {
          for (std::int64_t l = 0; l < len; ++l) {
            std::copy(ap + l * m, ap + l * m + cols, padded + l * TW);
            std::fill(padded + l * TW + cols, padded + (l + 1) * TW, T(0));
          }
          ap = padded;
          lda = TW;
        }
        axpy_tile<T, N, NV>(vectors, b + l0 * ls_b, rs_b, ls_b, ap, lda, len, acc + i, mp, load,
                            next ? next + i * len : nullptr);
      }
    }
  };
  parallel_chunks(
      supers * col_blocks,
      [&](std::int64_t s, std::int64_t e) {
        for (std::int64_t it = s; it < e; ++it) item(it / col_blocks, it % col_blocks);
      },
      1);
  // Super-blocks in order. The partial results hold the transposed product, so the transposed
  // output is added up a contiguous row at a time (the strided loop cost a third as much as the
  // product itself in the fused softmax GLM).
  if (direct) return;
  if (transpose_out) {
    for (int j = 0; j < N; ++j) {
      T* row = out + j * m;
      const T* first = partial + j * mp;
      for (std::int64_t i = 0; i < m; ++i) row[i] = accumulate ? row[i] + first[i] : first[i];
      for (std::int64_t s = 1; s < supers; ++s)
        for (std::int64_t i = 0; i < m; ++i) row[i] += partial[(s * N + j) * mp + i];
    }
  } else {
    for (std::int64_t i = 0; i < m; ++i)
      for (int j = 0; j < N; ++j) {
        T total = partial[j * mp + i];
        for (std::int64_t s = 1; s < supers; ++s) total += partial[(s * N + j) * mp + i];
        out[i * N + j] = accumulate ? out[i * N + j] + total : total;
      }
  }
}

// Calls axpy_backward with N = n, a compile-time constant.
template <class T, int N>
void dispatch_axpy(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n, bool tb,
                   bool transpose_out, bool accumulate) {
  if constexpr (N < kAxpyMaxN) {
    if (n > N) return dispatch_axpy<T, N + 1>(a, b, out, m, k, n, tb, transpose_out, accumulate);
  }
  axpy_backward<T, N>(a, b, out, m, k, tb, transpose_out, accumulate);
}

// Many columns and operands that fit in the caches: U V^T in matrix factorization (k = 20) and the
// layers of small networks (a batch of 100 through 784 x 200 weights). Eigen's GEMM is tuned for
// large matrices, where packing both operands and its blocking cost little per flop; at these
// shapes they cost about 20% (and it zeroes the result before accumulating into it). Here op(B) is
// packed once into panels of P = NV * lanes columns (k x P each, in L1 or L2), A is read in place,
// and each tile of R rows x P columns is computed in registers over the whole k and stored straight
// into the result, which is written once, row block by row block. (Cutting k into blocks that stay
// in L1 measured 5% slower at the network shapes: the panels' long streams prefetch well.)
template <class T>
void panel(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n, bool ta, bool tb) {
  constexpr int NV = kPanelVectors, R = tile_rows(NV), P = NV * Simd<T>::lanes;
  const std::int64_t panels = (n + P - 1) / P;
  Tensor packed = Tensor::empty(Shape{panels, k, P}, dtype_of<T>::value);
  T* bp = packed.data<T>();
  for (std::int64_t p = 0; p < panels; ++p)
    pack_b(b, tb, k, n, 0, k, p * P, std::min<std::int64_t>(P, n - p * P), P, bp + p * k * P);
  const std::int64_t rs = ta ? 1 : k, ls = ta ? m : 1;  // A(i, l) = a[i * rs + l * ls]
  parallel_blocks(m, kPanelRowsPerBlock, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t j0 = p * P, cols = std::min<std::int64_t>(P, n - j0);
      const T* panel = bp + p * k * P;
      auto rows = [&]<int Rows>(std::int64_t i) {
        if (cols == P) {
          tile<T, Rows, NV>(a + i * rs, rs, ls, panel, P, k, out + i * n + j0, n, false, nullptr);
        } else {
          T c[Rows * P];
          tile<T, Rows, NV>(a + i * rs, rs, ls, panel, P, k, c, P, false, nullptr);
          copy_rows(c, P, Rows, cols, out + i * n + j0, n);
        }
      };
      std::int64_t i = r0;
      for (; i + R <= r1; i += R) rows.template operator()<R>(i);
      for (; i < r1; ++i) rows.template operator()<1>(i);
    }
  });
}

// bt: B packed by skinny_pack_right (its N columns, each zero-padded to whole vectors).
template <class T, int N>
void dot_forward(const T* a, const T* bt, T* out, std::int64_t m, std::int64_t k) {
  constexpr int R = dot_tile_rows(N);
  const std::int64_t kp = dot_packed_length<T>(k);
  parallel_blocks(m, kForwardRowsPerBlock, [&](std::int64_t r0, std::int64_t r1) {
    std::int64_t i = r0;
    auto store = [&](std::int64_t row, int first, int count, const typename Simd<T>::Vec& sums) {
      if (count == Simd<T>::lanes) {
        Simd<T>::store(out + row * N + first, sums);
      } else {
        for (int l = 0; l < count; ++l) out[row * N + first + l] = sums[l];
      }
    };
    for (; i + R <= r1; i += R) dot_tile<T, R, N>(a + i * k, k, k, bt, kp, i, store);
    for (; i < r1; ++i) dot_tile<T, 1, N>(a + i * k, k, k, bt, kp, i, store);
  });
}

// Calls dot_forward with N = n, a compile-time constant.
template <class T, int N>
void dispatch_dot(const T* a, const T* bt, T* out, std::int64_t m, std::int64_t k, std::int64_t n) {
  if constexpr (N < kDotMaxN) {
    if (n > N) return dispatch_dot<T, N + 1>(a, bt, out, m, k, n);
  }
  dot_forward<T, N>(a, bt, out, m, k);
}

// Calls forward/backward with NV = ceil(n / lanes), a compile-time constant. Without ta, B comes
// packed by skinny_pack_right (packed_b), or is packed here when packed_b is null. With ta only:
// transpose_out stores out as n x m, and accumulate adds the product to what out holds.
template <class T, int NV>
void dispatch(const T* a, const T* b, const T* packed_b, T* out, std::int64_t m, std::int64_t k, std::int64_t n,
              bool ta, bool tb, bool transpose_out, bool accumulate) {
  constexpr int W = Simd<T>::lanes;
  if constexpr (NV * W < kSkinnyMaxN) {
    if (n > NV * W) return dispatch<T, NV + 1>(a, b, packed_b, out, m, k, n, ta, tb, transpose_out, accumulate);
  }
  if (ta && n <= kAxpyMaxN) {
    dispatch_axpy<T, 1>(a, b, out, m, k, n, tb, transpose_out, accumulate);
  } else if (ta) {
    backward<T, NV>(a, b, out, m, k, n, tb, transpose_out, accumulate);
  } else {
    Tensor packed;
    if (packed_b == nullptr) {
      packed = skinny_pack_right(b, k, n, tb);
      packed_b = packed.data<T>();
    }
    if (n <= kDotMaxN)
      dispatch_dot<T, 1>(a, packed_b, out, m, k, n);
    else
      forward<T, NV>(a, packed_b, out, m, k, n);
  }
}

}  // namespace

bool skinny_matmul_enabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("VARIATE_MATMUL_SKINNY");
    return value == nullptr || std::string_view(value) != "0";
  }();
  return enabled;
}

template <class T>
void skinny_matmul(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n, bool ta, bool tb) {
  dispatch<T, 1>(a, b, nullptr, out, m, k, n, ta, tb, false, false);
}

// The layout the product with A not transposed reads: op(B)'s n columns, each zero-padded to whole
// vectors, for the inner-product form (n <= kDotMaxN); otherwise k rows of whole vectors, zero past
// column n.
template <class T>
Tensor skinny_pack_right(const T* b, std::int64_t k, std::int64_t n, bool tb) {
  constexpr int W = Simd<T>::lanes;
  if (n <= kDotMaxN) {
    const std::int64_t kp = dot_packed_length<T>(k);
    Tensor packed = Tensor::empty(Shape{n, kp}, dtype_of<T>::value);
    pack_dot_columns(b, tb, k, int(n), kp, packed.data<T>());
    return packed;
  }
  const std::int64_t ld = (n + W - 1) / W * W;
  Tensor packed = Tensor::empty(Shape{k, ld}, dtype_of<T>::value);
  pack_b(b, tb, k, n, 0, k, 0, n, ld, packed.data<T>());
  return packed;
}

template <class T>
void skinny_matmul_packed(const T* a, const Tensor& packed_b, T* out, std::int64_t m, std::int64_t k, std::int64_t n) {
  dispatch<T, 1>(a, nullptr, packed_b.data<T>(), out, m, k, n, false, false, false, false);
}

template <class T>
void skinny_matmul_tn_transposed(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n,
                                 bool accumulate) {
  dispatch<T, 1>(a, b, nullptr, out, m, k, n, true, false, true, accumulate);
}

template <class T>
void panel_matmul(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n, bool ta, bool tb) {
  panel(a, b, out, m, k, n, ta, tb);
}

template void panel_matmul<float>(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t, bool,
                                  bool);
template void panel_matmul<double>(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t,
                                   bool, bool);
template void skinny_matmul<float>(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t, bool,
                                   bool);
template void skinny_matmul<double>(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t,
                                    bool, bool);
template Tensor skinny_pack_right<float>(const float*, std::int64_t, std::int64_t, bool);
template Tensor skinny_pack_right<double>(const double*, std::int64_t, std::int64_t, bool);
template void skinny_matmul_packed<float>(const float*, const Tensor&, float*, std::int64_t, std::int64_t,
                                          std::int64_t);
template void skinny_matmul_packed<double>(const double*, const Tensor&, double*, std::int64_t, std::int64_t,
                                           std::int64_t);
template void skinny_matmul_tn_transposed<float>(const float*, const float*, float*, std::int64_t, std::int64_t,
                                                 std::int64_t, bool);
template void skinny_matmul_tn_transposed<double>(const double*, const double*, double*, std::int64_t, std::int64_t,
                                                  std::int64_t, bool);

}  // namespace variate::cpu
