// The fused categorical-logit GLM kernel (softmax regression; Stan's categorical_logit_glm). The
// composite autodiff version reads the design matrix twice per gradient (X W forward, X^T G
// backward) and makes a dozen element-wise passes for log_softmax and its adjoint. Here each block of
// rows of X is read from memory once: its logits Z_b = X_b W, the log-softmax terms and
// G_b = onehot(y_b) - softmax(Z_b) are computed in cache, and X_b^T G_b is accumulated while X_b is
// still in L2.
//
// All C states (chains) share the pass: W (C, D, K) is laid out as one D x (C K) matrix, so the
// products of every block have C K columns, the skinny shapes of matmul_skinny.cpp. (An
// inner-product form of X_b W with lanes along D, which wastes no lanes at K = 10, was tried and was
// not faster at MNIST's shape: the forward product is bound by reading X, and the skinny kernel's
// twelve prefetched row streams read it faster.)
//
// When most of X is zero (MNIST's pixels: 81%), both products run over its nonzeros alone, from a
// compressed copy of X made once (sparse_rows.hpp); the blocks and their order are the same.
//
// Determinism: block boundaries depend only on the shape; consecutive blocks are grouped into a
// number of super-blocks that depends only on the number of blocks; each super-block is summed by one
// thread in block order, and the super-blocks are added in order. So the results do not depend on
// the thread count.
//
// GCC 12 reports false maybe-uninitialized warnings inside Eigen's AVX-512 kernels (the reason
// CMakeLists.txt turns the warning off for glm.cpp and matmul.cpp); Eigen is used here only for
// products too wide for the skinny kernels.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensor/cpu/cpu_backend.hpp"
#include "tensor/cpu/matmul_skinny.hpp"
#include "tensor/cpu/sparse_rows.hpp"
#include "tensor/cpu/strided_loop.hpp"
#include "tensor/cpu/vector_math.hpp"

namespace variate::cpu {
namespace {

// A block of X (about 768 KB) and its Z and G stay in the 2 MB L2 between the two products. Rows are
// a multiple of 48 so that the register tiles of the skinny kernels (12, 8, 6, 4 or 3 rows) divide
// them and no row is left to the slow single-row tile.
constexpr std::int64_t kBlockBytes = 768 << 10;
constexpr std::int64_t kRowMultiple = 48;
constexpr std::int64_t kMaxRowsPerBlock = 4800;
// Partial gradients kept at once: enough super-blocks to balance the threads, few enough that their
// (D, C K) partial gradients cost little memory and little to add up.
constexpr std::int64_t kMaxSuperBlocks = 64;

std::int64_t rows_per_block(std::int64_t d, std::int64_t bytes) {
  const std::int64_t rows = kBlockBytes / std::max<std::int64_t>(1, d * bytes) / kRowMultiple * kRowMultiple;
  return std::clamp(rows, kRowMultiple, kMaxRowsPerBlock);
}

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// z (rows x n) = x (rows x d) w (d x n); the skinny kernel reads w as packed once per call
// (`packed`, from skinny_pack_right), Eigen reads w itself.
template <class T>
void logits_product(const T* x, const T* w, const Tensor& packed, T* z, std::int64_t rows, std::int64_t d,
                    std::int64_t n, bool skinny) {
  if (skinny) {
    skinny_matmul_packed<T>(x, packed, z, rows, d, n);
  } else {
    Eigen::Map<RowMatrix<T>>(z, rows, n).noalias() =
        Eigen::Map<const RowMatrix<T>>(x, rows, d) * Eigen::Map<const RowMatrix<T>>(w, d, n);
  }
}

// out (n x d) = (accumulate ? out : 0) + g^T (n x rows) x (rows x d): the gradient x^T g transposed,
// so that summing it over blocks adds contiguous rows.
template <class T>
void gradient_product(const T* x, const T* g, T* out, std::int64_t rows, std::int64_t d, std::int64_t n, bool skinny,
                      bool accumulate) {
  if (skinny) {
    skinny_matmul_tn_transposed<T>(x, g, out, d, rows, n, accumulate);
    return;
  }
  Eigen::Map<RowMatrix<T>> result(out, n, d);
  const auto product =
      Eigen::Map<const RowMatrix<T>>(g, rows, n).transpose() * Eigen::Map<const RowMatrix<T>>(x, rows, d);
  if (accumulate)
    result.noalias() += product;
  else
    result.noalias() = product;
}

// Per-block scratch in double: the shifted logits, then their exponentials (rows x C K); the row
// sums and their logs (rows x C each); the picked shifted logits z_y - max z (rows x C).
// What the labels of a block or super-block are; the larger value wins when they are combined.
constexpr int kLabelsValid = 0, kLabelOutside = 1, kLabelNaN = 2;

struct RowScratch {
  double* e;
  double* s;
  double* log_s;
  double* picked;
};

// The row terms of one block (Stan's categorical_logit_glm with the max-shifted log-softmax): for
// each row i and state c with m = max_k z_k, log p(y_i) = (z_y - m) - log sum_k e^{z_k - m} and
// g_k = [k = y_i] - e^{z_k - m} / sum. Reads z (rows x C K, without b), overwrites it with g, and adds
// the log-likelihood and the column sums of g into lp (C) and gb (C K). The exp and log run over
// whole contiguous arrays so that they vectorize. Returns kLabelsValid, or kLabelOutside if some
// label is not one of 0 .. K-1, or kLabelNaN if some label is NaN.
template <class T>
int row_terms(T* zg, const double* y, const T* b, std::int64_t rows, std::int64_t c, std::int64_t k,
              const RowScratch& s, double* lp, double* gb) {
  const std::int64_t ck = c * k;
  int status = kLabelsValid;
  for (std::int64_t i = 0; i < rows; ++i) {
    const double yi = y[i];
    const bool ok = yi >= 0 && yi < double(k) && yi == std::floor(yi);
    if (!ok) status = std::max(status, std::isnan(yi) ? kLabelNaN : kLabelOutside);
    const std::int64_t label = ok ? std::int64_t(yi) : 0;
    for (std::int64_t j = 0; j < c; ++j) {
      const T* z = zg + i * ck + j * k;
      const T* bj = b + j * k;
      double* e = s.e + i * ck + j * k;
      // The max over two interleaved halves (a max is exact in any order), and e written once:
      // storing the sums and reloading them as vectors stalled on store forwarding.
      double m0 = double(z[0]) + double(bj[0]), m1 = m0;
      for (std::int64_t l = 0; l + 1 < k; l += 2) {
        const double a = double(z[l]) + double(bj[l]), b = double(z[l + 1]) + double(bj[l + 1]);
        m0 = a > m0 ? a : m0;
        m1 = b > m1 ? b : m1;
      }
      if (k % 2 == 1) {
        const double a = double(z[k - 1]) + double(bj[k - 1]);
        m0 = a > m0 ? a : m0;
      }
      const double m = m1 > m0 ? m1 : m0;
      for (std::int64_t l = 0; l < k; ++l) e[l] = (double(z[l]) + double(bj[l])) - m;
      s.picked[i * c + j] = e[label];
    }
  }
  const std::int64_t total = rows * ck;
  for (std::int64_t q = 0; q < total; ++q) s.e[q] = vexp(s.e[q]);
  for (std::int64_t q = 0; q < rows * c; ++q) {
    const double* e = s.e + q * k;
    double sum = 0;
    for (std::int64_t l = 0; l < k; ++l) sum += e[l];
    s.s[q] = sum;
  }
  // The sums are at least 1 (the largest term is e^0), so the log needs no subnormal branch. The
  // logs are kept apart from the ordered sum below, which would stop the loop from vectorizing.
  for (std::int64_t q = 0; q < rows * c; ++q) s.log_s[q] = vlog_normal(s.s[q]);
  for (std::int64_t j = 0; j < c; ++j) {
    double acc = 0;
    for (std::int64_t i = 0; i < rows; ++i) acc += s.picked[i * c + j] - s.log_s[i * c + j];
    lp[j] += acc;
  }
  for (std::int64_t i = 0; i < rows; ++i) {
    const double yi = y[i];
    const bool ok = yi >= 0 && yi < double(k) && yi == std::floor(yi);
    // A row with an invalid label adds nothing to the gradient (its log-likelihood is -inf).
    const std::int64_t label = ok ? std::int64_t(yi) : -1;
    for (std::int64_t j = 0; j < c; ++j) {
      const double inv = ok ? 1.0 / s.s[i * c + j] : 0.0;
      const double* e = s.e + i * ck + j * k;
      T* g = zg + i * ck + j * k;
      double* gbj = gb + j * k;
      for (std::int64_t l = 0; l < k; ++l) {
        const double gl = (l == label ? 1.0 : 0.0) - e[l] * inv;
        g[l] = T(gl);
        gbj[l] += gl;
      }
    }
  }
  return status;
}

template <class T>
bool all_finite(const Tensor& w) {
  const T* p = w.data<T>();
  for (std::int64_t i = 0; i < w.numel(); ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

template <class T>
void glm(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y, Tensor& log_lik, Tensor& grad_w,
         Tensor& grad_b) {
  const std::int64_t n = x.dim(0), d = x.dim(1), c = w.dim(0), k = w.dim(2), ck = c * k;
  const DType t = dtype_of<T>::value;
  const std::int64_t rows = rows_per_block(d, sizeof(T));
  const std::int64_t blocks = std::max<std::int64_t>(1, (n + rows - 1) / rows);
  const std::int64_t supers = std::min(blocks, kMaxSuperBlocks);
  const std::int64_t blocks_per_super = (blocks + supers - 1) / supers;
  const bool skinny = ck <= kSkinnyMaxN && skinny_matmul_enabled();
  // Mostly zeros in X: products over its nonzeros alone. Not with a non-finite weight or intercept:
  // their NaNs meet X's zeros in the dense products (0 inf, 0 NaN) and reach every gradient entry.
  const SparseRows sparse_x = all_finite<T>(w) && all_finite<T>(b) ? sparse_rows(x) : SparseRows{};
  const bool sparse = sparse_x.starts.defined();
  // The row length of packed W and of the partial gradients: the sparse products read and write
  // whole vectors, so their rows are padded (with zeros).
  const std::int64_t width = sparse ? sparse_rows_stride<T>(ck) : ck;

  // W as one D x (C K) matrix: the logits of all states in one product.
  Tensor packed_w = Tensor::zeros(Shape{d, width}, t);
  {
    const T* src = w.data<T>();
    T* dst = packed_w.data<T>();
    for (std::int64_t j = 0; j < c; ++j)
      for (std::int64_t r = 0; r < d; ++r) std::copy_n(src + (j * d + r) * k, k, dst + r * width + j * k);
  }
  const Tensor skinny_w = skinny && !sparse ? skinny_pack_right<T>(packed_w.data<T>(), d, ck, false) : Tensor{};
  // Scratch per super-block (from the tensor allocator, so steady-state calls allocate nothing): the
  // partial gradient for W in double (C K x D), the log-likelihood and b-gradient sums (C + C K), one
  // block's Z/G in T and, in single precision, its G^T X, and the double row scratch.
  const std::int64_t row_scratch = rows * (ck + 3 * c);
  Tensor partial_w = Tensor::empty(Shape{supers, d * width}, DType::f64);
  Tensor partial_sums = Tensor::empty(Shape{supers, c + ck}, DType::f64);
  std::vector<int> status(std::size_t(supers), kLabelsValid);
  const std::int64_t block_gw_size = std::is_same_v<T, double> ? 0 : d * width;
  Tensor zg_scratch = Tensor::empty(Shape{supers, rows * ck + block_gw_size}, t);
  Tensor row_buffers = Tensor::empty(Shape{supers, row_scratch}, DType::f64);
  const T* px = x.data<T>();
  const T* pw = packed_w.data<T>();
  const T* pb = b.data<T>();
  const double* py = y.data<double>();
  double* ppw = partial_w.data<double>();
  double* pps = partial_sums.data<double>();
  T* pzg = zg_scratch.data<T>();
  double* prow = row_buffers.data<double>();

  parallel_chunks(
      supers,
      [&](std::int64_t s0, std::int64_t s1) {
        for (std::int64_t sb = s0; sb < s1; ++sb) {
          double* gw = ppw + sb * d * width;
          double* lp = pps + sb * (c + ck);
          double* gb = lp + c;
          std::fill(lp, lp + c + ck, 0.0);
          T* zg = pzg + sb * (rows * ck + block_gw_size);
          double* buffer = prow + sb * row_scratch;
          const RowScratch scratch{buffer, buffer + rows * ck, buffer + rows * ck + rows * c,
                                   buffer + rows * ck + 2 * rows * c};
          const std::int64_t first = sb * blocks_per_super, last = std::min(blocks, first + blocks_per_super);
          bool started = false;  // the first block sets the partial gradient: no pass to zero it first
          for (std::int64_t blk = first; blk < last; ++blk) {
            const std::int64_t r0 = blk * rows, r = std::min(n, r0 + rows) - r0;
            if (r <= 0) continue;
            const T* xb = px + r0 * d;
            if (sparse)
              sparse_rows_times<T>(sparse_x, r0, r, pw, zg, ck);
            else
              logits_product(xb, pw, skinny_w, zg, r, d, ck, skinny);
            const int s = row_terms(zg, py + r0, pb, r, c, k, scratch, lp, gb);
            status[std::size_t(sb)] = std::max(status[std::size_t(sb)], s);
            // X_b^T G_b into `out`, added to it when `accumulate`.
            const auto gradient = [&](T* out, bool accumulate) {
              if (!sparse) return gradient_product(xb, zg, out, r, d, ck, skinny, accumulate);
              if (!accumulate) std::fill(out, out + d * width, T(0));
              sparse_rows_transposed_times_add<T>(sparse_x, r0, r, zg, out, ck);
            };
            if constexpr (std::is_same_v<T, double>) {
              gradient(gw, started);  // straight into the partial gradient
            } else {                  // each block's product in T, summed in double
              T* block_gw = zg + rows * ck;
              gradient(block_gw, false);
              for (std::int64_t q = 0; q < d * width; ++q) gw[q] = (started ? gw[q] : 0.0) + double(block_gw[q]);
            }
            started = true;
          }
          if (!started) std::fill(gw, gw + d * width, 0.0);  // a super-block past the last row
        }
      },
      1);

  // Super-blocks in order; grad_w back from the (C K, D) layout to (C, D, K).
  // As Categorical: a label outside the support gives -inf, a NaN label NaN.
  const int labels = *std::max_element(status.begin(), status.end());
  T* out_lp = log_lik.data<T>();
  T* out_gb = grad_b.data<T>();
  T* out_gw = grad_w.data<T>();
  for (std::int64_t q = 0; q < c + ck; ++q) {
    double total = 0;
    for (std::int64_t sb = 0; sb < supers; ++sb) total += pps[sb * (c + ck) + q];
    if (q < c) {
      out_lp[q] = labels == kLabelsValid    ? T(total)
                  : labels == kLabelOutside ? -std::numeric_limits<T>::infinity()
                                            : std::numeric_limits<T>::quiet_NaN();
    } else {
      out_gb[q - c] = T(total);
    }
  }
  for (std::int64_t q = 0; q < ck; ++q) {
    const std::int64_t j = q / k, l = q % k;
    for (std::int64_t r = 0; r < d; ++r) {
      double total = 0;
      // The partial gradients are (C K, D) from the dense products, (D, width) from the sparse ones.
      const std::int64_t at = sparse ? r * width + q : q * d + r;
      for (std::int64_t sb = 0; sb < supers; ++sb) total += ppw[sb * d * width + at];
      out_gw[(j * d + r) * k + l] = T(total);
    }
  }
}

}  // namespace

void CpuBackend::categorical_logit_glm(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y,
                                       Tensor& log_lik, Tensor& grad_w, Tensor& grad_b) {
  if (x.dtype() == DType::f32) {
    glm<float>(x, w, b, y, log_lik, grad_w, grad_b);
  } else {
    glm<double>(x, w, b, y, log_lik, grad_w, grad_b);
  }
}

}  // namespace variate::cpu
