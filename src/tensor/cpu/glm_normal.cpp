// The fused Normal identity-link GLM kernel (Stan's normal_id_glm). The composite autodiff version
// reads the design matrix twice per gradient (x w forward, x^T g backward) and passes over the rows
// a dozen times between them; here each block of rows is read once, its residuals' terms are taken
// while they are in registers, and its share of x^T g follows while the block is still in L1.
// Blocks have a size fixed by the shape and their partial results are combined in block order, so
// results do not depend on the thread count.
#include <Eigen/Core>
#include <cmath>
#include <numbers>
#include <vector>

#include "tensor/cpu/cpu_backend.hpp"
#include "tensor/cpu/simd.hpp"
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A block of rows of x takes about this many bytes, so that its second use comes from L1.
constexpr std::int64_t kBlockBytes = 32 << 10;

// Space for one thread's g of a block (C x rows), reused from call to call.
template <class T>
T* g_scratch(std::int64_t elements) {
  thread_local std::vector<T> scratch;
  if (scratch.size() < std::size_t(elements)) scratch.resize(std::size_t(elements));
  return scratch.data();
}

// x_i . w for the W rows at x (each d long), W a vector's lanes: each row's products summed in a
// vector, then the W vectors' lanes summed by one transposing tree (Simd::lane_sums), where summing
// each vector on its own would end every row, only a few vectors long, with a chain of shuffles.
template <class T>
typename Simd<T>::Vec row_dots(const T* x, std::int64_t d, const T* w) {
  using S = Simd<T>;
  constexpr int W = S::lanes;
  typename S::Vec sums[W] = {};
  std::int64_t j = 0;
  for (; j + W <= d; j += W) {
    const typename S::Vec wj = S::load(w + j);
    for (int l = 0; l < W; ++l) sums[l] += S::load(x + l * d + j) * wj;
  }
  if (j < d) {
    const int rest = int(d - j);
    const typename S::Vec wj = S::load_first(w + j, rest);
    for (int l = 0; l < W; ++l) sums[l] += S::load_first(x + l * d + j, rest) * wj;
  }
  return S::lane_sums(sums);
}

// One block's rows for one state: g_i = r_i / sigma^2 with r_i = y_i - x_i . w - alpha into `g`, and
// the block's sum_i r_i^2 and sum_i g_i (in lanes over whole vectors of rows, then the rest).
template <class T>
void block_residuals(const T* x, const T* y, std::int64_t rows, std::int64_t d, const T* w, T alpha, T inverse_variance,
                     T* g, double& squares, double& residuals) {
  using S = Simd<T>;
  constexpr int W = S::lanes;
  typename S::Vec square_lanes{}, g_lanes{};
  std::int64_t i = 0;
  for (; i + W <= rows; i += W) {
    const typename S::Vec r = S::load(y + i) - row_dots(x + i * d, d, w) - alpha;
    const typename S::Vec gi = r * inverse_variance;
    S::store(g + i, gi);
    square_lanes += r * r;
    g_lanes += gi;
  }
  squares = residuals = 0;
  for (int l = 0; l < W; ++l) {
    squares += double(square_lanes[l]);
    residuals += double(g_lanes[l]);
  }
  for (; i < rows; ++i) {
    T z = 0;
    for (std::int64_t j = 0; j < d; ++j) z += x[i * d + j] * w[j];
    const T r = y[i] - z - alpha;
    g[i] = r * inverse_variance;
    squares += double(r) * double(r);
    residuals += double(g[i]);
  }
}

template <class T>
void normal_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& sigma, const Tensor& y,
                Tensor& log_lik, Tensor& grad_w, Tensor& grad_alpha, Tensor& grad_sigma) {
  constexpr int W = Simd<T>::lanes;
  const std::int64_t n = x.dim(0), d = x.dim(1), c = w.dim(0);
  const std::int64_t row_bytes = std::max<std::int64_t>(1, d * std::int64_t(sizeof(T)));
  const std::int64_t block_rows = std::max<std::int64_t>(W, kBlockBytes / row_bytes / W * W);
  const std::int64_t blocks = (n + block_rows - 1) / block_rows;
  const T *px = x.data<T>(), *pw = w.data<T>(), *pa = alpha.data<T>(), *ps = sigma.data<T>(), *py = y.data<T>();
  // Per block: grad_w's share (C x D), and per state sum_i r_i^2 and sum_i g_i. From the tensor
  // allocator, which recycles them: no heap allocation per call.
  Tensor block_gradients = Tensor::empty(Shape{blocks, c, d}, dtype_of<T>::value);
  Tensor block_sums = Tensor::empty(Shape{blocks, 2, c}, DType::f64);
  T* pg = block_gradients.data<T>();
  double* pt = block_sums.data<double>();
  parallel_chunks(
      blocks,
      [&](std::int64_t b0, std::int64_t b1) {
        T* g = g_scratch<T>(c * block_rows);
        for (std::int64_t b = b0; b < b1; ++b) {
          const std::int64_t r0 = b * block_rows, rows = std::min(block_rows, n - r0);
          double* sums = pt + b * 2 * c;
          for (std::int64_t s = 0; s < c; ++s)
            block_residuals(px + r0 * d, py + r0, rows, d, pw + s * d, pa[s], T(1) / (ps[s] * ps[s]), g + s * rows,
                            sums[s], sums[c + s]);
          // grad_w's share, sum_i g_i x_i for each state, while the block is in L1.
          const Eigen::Map<const RowMajor<T>> xb(px + r0 * d, rows, d);
          Eigen::Map<RowMajor<T>>(pg + b * c * d, c, d).noalias() = Eigen::Map<const RowMajor<T>>(g, c, rows) * xb;
        }
      },
      1);
  T *lp = log_lik.data<T>(), *gw = grad_w.data<T>(), *ga = grad_alpha.data<T>(), *gs = grad_sigma.data<T>();
  const double half_log_two_pi = 0.5 * std::log(2 * std::numbers::pi), count = double(n);
  for (std::int64_t s = 0; s < c; ++s) {
    double squares = 0, residuals = 0;
    for (std::int64_t b = 0; b < blocks; ++b) {
      squares += pt[b * 2 * c + s];
      residuals += pt[b * 2 * c + c + s];
    }
    const double sd = double(ps[s]);
    lp[s] = T(-0.5 * squares / (sd * sd) - count * (std::log(sd) + half_log_two_pi));
    ga[s] = T(residuals);
    gs[s] = T(squares / (sd * sd * sd) - count / sd);
    for (std::int64_t j = 0; j < d; ++j) {
      double gradient = 0;
      for (std::int64_t b = 0; b < blocks; ++b) gradient += double(pg[(b * c + s) * d + j]);
      gw[s * d + j] = T(gradient);
    }
  }
}

}  // namespace

void CpuBackend::normal_id_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& sigma,
                               const Tensor& y, Tensor& log_lik, Tensor& grad_w, Tensor& grad_alpha,
                               Tensor& grad_sigma) {
  if (x.dtype() == DType::f32) {
    normal_glm<float>(x, w, alpha, sigma, y, log_lik, grad_w, grad_alpha, grad_sigma);
  } else {
    normal_glm<double>(x, w, alpha, sigma, y, log_lik, grad_w, grad_alpha, grad_sigma);
  }
}

}  // namespace variate::cpu
