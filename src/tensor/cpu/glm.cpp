// The fused Bernoulli-logit GLM kernel. The composite autodiff version reads the design matrix
// twice per gradient (x w forward, x^T g backward); here each block of rows is read from memory
// once, and its second use (x_b^T g) hits the cache. Blocks have a fixed size and their partial
// results are combined in block order, so results do not depend on the thread count.
//
// Up to four states (chains) read x as panels (glm_panels.hpp: a copy made once per x, columns of
// W rows interleaved), so that each multiply-add serves W rows with no lane sums afterwards and no
// load splits a cache line; each panel's row terms (exp, a division) follow its products at once,
// and a group of panels' share of x_b^T g follows from L1, so that the arithmetic overlaps the
// memory stream of the following rows (see panel_block). Logarithms are taken once per block (see
// row_terms). Against the row-major kernel this replaced (session 13, N = 1e5, D = 51, 2 threads,
// alternated runs): one state per thread, each reading all of x (threaded chains), 2.9-3.3 ms to
// 1.27-1.55 ms per call; four states on both threads 1.97-2.12 to 0.93-1.09 ms in f64 and
// 0.91-0.98 to 0.55-0.62 ms in f32 (docs/inference.md).
// More states use the skinny kernels of matmul_skinny.cpp (up to 32) or Eigen's GEMM, and a
// separate pass for the row terms.
#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensor/cpu/glm_panels.hpp"
#include "tensor/cpu/matmul_skinny.hpp"
#include "tensor/cpu/simd.hpp"
#include "tensor/cpu/strided_loop.hpp"
#include "tensor/cpu/vector_math.hpp"

namespace variate::cpu {
namespace {

constexpr std::int64_t kRowsPerBlock = 512;  // 512 x 51 doubles ~ 200 KB: stays in L2
constexpr int kFusedMaxStates = 4;
constexpr int kGroupPanels = 4;  // panels whose gradient shares are taken together (see panel_block)
// How many panels ahead each line is prefetched: 13 KB of f64 at D = 51 (see panel_block).
constexpr std::int64_t kPrefetchPanels = 4;
// A block's products of u = 1 + e^-|z| in [1, 2] (see row_terms) must stay below DBL_MAX = 2^1024.
static_assert(kRowsPerBlock < 1024);
static_assert(kRowsPerBlock % Simd<float>::lanes == 0 && kRowsPerBlock % Simd<double>::lanes == 0,
              "every block starts on a panel of x (glm_panels.hpp)");

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

// Space for one thread's per-lane gradient sums (see panel_block), reused from call to call, 64-byte
// aligned.
template <class T>
T* lane_gradient_scratch(std::int64_t elements) {
  thread_local std::vector<T> scratch;
  const std::size_t padded = std::size_t(elements) + 64 / sizeof(T);
  if (scratch.size() < padded) scratch.resize(padded);
  const auto address = reinterpret_cast<std::uintptr_t>(scratch.data());
  return reinterpret_cast<T*>((address + 63) / 64 * 64);
}

// One block of rows with N <= 4 states, read from x's panels (glm_panels.hpp; `panels` points at the
// block's first). Per panel of W rows: each state's z as d multiply-adds of whole vectors (w's
// coefficient broadcast), split over a few accumulators so that their latency overlaps; the W rows'
// terms on those vectors; and g. Per group of kGroupPanels panels, still in L1: their share of
// grad = g^T x_b, kept per lane (N x d vectors in `lane_grad`) and summed over the lanes, in lane
// order, at the block's end (grad: N x d). Every result's operations depend only on the shape.
template <class T, int N>
void panel_block(const T* panels, const T* panels_end, const T* y, std::int64_t rows, std::int64_t d, const T* w,
                 const T* alpha, T* lane_grad, T* grad, double* lp, double* ga) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  constexpr int W = S::lanes, chains = std::max(1, 8 / N);
  typedef double Wide __attribute__((vector_size(W * sizeof(double))));  // a Vec's lanes in double
  Wide lp_sum[N] = {}, ga_sum[N] = {}, u_product[N];
  for (Wide& p : u_product) p = Wide{} + 1.0;
  typename S::Mask lane_ids;
  for (int l = 0; l < W; ++l) lane_ids[l] = typename S::Index(l);
  std::fill_n(lane_grad, N * d * W, T(0));
  const std::int64_t panel_size = d * W, count = (rows + W - 1) / W;
  // The row terms of one panel and state; lanes past the data's last row count for nothing.
  const auto terms = [&](const Vec& labels, const Vec& z, int valid, int s) {
    alignas(64) T y_lane[W], z_lane[W], lp_lane[W], g_lane[W], u_lane[W];
    S::store(y_lane, labels);
    S::store(z_lane, z);
    for (int l = 0; l < W; ++l) row_terms(y_lane[l], z_lane[l], lp_lane[l], g_lane[l], u_lane[l]);
    Vec lpv = S::load(lp_lane), gv = S::load(g_lane), uv = S::load(u_lane);
    if (valid < W) {
      const auto kept = lane_ids < typename S::Index(valid);
      lpv = kept ? lpv : Vec{};
      gv = kept ? gv : Vec{};
      uv = kept ? uv : Vec{} + T(1);
    }
    lp_sum[s] += __builtin_convertvector(lpv, Wide);
    ga_sum[s] += __builtin_convertvector(gv, Wide);
    u_product[s] *= __builtin_convertvector(uv, Wide);
    return gv;
  };
  for (std::int64_t first = 0; first < count; first += kGroupPanels) {
    const int group = int(std::min<std::int64_t>(kGroupPanels, count - first));
    Vec g[kGroupPanels][N];
    for (int t = 0; t < group; ++t) {
      const T* panel = panels + (first + t) * panel_size;
      // Each line is also prefetched into L1 kPrefetchPanels panels on (the last panels fetch their
      // own again): the hardware prefetchers alone left the stream waiting. In f64 this took threaded
      // chains (one state per thread, each reading all of x) from 2.35-2.43 to 1.27-1.42 ms per call
      // and four states on 2 threads from 1.39-1.56 to 0.93-1.09 ms; f32 showed no change (session
      // 13, N = 1e5, D = 51, alternated runs).
      const T* ahead =
          panels_end - panel > (kPrefetchPanels + 1) * panel_size ? panel + kPrefetchPanels * panel_size : panel;
      Vec acc[N][chains] = {};
      std::int64_t j = 0;
      for (; j + chains <= d; j += chains)
#pragma GCC unroll 8
        for (int c = 0; c < chains; ++c) {
          __builtin_prefetch(ahead + (j + c) * W, 0, 3);
          const Vec x = S::load(panel + (j + c) * W);
#pragma GCC unroll 4
          for (int s = 0; s < N; ++s) acc[s][c] += x * w[s * d + j + c];
        }
      for (; j < d; ++j) {
        const Vec x = S::load(panel + j * W);
#pragma GCC unroll 4
        for (int s = 0; s < N; ++s) acc[s][0] += x * w[s * d + j];
      }
      const std::int64_t row = (first + t) * W;
      const int valid = int(std::min<std::int64_t>(W, rows - row));
      const Vec labels = valid == W ? S::load(y + row) : S::load_first(y + row, valid);
#pragma GCC unroll 4
      for (int s = 0; s < N; ++s) {
        Vec z = acc[s][0];
#pragma GCC unroll 8
        for (int c = 1; c < chains; ++c) z += acc[s][c];
        g[t][s] = terms(labels, z + alpha[s], valid, s);
      }
    }
    const T* group_panels = panels + first * panel_size;
    if (group == kGroupPanels) {
      for (std::int64_t j = 0; j < d; ++j) {
        Vec x[kGroupPanels];
#pragma GCC unroll 8
        for (int t = 0; t < kGroupPanels; ++t) x[t] = S::load(group_panels + t * panel_size + j * W);
#pragma GCC unroll 4
        for (int s = 0; s < N; ++s) {
          Vec a = S::load(lane_grad + (s * d + j) * W);
#pragma GCC unroll 8
          for (int t = 0; t < kGroupPanels; ++t) a += x[t] * g[t][s];
          S::store(lane_grad + (s * d + j) * W, a);
        }
      }
    } else {  // the block's last panels
      for (int t = 0; t < group; ++t)
        for (std::int64_t j = 0; j < d; ++j) {
          const Vec x = S::load(group_panels + t * panel_size + j * W);
          for (int s = 0; s < N; ++s) {
            T* a = lane_grad + (s * d + j) * W;
            S::store(a, S::load(a) + x * g[t][s]);
          }
        }
    }
  }
  for (std::int64_t q = 0; q < N * d; ++q) {
    T sum = 0;
    for (int l = 0; l < W; ++l) sum += lane_grad[q * W + l];
    grad[q] = sum;
  }
  for (int s = 0; s < N; ++s) {
    lp[s] = ga[s] = 0;
    for (int l = 0; l < W; ++l) {
      lp[s] += lp_sum[s][l] - std::log(u_product[s][l]);
      ga[s] += ga_sum[s][l];
    }
  }
}

// Calls panel_block with N = c, a compile-time constant.
template <class T, int N = 1>
void dispatch_panel_block(int c, const T* panels, const T* panels_end, const T* y, std::int64_t rows, std::int64_t d,
                          const T* w, const T* alpha, T* lane_grad, T* grad, double* lp, double* ga) {
  if constexpr (N < kFusedMaxStates) {
    if (c > N)
      return dispatch_panel_block<T, N + 1>(c, panels, panels_end, y, rows, d, w, alpha, lane_grad, grad, lp, ga);
  }
  panel_block<T, N>(panels, panels_end, y, rows, d, w, alpha, lane_grad, grad, lp, ga);
}

template <class T>
void glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y, Tensor& log_lik, Tensor& grad_w,
         Tensor& grad_alpha) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ConstMap = Eigen::Map<const Matrix>;
  constexpr int W = Simd<T>::lanes;
  const std::int64_t n = x.dim(0), d = x.dim(1), c = w.dim(0);
  const std::int64_t blocks = (n + kRowsPerBlock - 1) / kRowsPerBlock;
  // Fused: x's panels; skinny: w^T (d x c) packed for skinny_matmul_packed; otherwise Eigen.
  const bool skinny = skinny_matmul_enabled() && c <= kSkinnyMaxN;
  const bool fused = skinny && c <= kFusedMaxStates;
  // Per block: log-lik and grad_alpha (c each, in double) and grad_w (c x d) in T. Scratch comes
  // from the tensor allocator, so steady-state calls allocate nothing.
  const std::int64_t block_w = c * d;
  Tensor sums = Tensor::empty(Shape{blocks, 2 * c}, DType::f64);
  Tensor partial_w = Tensor::empty(Shape{blocks, block_w}, dtype_of<T>::value);
  // The unfused path's z, then g.
  Tensor z_scratch = Tensor::empty(Shape{fused ? 0 : blocks, kRowsPerBlock, c}, dtype_of<T>::value);
  const Tensor panels = fused ? glm_panels(x) : Tensor();
  const T* px = x.data<T>();
  const T* py = y.data<T>();
  const T* pa = alpha.data<T>();
  const T* pwt = w.data<T>();
  const ConstMap w_matrix(pwt, c, d);
  double* ps = sums.data<double>();
  T* pw = partial_w.data<T>();
  T* pz = z_scratch.data<T>();
  const T* pp = fused ? panels.data<T>() : nullptr;
  const T* pp_end = fused ? pp + panels.numel() : nullptr;
  const Tensor packed_w = !fused && skinny ? skinny_pack_right<T>(pwt, d, c, true) : Tensor();
  // Per block, one state's z and the labels as contiguous doubles, for the unfused row terms.
  Tensor row_scratch = Tensor::empty(Shape{fused ? 0 : blocks, 2, kRowsPerBlock}, DType::f64);
  double* pr = row_scratch.data<double>();
  parallel_blocks(n, kRowsPerBlock, [&](std::int64_t r0, std::int64_t r1) {
    const std::int64_t b = r0 / kRowsPerBlock, rows = r1 - r0;
    double* lp = ps + b * 2 * c;
    double* ga = lp + c;
    if (fused) {
      dispatch_panel_block<T>(int(c), pp + r0 * d, pp_end, py + r0, rows, d, pwt, pa,
                              lane_gradient_scratch<T>(c * d * W), pw + b * block_w, lp, ga);
    } else {
      Eigen::Map<Matrix> Z(pz + b * kRowsPerBlock * c, rows, c);
      if (skinny) {
        skinny_matmul_packed<T>(px + r0 * d, packed_w, Z.data(), rows, d, c);
      } else {
        Z.noalias() = ConstMap(px + r0 * d, rows, d) * w_matrix.transpose();  // rows x c
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
    for (std::int64_t q = 0; q < c * d; ++q) total[q] += double(pw[b * block_w + q]);
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
