// The fused Bernoulli-logit GLM kernel. The composite autodiff version reads the design matrix
// twice per gradient (x w forward, x^T g backward); here each block of rows is read from memory
// once, and its second use (x_b^T g) hits the cache. Blocks have a fixed size and their partial
// results are combined in block order, so results do not depend on the thread count.
//
// Up to four states (chains): the forward product is dot_tile's inner-product form, and each tile's
// row terms (exp, log, a division) are computed as soon as its products are, so that this
// arithmetic overlaps the memory stream of the following rows instead of waiting for it. (4 chains,
// N = 1e5, D = 51, bench/logistic_gradient: time over the read-once floor from 3.4-3.6 to 1.5-1.9 in
// f64 and from 3.3-4.2 to 2.0-2.8 in f32, against the row terms in a pass of their own.) More states
// use the skinny kernels of matmul_skinny.cpp (up to 32) or Eigen's GEMM, and a separate pass for
// the row terms.
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

// The terms of one row and state, with z = x w + alpha: y z - softplus(z) for the log-likelihood,
// and g = y - sigmoid(z) for the gradient (0 for labels other than 0 and 1, which make the
// log-likelihood -inf through `invalid_labels`). In the data's precision F: single precision has
// twice the lanes. Branch-free, so that loops over it vectorize; e = exp(-|z|) serves both softplus
// and sigmoid.
template <class F>
inline void row_terms(F y, F z, F& lp, F& g) {
  const F one = 1, zero = 0;
  const F e = vexp(z < zero ? z : -z);
  const F u = one + e, inv_u = one / u;
  // ln(1 + e) as vlog1p computes it (ln u corrected for the rounding of u), with its division by u
  // shared with the sigmoid: divisions are the slowest part of these terms.
  const F softplus = (z > zero ? z : zero) + (vlog_normal(u) - ((u - one) - e) * inv_u);
  const F sigmoid = (z >= zero ? one : e) * inv_u;
  lp = y * z - softplus;
  g = (y == zero) | (y == one) ? y - sigmoid : zero;
}

// Nonzero when some label is neither 0 nor 1: |y (1 - y)| is 0 exactly for those two.
template <class T>
double invalid_labels(const T* y, std::int64_t rows) {
  double invalid = 0;
  for (std::int64_t i = 0; i < rows; ++i) invalid += std::abs(double(y[i]) * (1.0 - double(y[i])));
  return invalid;
}

// For one state: returns sum_i y_i z_i - softplus(z_i) in `lp` and sum_i g_i in `ga`, and overwrites
// z_i with g_i. The sums are unconditional (GCC does not vectorize conditional reductions).
void rows_terms(const double* y, double* z_io, std::int64_t rows, double alpha, double& lp, double& ga) {
  double lp_sum = 0, ga_sum = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    double lp_i, g_i;
    row_terms<double>(y[i], z_io[i] + alpha, lp_i, g_i);
    lp_sum += lp_i;
    ga_sum += g_i;
    z_io[i] = g_i;
  }
  lp = lp_sum;
  ga = ga_sum;
}

// One block of rows with N <= 4 states, fused: z = x_b w^T a tile of rows at a time (wt: w packed
// by pack_dot_columns), each tile's row terms at once (in T), g (rows x N) for the backward product.
// Each result slot of a tile (row r, state j: slot r N + j) sums its own terms over the block, and
// the slots are added in order at the end: the additions depend only on the shape. Labels, alphas,
// terms and sums move a vector at a time (lane l of a tile's vector `first / W` is slot first + l),
// so that the only scalar work per tile is the loop GCC vectorizes, over whole vectors in memory.
template <class T, int N>
void fused_forward_terms(const T* x, const T* y, std::int64_t rows, std::int64_t d, const T* wt, std::int64_t kp,
                         const T* alpha, T* g, double* lp, double* ga) {
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
  Wide slot_lp[vectors] = {}, slot_ga[vectors] = {};
  auto terms = [&](std::int64_t row, int first, int count, const Vec& sums) {
    const int v = first / W;
    alignas(64) T y_lane[W], z_lane[W], lp_lane[W], g_lane[W];
    const std::int64_t first_row = row + first / N;
    const Vec labels = S::load_first(y + first_row, int(std::min<std::int64_t>(W, rows - first_row)));
    S::store(y_lane, __builtin_shuffle(labels, row_of_lane[v]));
    S::store(z_lane, sums + alpha_lanes[v]);
    for (int l = 0; l < W; ++l) row_terms(y_lane[l], z_lane[l], lp_lane[l], g_lane[l]);
    Vec lpv = S::load(lp_lane), gv = S::load(g_lane);
    if (count == W) {
      S::store(g + row * N + first, gv);
    } else {  // a single-row tile, or the last vector of slots: lanes past count are not slots of it
      for (int l = 0; l < count; ++l) g[row * N + first + l] = gv[l];
      const auto kept = lane_ids < typename S::Index(count);
      lpv = kept ? lpv : Vec{};
      gv = kept ? gv : Vec{};
    }
    slot_lp[v] += __builtin_convertvector(lpv, Wide);
    slot_ga[v] += __builtin_convertvector(gv, Wide);
  };
  std::int64_t i = 0;
  for (; i + R <= rows; i += R) dot_tile<T, R, N>(x + i * d, d, d, wt, kp, i, terms);
  for (; i < rows; ++i) dot_tile<T, 1, N>(x + i * d, d, d, wt, kp, i, terms);
  for (int j = 0; j < N; ++j) lp[j] = ga[j] = 0;
  for (int s = 0; s < slots; ++s) {
    lp[s % N] += slot_lp[s / W][s % W];
    ga[s % N] += slot_ga[s / W][s % W];
  }
}

// Calls fused_forward_terms with N = c, a compile-time constant.
template <class T, int N = 1>
void dispatch_fused(int c, const T* x, const T* y, std::int64_t rows, std::int64_t d, const T* wt, std::int64_t kp,
                    const T* alpha, T* g, double* lp, double* ga) {
  if constexpr (N < kFusedMaxStates) {
    if (c > N) return dispatch_fused<T, N + 1>(c, x, y, rows, d, wt, kp, alpha, g, lp, ga);
  }
  fused_forward_terms<T, N>(x, y, rows, d, wt, kp, alpha, g, lp, ga);
}

template <class T>
void glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y, Tensor& log_lik, Tensor& grad_w,
         Tensor& grad_alpha) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ConstMap = Eigen::Map<const Matrix>;
  const std::int64_t n = x.dim(0), d = x.dim(1), c = w.dim(0);
  const std::int64_t blocks = (n + kRowsPerBlock - 1) / kRowsPerBlock;
  // Per block: log-lik and grad_alpha (c each, in double) and grad_w (c x d, in T). Scratch comes
  // from the tensor allocator, so steady-state calls allocate nothing.
  Tensor sums = Tensor::empty(Shape{blocks, 2 * c}, DType::f64);
  Tensor partial_w = Tensor::empty(Shape{blocks, c * d}, dtype_of<T>::value);
  Tensor z_scratch = Tensor::empty(Shape{blocks, kRowsPerBlock, c}, dtype_of<T>::value);
  const T* px = x.data<T>();
  const T* py = y.data<T>();
  const T* pa = alpha.data<T>();
  const ConstMap W(w.data<T>(), c, d);
  double* ps = sums.data<double>();
  T* pw = partial_w.data<T>();
  T* pz = z_scratch.data<T>();
  // Fused: w packed as c zero-padded columns; skinny: w^T (d x c). Both keep each block's grad_w
  // as d x c (x_b^T g), transposed when the blocks are added.
  const bool skinny = skinny_matmul_enabled() && c <= kSkinnyMaxN;
  const bool fused = skinny && c <= kFusedMaxStates;
  const std::int64_t kp = dot_packed_length<T>(d);
  Tensor packed_w = Tensor::empty(Shape{fused ? c * kp : skinny ? d * c : 0}, dtype_of<T>::value);
  T* pwp = packed_w.data<T>();
  if (fused) {
    pack_dot_columns(w.data<T>(), true, d, int(c), kp, pwp);
  } else if (skinny) {
    for (std::int64_t k = 0; k < c; ++k)
      for (std::int64_t j = 0; j < d; ++j) pwp[j * c + k] = W(k, j);
  }
  // Per block, one state's z and the labels as contiguous doubles, for the unfused row terms.
  Tensor row_scratch = Tensor::empty(Shape{fused ? 0 : blocks, 2, kRowsPerBlock}, DType::f64);
  double* pr = row_scratch.data<double>();
  parallel_blocks(n, kRowsPerBlock, [&](std::int64_t r0, std::int64_t r1) {
    const std::int64_t b = r0 / kRowsPerBlock, rows = r1 - r0;
    Eigen::Map<Matrix> Z(pz + b * kRowsPerBlock * c, rows, c);
    double* lp = ps + b * 2 * c;
    double* ga = lp + c;
    if (fused) {
      dispatch_fused<T>(int(c), px + r0 * d, py + r0, rows, d, pwp, kp, pa, Z.data(), lp, ga);
    } else {
      if (skinny) {
        skinny_matmul<T>(px + r0 * d, pwp, Z.data(), rows, d, c, false, false);
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
    }
    if (invalid_labels(py + r0, rows) != 0)
      for (std::int64_t k = 0; k < c; ++k) lp[k] = -INFINITY;
    // grad_w of this block = g^T x_b, while x_b is still in cache.
    if (skinny) {
      skinny_matmul<T>(px + r0 * d, Z.data(), pw + b * c * d, d, rows, c, true, false);
    } else {
      Eigen::Map<Matrix> G(pw + b * c * d, c, d);
      G.noalias() = Z.transpose() * ConstMap(px + r0 * d, rows, d);
    }
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
  for (std::int64_t k = 0; k < c; ++k)
    for (std::int64_t j = 0; j < d; ++j) {
      const std::int64_t at = skinny ? j * c + k : k * d + j;
      double total = 0;
      for (std::int64_t b = 0; b < blocks; ++b) total += double(pw[b * c * d + at]);
      out_gw[k * d + j] = T(total);
    }
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
