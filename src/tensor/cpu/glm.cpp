// The fused Bernoulli-logit GLM kernel. The composite autodiff version reads the design matrix
// twice per gradient (x w forward, x^T g backward); here each block of rows is read from memory
// once, and its second use (x_b^T g) hits the cache. Blocks have a fixed size and their partial
// results are combined in block order, so results do not depend on the thread count.
//
// Up to four states (chains): the forward product is dot_tile's inner-product form; a few tiles'
// row terms (exp, a division) are computed as soon as their products are, and their share of
// x_b^T g right after, from L1, so that all this arithmetic overlaps the memory stream of the
// following rows instead of waiting for it (see fused_block). Logarithms are taken once per block
// (see row_terms). (N = 1e5, D = 51, X re-read from cache, against a plain read of X on the same
// threads: 4 chains on 2 threads from 2.8-3.3x that read to 2.2-2.7x in f64 and from 3.5-3.9x to
// 3.0-3.2x in f32 with the log per block; one chain on 1 thread from 1.4-1.75x to 1.05-1.35x in
// f64 with x_b^T g per tile.)
// More states use the skinny kernels of matmul_skinny.cpp (up to 32) or Eigen's GEMM, and a
// separate pass for the row terms.
#include <Eigen/Core>
#include <cmath>

#include "tensor/cpu/dot_tile.hpp"
#include "tensor/cpu/matmul_skinny.hpp"
#include "tensor/cpu/strided_loop.hpp"
#include "tensor/cpu/vector_math.hpp"

namespace variate::cpu {
namespace {

constexpr std::int64_t kRowsPerBlock = 512;  // 512 x 51 doubles ~ 200 KB: stays in L2
constexpr int kFusedMaxStates = 4;
constexpr int kGroupRows = 32;  // rows whose tiles are taken together (see fused_block); 13 KB of f64 x at D = 51
// How far ahead of a group of tiles its lines are prefetched (see fused_block).
constexpr std::int64_t kPrefetchBytes = 16 * 1024;
// A block's products of u = 1 + e^-|z| in [1, 2] (see row_terms) must stay below DBL_MAX = 2^1024.
static_assert(kRowsPerBlock < 1024);

// The terms of one row and state, with z = x w + alpha: y z - softplus(z) for the log-likelihood,
// and g = y - sigmoid(z) for the gradient (0 for labels other than 0 and 1, which make the
// log-likelihood -inf through `invalid_labels`). In the data's precision F: single precision has
// twice the lanes. Branch-free, so that loops over it vectorize; e = exp(-|z|) serves both softplus
// and sigmoid.
//
// softplus(z) = max(z, 0) + ln(1 + e), and ln(1 + e) = ln u - ((u - 1) - e) / u with u = 1 + e
// rounded (as vlog1p corrects that rounding). The logarithm is left to the caller: `lp` is the
// term plus ln u, and the caller subtracts the logarithm of the product of the u's once per block
// (each u is in [1, 2], so a product of up to 1000 of them stays finite in double), which costs
// one log for hundreds of terms instead of one each (a log is a division and a degree-10 series).
// The division by u is shared by the sigmoid and the rounding correction.
template <class F>
inline void row_terms(F y, F z, F& lp, F& g, F& u) {
  const F one = 1, zero = 0;
  const F e = vexp(z < zero ? z : -z);
  u = one + e;
  const F inv_u = one / u;
  lp = y * z - (z > zero ? z : zero) + ((u - one) - e) * inv_u;
  // g = 1 - sigmoid(z) = sigmoid(-z) for y = 1, so that it keeps its digits where sigmoid(z) is
  // near 1, and -sigmoid(z) for y = 0.
  const F sigmoid_numerator = z >= zero ? one : e, complement_numerator = z >= zero ? e : one;
  g = (y == one ? complement_numerator : y == zero ? -sigmoid_numerator : zero) * inv_u;
}

// Whether some label is neither 0 nor 1 (NaN included). An OR of comparisons, which vectorizes; a
// floating-point sum would be added in order, one element at a time (5% of a one-state gradient).
template <class T>
bool invalid_labels(const T* y, std::int64_t rows) {
  int invalid = 0;
  for (std::int64_t i = 0; i < rows; ++i) invalid |= int(y[i] != T(0)) & int(y[i] != T(1));
  return invalid != 0;
}

// For one state: returns sum_i y_i z_i - softplus(z_i) in `lp` and sum_i g_i in `ga`, and overwrites
// z_i with g_i. The sums are unconditional (GCC does not vectorize conditional reductions).
void rows_terms(const double* y, double* z_io, std::int64_t rows, double alpha, double& lp, double& ga) {
  double lp_sum = 0, ga_sum = 0, u_product = 1;
  for (std::int64_t i = 0; i < rows; ++i) {
    double lp_i, g_i, u_i;
    row_terms<double>(y[i], z_io[i] + alpha, lp_i, g_i, u_i);
    lp_sum += lp_i;
    ga_sum += g_i;
    u_product *= u_i;
    z_io[i] = g_i;
  }
  lp = lp_sum - std::log(u_product);
  ga = ga_sum;
}

// grad (N x kp, w's packed layout) += g^T x for the R rows of one tile (g: R x N), while the rows
// are still in L1 from the tile's forward products: the block is read from memory once, and this
// work overlaps the stream of the following rows instead of a second pass after it.
template <class T, int R, int N>
void add_tile_gradient(const T* x, std::int64_t d, const T* g, T* grad, std::int64_t kp) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  constexpr int W = S::lanes;
  Vec gb[R * N];
#pragma GCC unroll 32
  for (int s = 0; s < R * N; ++s) gb[s] = g[s] - Vec{};  // a broadcast: x - (+0) is x, while x + 0 is not for -0
  for (std::int64_t l = 0; l < kp; l += W) {
    Vec xr[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) xr[r] = l + W <= d ? S::load(x + r * d + l) : S::load_first(x + r * d + l, int(d - l));
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      Vec a = S::load(grad + j * kp + l);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) a += gb[r * N + j] * xr[r];
      S::store(grad + j * kp + l, a);
    }
  }
}

// One block of rows with N <= 4 states, fused: z = x_b w^T a tile of rows at a time (wt: w packed
// by pack_dot_columns), each tile's row terms at once (in T), g, and the tile's share of
// grad = g^T x_b (N x kp, zeroed here).
// Each result slot of a tile (row r, state j: slot r N + j) sums its own terms over the block, and
// the slots are added in order at the end: the additions depend only on the shape. Labels, alphas,
// terms and sums move a vector at a time (lane l of a tile's vector `first / W` is slot first + l),
// so that the only scalar work per tile is the loop GCC vectorizes, over whole vectors in memory.
template <class T, int N>
void fused_block(const T* x, const T* y, std::int64_t rows, std::int64_t d, const T* x_end, const T* wt,
                 std::int64_t kp, const T* alpha, T* grad, double* lp, double* ga) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  constexpr int W = S::lanes, R = dot_tile_rows(N), slots = R * N, vectors = (slots + W - 1) / W;
  typedef double Wide __attribute__((vector_size(W * sizeof(double))));  // a Vec's lanes in double
  // Per vector of slots: alpha of each lane's state, and the row of each lane counted from the
  // vector's first row (padding lanes repeat the last slot, so every lane holds finite values). A
  // vector's W slots span at most W rows, so their labels fit in one vector.
  Vec alpha_lanes[vectors];
  typename S::Mask row_of_lane[vectors];
  for (int v = 0; v < vectors; ++v)
    for (int l = 0; l < W; ++l) {
      const int s = std::min(v * W + l, slots - 1);
      alpha_lanes[v][l] = alpha[s % N];
      row_of_lane[v][l] = typename S::Index(s / N - v * W / N);
    }
  typename S::Mask lane_ids;
  for (int l = 0; l < W; ++l) lane_ids[l] = typename S::Index(l);
  Wide slot_lp[vectors] = {}, slot_ga[vectors] = {}, slot_u_product[vectors];
  for (Wide& p : slot_u_product) p = Wide{} + 1.0;
  auto terms = [&](std::int64_t row, int first, int count, const Vec& sums, T* g_tile) {
    const int v = first / W;
    alignas(64) T y_lane[W], z_lane[W], lp_lane[W], g_lane[W], u_lane[W];
    const std::int64_t first_row = row + first / N;
    const Vec labels = S::load_first(y + first_row, int(std::min<std::int64_t>(W, rows - first_row)));
    S::store(y_lane, __builtin_shuffle(labels, row_of_lane[v]));
    S::store(z_lane, sums + alpha_lanes[v]);
    for (int l = 0; l < W; ++l) row_terms(y_lane[l], z_lane[l], lp_lane[l], g_lane[l], u_lane[l]);
    Vec lpv = S::load(lp_lane), gv = S::load(g_lane), uv = S::load(u_lane);
    if (count == W) {
      S::store(g_tile + first, gv);
    } else {  // a single-row tile, or the last vector of slots: lanes past count are not slots of it
      for (int l = 0; l < count; ++l) g_tile[first + l] = gv[l];
      const auto kept = lane_ids < typename S::Index(count);
      lpv = kept ? lpv : Vec{};
      gv = kept ? gv : Vec{};
      uv = kept ? uv : Vec{} + T(1);
    }
    slot_lp[v] += __builtin_convertvector(lpv, Wide);
    slot_ga[v] += __builtin_convertvector(gv, Wide);
    slot_u_product[v] *= __builtin_convertvector(uv, Wide);
  };
  std::fill_n(grad, N * kp, T(0));
  // A group of tiles (about kGroupRows rows, in L1) at a time: the products of all its tiles, then
  // their row terms, then their shares of the gradient. A tile's terms wait on its products, and
  // its gradient on its terms, a chain of some 200 cycles; taken one tile at a time, the
  // out-of-order window (about one tile's instructions) could not fill that wait with the next
  // tile's work. Grouped, each phase holds independent work for several tiles, and the operations
  // and results are the same. With a block in L2 this takes 8-30% off (f64 and f32, 1-4 states);
  // in the vectorized sampler (4 chains, X from L3 on 2 threads) about 20% in f32, while in f64
  // the memory stream hides the change (docs/inference.md).
  constexpr int group = std::max(1, kGroupRows / R);
  // The tiles' products, a vector of slots at a time, and their g (slot order), from one group to
  // the next: g for a whole block (or gradient), written once and never read again after its group,
  // was a stream of stores to memory that cost 10-20% of the 4-state gradient (N = 1e5, d = 51, f64
  // and f32). Declared out here: GCC 12 stops with an internal compiler error on the arrays inside
  // the lambda below.
  Vec sums[group * vectors];
  alignas(64) T g[group * slots];
  const auto run_group = [&](std::int64_t first_row, int tiles) {
    for (int t = 0; t < tiles; ++t)
      dot_tile<T, R, N>(x + (first_row + t * R) * d, d, d, wt, kp, first_row + t * R,
                        [&](std::int64_t, int first, int, const Vec& s) { sums[t * vectors + first / W] = s; });
    for (int t = 0; t < tiles; ++t)
      for (int v = 0; v < vectors; ++v)
        terms(first_row + t * R, v * W, std::min(W, slots - v * W), sums[t * vectors + v], g + t * slots);
    // Software prefetch of the group's size, kPrefetchBytes ahead, into L1: on an AMD EPYC guest
    // (session 12) the hardware prefetchers did not run far enough ahead of this stream, and this
    // took 14% off 4 states in f64 and 5% in f32 (N = 1e5, d = 51, 2 threads, alternated runs;
    // 4-64 KB ahead gained, 1 MB nothing); the earlier guest showed no change either way. One
    // state is left without: two threaded chains, each reading all of X on its own core, lost 8%
    // with it (docs/inference.md). Bounded by X's end.
    if constexpr (N > 1) {
      const char* bytes = reinterpret_cast<const char*>(x);
      const std::int64_t ahead = first_row * d * std::int64_t(sizeof(T)) + kPrefetchBytes;
      const std::int64_t ahead_end = std::min(ahead + std::int64_t(tiles) * R * d * std::int64_t(sizeof(T)),
                                              std::int64_t(x_end - x) * std::int64_t(sizeof(T)));
      for (std::int64_t o = ahead; o < ahead_end; o += 64) __builtin_prefetch(bytes + o, 0, 3);
    }
    for (int t = 0; t < tiles; ++t) add_tile_gradient<T, R, N>(x + (first_row + t * R) * d, d, g + t * slots, grad, kp);
  };
  std::int64_t i = 0;
  while (rows - i >= R) {
    const int tiles = int(std::min<std::int64_t>(group, (rows - i) / R));
    run_group(i, tiles);
    i += tiles * R;
  }
  for (; i < rows; ++i) {
    dot_tile<T, 1, N>(x + i * d, d, d, wt, kp, i,
                      [&](std::int64_t row, int first, int count, const Vec& s) { terms(row, first, count, s, g); });
    add_tile_gradient<T, 1, N>(x + i * d, d, g, grad, kp);
  }
  for (int j = 0; j < N; ++j) lp[j] = ga[j] = 0;
  for (int s = 0; s < slots; ++s) {
    lp[s % N] += slot_lp[s / W][s % W] - std::log(slot_u_product[s / W][s % W]);
    ga[s % N] += slot_ga[s / W][s % W];
  }
}

// Calls fused_block with N = c, a compile-time constant.
template <class T, int N = 1>
void dispatch_fused(int c, const T* x, const T* y, std::int64_t rows, std::int64_t d, const T* x_end, const T* wt,
                    std::int64_t kp, const T* alpha, T* grad, double* lp, double* ga) {
  if constexpr (N < kFusedMaxStates) {
    if (c > N) return dispatch_fused<T, N + 1>(c, x, y, rows, d, x_end, wt, kp, alpha, grad, lp, ga);
  }
  fused_block<T, N>(x, y, rows, d, x_end, wt, kp, alpha, grad, lp, ga);
}

template <class T>
void glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y, Tensor& log_lik, Tensor& grad_w,
         Tensor& grad_alpha) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ConstMap = Eigen::Map<const Matrix>;
  const std::int64_t n = x.dim(0), d = x.dim(1), c = w.dim(0);
  const std::int64_t blocks = (n + kRowsPerBlock - 1) / kRowsPerBlock;
  // Fused: w packed as c zero-padded columns of kp; skinny: w^T (d x c).
  const bool skinny = skinny_matmul_enabled() && c <= kSkinnyMaxN;
  const bool fused = skinny && c <= kFusedMaxStates;
  const std::int64_t kp = dot_packed_length<T>(d);
  // Per block: log-lik and grad_alpha (c each, in double) and grad_w in T, c x kp when fused and
  // c x d otherwise. Scratch comes from the tensor allocator, so steady-state calls allocate nothing.
  const std::int64_t grad_stride = fused ? kp : d, block_w = c * grad_stride;
  Tensor sums = Tensor::empty(Shape{blocks, 2 * c}, DType::f64);
  Tensor partial_w = Tensor::empty(Shape{blocks, block_w}, dtype_of<T>::value);
  // The unfused path's z, then g (the fused kernel keeps its g per group of tiles).
  Tensor z_scratch = Tensor::empty(Shape{fused ? 0 : blocks, kRowsPerBlock, c}, dtype_of<T>::value);
  const T* px = x.data<T>();
  const T* py = y.data<T>();
  const T* pa = alpha.data<T>();
  const ConstMap W(w.data<T>(), c, d);
  double* ps = sums.data<double>();
  T* pw = partial_w.data<T>();
  T* pz = z_scratch.data<T>();
  // w packed once for every block's product: w^T's columns for the fused tiles, and w^T as
  // skinny_matmul_packed reads it otherwise.
  Tensor packed_w;
  if (fused) {
    packed_w = Tensor::empty(Shape{c * kp}, dtype_of<T>::value);
    pack_dot_columns(w.data<T>(), true, d, int(c), kp, packed_w.data<T>());
  } else if (skinny) {
    packed_w = skinny_pack_right<T>(w.data<T>(), d, c, true);
  }
  const T* pwp = fused ? packed_w.data<T>() : nullptr;
  // Per block, one state's z and the labels as contiguous doubles, for the unfused row terms.
  Tensor row_scratch = Tensor::empty(Shape{fused ? 0 : blocks, 2, kRowsPerBlock}, DType::f64);
  double* pr = row_scratch.data<double>();
  parallel_blocks(n, kRowsPerBlock, [&](std::int64_t r0, std::int64_t r1) {
    const std::int64_t b = r0 / kRowsPerBlock, rows = r1 - r0;
    double* lp = ps + b * 2 * c;
    double* ga = lp + c;
    if (fused) {
      dispatch_fused<T>(int(c), px + r0 * d, py + r0, rows, d, px + n * d, pwp, kp, pa, pw + b * block_w, lp, ga);
    } else {
      Eigen::Map<Matrix> Z(pz + b * kRowsPerBlock * c, rows, c);
      if (skinny) {
        skinny_matmul_packed<T>(px + r0 * d, packed_w, Z.data(), rows, d, c);
      } else {
        Z.noalias() = ConstMap(px + r0 * d, rows, d) * W.transpose();  // rows x c
      }
      double* zd = pr + b * 2 * kRowsPerBlock;
      double* yd = zd + kRowsPerBlock;
      for (std::int64_t i = 0; i < rows; ++i) yd[i] = double(py[r0 + i]);
      for (std::int64_t k = 0; k < c; ++k) {
        for (std::int64_t i = 0; i < rows; ++i) zd[i] = double(Z(i, k));
        rows_terms(yd, zd, rows, double(pa[k]), lp[k], ga[k]);
        for (std::int64_t i = 0; i < rows; ++i) Z(i, k) = T(zd[i]);  // Z now holds g
      }
      // grad_w of this block = g^T x_b, while x_b is still in cache.
      if (skinny) {
        skinny_matmul_tn_transposed<T>(px + r0 * d, Z.data(), pw + b * block_w, d, rows, c, false);
      } else {
        Eigen::Map<Matrix> G(pw + b * block_w, c, d);
        G.noalias() = Z.transpose() * ConstMap(px + r0 * d, rows, d);
      }
    }
    if (invalid_labels(py + r0, rows))
      for (std::int64_t k = 0; k < c; ++k) lp[k] = -INFINITY;
  });
  T* out_lp = log_lik.data<T>();
  T* out_gw = grad_w.data<T>();
  T* out_ga = grad_alpha.data<T>();
  for (std::int64_t k = 0; k < c; ++k) {
    double total_lp = 0, total_ga = 0;
    for (std::int64_t b = 0; b < blocks; ++b) {
      total_lp += ps[b * 2 * c + k];
      total_ga += ps[b * 2 * c + c + k];
    }
    out_lp[k] = T(total_lp);
    out_ga[k] = T(total_ga);
  }
  // Each coefficient's partials added in block order, with the blocks in the outer loop so that
  // each block's partial gradient is read once, front to back, rather than one element per block
  // and coefficient. This runs on one core while the others wait.
  Tensor totals = Tensor::empty(Shape{c * d}, DType::f64);
  double* total = totals.data<double>();
  std::fill_n(total, c * d, 0.0);
  for (std::int64_t b = 0; b < blocks; ++b)
    for (std::int64_t k = 0; k < c; ++k) {
      const T* partial = pw + b * block_w + k * grad_stride;
      double* sum = total + k * d;
      for (std::int64_t j = 0; j < d; ++j) sum[j] += double(partial[j]);
    }
  for (std::int64_t q = 0; q < c * d; ++q) out_gw[q] = T(total[q]);
}

}  // namespace

void CpuBackend::bernoulli_logit_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y,
                                     Tensor& log_lik, Tensor& grad_w, Tensor& grad_alpha) {
  if (x.dtype() == DType::f32) {
    glm<float>(x, w, alpha, y, log_lik, grad_w, grad_alpha);
  } else {
    glm<double>(x, w, alpha, y, log_lik, grad_w, grad_alpha);
  }
}

}  // namespace variate::cpu
