// The fused Bernoulli-logit GLM kernel. The composite autodiff version reads the design matrix
// twice per gradient (x w forward, x^T g backward); here each block of rows is read from memory
// once, and its second use (x_b^T g) hits the cache. Blocks have a fixed size and their partial
// results are combined in block order, so results do not depend on the thread count.
//
// With several states (vectorized chains) both products have a few columns, where the skinny
// kernels of matmul_skinny.cpp beat Eigen's GEMM (10-25% of the gradient, measured with
// bench/logistic_gradient's 4-chain case and VARIATE_MATMUL_SKINNY=0). One state keeps Eigen's
// matrix-vector path, which is at the bandwidth floor.
#include <Eigen/Core>
#include <cmath>

#include "tensor/cpu/matmul_skinny.hpp"
#include "tensor/cpu/strided_loop.hpp"
#include "tensor/cpu/vector_math.hpp"

namespace variate::cpu {
namespace {

constexpr std::int64_t kRowsPerBlock = 512;  // 512 x 51 doubles ~ 200 KB: stays in L2

// For one state: returns sum_i y_i z_i - softplus(z_i) in `lp` and sum_i g_i in `ga`, and overwrites
// z_i with g_i = y_i - sigmoid(z_i). All-double and branch-free so that it vectorizes; e =
// exp(-|z|) serves both softplus and sigmoid. The sums are unconditional (GCC does not vectorize
// conditional reductions): |y (1 - y)| is 0 exactly for labels 0 and 1, and its sum makes the
// log-likelihood -inf otherwise.
void rows_terms(const double* y, double* z_io, std::int64_t rows, double alpha, double& lp, double& ga) {
  double lp_sum = 0, ga_sum = 0, invalid = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    const double yi = y[i];
    const bool valid = (yi == 0.0) | (yi == 1.0);
    const double z = z_io[i] + alpha;
    const double e = vexp(z < 0 ? z : -z);
    const double softplus = (z > 0 ? z : 0.0) + vlog1p(e);
    const double sigmoid = (z >= 0 ? 1.0 : e) / (1.0 + e);
    lp_sum += yi * z - softplus;
    invalid += std::abs(yi * (1.0 - yi));
    const double g = valid ? yi - sigmoid : 0.0;
    ga_sum += g;
    z_io[i] = g;
  }
  lp = invalid != 0 ? -INFINITY : lp_sum;
  ga = ga_sum;
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
  // Per block, one state's z and the labels as contiguous doubles, for the vectorized row terms.
  Tensor row_scratch = Tensor::empty(Shape{blocks, 2, kRowsPerBlock}, DType::f64);
  const T* px = x.data<T>();
  const T* py = y.data<T>();
  const T* pa = alpha.data<T>();
  const ConstMap W(w.data<T>(), c, d);
  double* ps = sums.data<double>();
  T* pw = partial_w.data<T>();
  T* pz = z_scratch.data<T>();
  double* pr = row_scratch.data<double>();
  // Skinny: w is used as w^T (d x c, packed once), and each block's grad_w is kept as d x c
  // (x_b^T g), transposed when the blocks are added.
  const bool skinny = c >= 2 && c <= kSkinnyMaxN && skinny_matmul_enabled();
  Tensor w_t = Tensor::empty(Shape{skinny ? d : 0, c}, dtype_of<T>::value);
  T* pwt = w_t.data<T>();
  if (skinny)
    for (std::int64_t k = 0; k < c; ++k)
      for (std::int64_t j = 0; j < d; ++j) pwt[j * c + k] = W(k, j);
  parallel_blocks(n, kRowsPerBlock, [&](std::int64_t r0, std::int64_t r1) {
    const std::int64_t b = r0 / kRowsPerBlock, rows = r1 - r0;
    const ConstMap X(px + r0 * d, rows, d);
    Eigen::Map<Matrix> Z(pz + b * kRowsPerBlock * c, rows, c);
    if (skinny) {
      skinny_matmul<T>(px + r0 * d, pwt, Z.data(), rows, d, c, false, false);
    } else {
      Z.noalias() = X * W.transpose();  // rows x c
    }
    double* lp = ps + b * 2 * c;
    double* ga = lp + c;
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
      skinny_matmul<T>(px + r0 * d, Z.data(), pw + b * c * d, d, rows, c, true, false);
    } else {
      Eigen::Map<Matrix> G(pw + b * c * d, c, d);
      G.noalias() = Z.transpose() * X;
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
