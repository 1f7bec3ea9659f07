// Batched matrix products through Eigen maps over our buffers. Large single products with few
// output columns or a short contracted dimension go to the kernels of matmul_skinny.cpp, which read
// A (or write the result) once at the memory bound, and so do those whose operands fit in the
// caches. Other large single products are split across threads along the leading dimension of A's
// storage, so each thread streams its own rows of A once: output rows when A is used as is, and
// fixed-size blocks of the contracted dimension (with partial products summed in block order,
// independent of the thread count) when A is transposed.
#include <Eigen/Core>

#include "tensor/cpu/matmul_skinny.hpp"
#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ConstMap = Eigen::Map<const RowMajor<T>>;
template <class T>
using MutMap = Eigen::Map<RowMajor<T>>;

// out (m x n) = op(A) op(B) where A's storage is `a_rows x a_cols`, B's `b_rows x b_cols`.
template <class T>
void product(const T* a, std::int64_t a_rows, std::int64_t a_cols, bool ta, const T* b, std::int64_t b_rows,
             std::int64_t b_cols, bool tb, T* out, std::int64_t m, std::int64_t n, bool accumulate) {
  ConstMap<T> A(a, a_rows, a_cols), B(b, b_rows, b_cols);
  MutMap<T> C(out, m, n);
  if (!accumulate) C.setZero();
  if (!ta && !tb)
    C.noalias() += A * B;
  else if (ta && !tb)
    C.noalias() += A.transpose() * B;
  else if (!ta && tb)
    C.noalias() += A * B.transpose();
  else
    C.noalias() += A.transpose() * B.transpose();
}

template <class T>
void matmul_2d(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n, bool ta, bool tb) {
  const std::int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  const std::int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  const std::int64_t flops = m * n * k;
  if (flops < (1 << 18)) {
    if (k == 1) {  // an outer product (a solve's cotangent for its matrix), which Eigen would pack first
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) out[i * n + j] = a[i] * b[j];
      return;
    }
    product(a, a_rows, a_cols, ta, b, b_rows, b_cols, tb, out, m, n, false);
    return;
  }
  // Few output columns: the product is a stream over A (X W, or X^T G with A transposed). Without
  // A transposed, a short A (m < 256) leaves B as the large operand, which Eigen handles well. A
  // single column (X w, X^T g) is a matrix-vector product, where Eigen's GEMV already runs at the
  // bound (measured: bench/matmul_shapes, "K=1").
  if (n >= 2 && n <= kSkinnyMaxN && (ta || m >= 256) && skinny_matmul_enabled()) {
    skinny_matmul(a, b, out, m, k, n, ta, tb);
    return;
  }
  // Many columns and a short contracted dimension (U V^T: the result is the large operand), or
  // operands that fit in the caches (the layers of small networks).
  const bool cached = k * (m + n) * std::int64_t(sizeof(T)) <= kPanelMaxBytes;
  if (n > kSkinnyMaxN && (k <= kSmallKMaxK || cached) && skinny_matmul_enabled()) {
    panel_matmul(a, b, out, m, k, n, ta, tb);
    return;
  }
  if (!ta) {  // fixed blocks of output rows = rows of A's storage; B is shared
    parallel_blocks(m, 256, [&](std::int64_t r0, std::int64_t r1) {
      product(a + r0 * a_cols, r1 - r0, a_cols, false, b, b_rows, b_cols, tb, out + r0 * n, r1 - r0, n, false);
    });
    return;
  }
  // A transposed: split the contracted dimension (rows of A's storage) into blocks whose number
  // depends only on k.
  const std::int64_t kblock = 4096;
  const std::int64_t blocks = std::min<std::int64_t>((k + kblock - 1) / kblock, 8);
  if (blocks <= 1) {
    product(a, a_rows, a_cols, ta, b, b_rows, b_cols, tb, out, m, n, false);
    return;
  }
  Tensor scratch = Tensor::empty(Shape{blocks, m, n}, dtype_of<T>::value);
  T* partial = scratch.data<T>();
  const std::int64_t per = (k + blocks - 1) / blocks;
  parallel_chunks(
      blocks,
      [&](std::int64_t s, std::int64_t e) {
        for (std::int64_t blk = s; blk < e; ++blk) {
          const std::int64_t k0 = blk * per, k1 = std::min(k, k0 + per);
          T* dst = partial + blk * m * n;
          if (k1 <= k0) {
            std::fill(dst, dst + m * n, T(0));
            continue;
          }
          if (!tb) {
            product(a + k0 * a_cols, k1 - k0, a_cols, true, b + k0 * b_cols, k1 - k0, b_cols, false, dst, m, n, false);
          } else {  // B's storage is n x k: take columns k0..k1 via an outer stride
            using Stride = Eigen::OuterStride<>;
            Eigen::Map<const RowMajor<T>, 0, Stride> B(b + k0, n, k1 - k0, Stride(k));
            ConstMap<T> A(a + k0 * a_cols, k1 - k0, a_cols);
            MutMap<T> C(dst, m, n);
            C.noalias() = A.transpose() * B.transpose();
          }
        }
      },
      1);
  MutMap<T> C(out, m, n);
  C = MutMap<T>(partial, m, n);
  for (std::int64_t blk = 1; blk < blocks; ++blk) C += MutMap<T>(partial + blk * m * n, m, n);
}

}  // namespace

void CpuBackend::matmul(const Tensor& a, bool ta, const Tensor& b, bool tb, Tensor& out) {
  const int ra = a.rank(), rb = b.rank(), ro = out.rank();
  const std::int64_t m = out.dim(-2), n = out.dim(-1);
  const std::int64_t k = ta ? a.dim(-2) : a.dim(-1);
  // Batch shapes and strides (in matrices) of each operand broadcast to out's batch shape.
  Shape batch_a, batch_b;
  for (int i = 0; i < ra - 2; ++i) batch_a.push_back(a.dim(i));
  for (int i = 0; i < rb - 2; ++i) batch_b.push_back(b.dim(i));
  const std::int64_t nbatch = out.numel() / std::max<std::int64_t>(1, m * n);
  const Shape batch(std::span(out.shape().begin(), std::size_t(ro - 2)));
  const auto sa = broadcast_strides(batch_a, batch), sb = broadcast_strides(batch_b, batch);
  const std::int64_t mat_a = a.dim(-2) * a.dim(-1), mat_b = b.dim(-2) * b.dim(-1);
  dispatch_dtype(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>) {
      detail::fail("matmul: integer and bool tensors are not supported; cast to f32 or f64");
    } else {
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* po = out.data<T>();
      if (nbatch == 1) {
        matmul_2d(pa, pb, po, m, k, n, ta, tb);
        return;
      }
      auto run = [&](std::int64_t s, std::int64_t e) {
        for (std::int64_t i = s; i < e; ++i) {
          std::int64_t rest = i, oa = 0, ob = 0;
          for (int d = ro - 3; d >= 0; --d) {
            const std::int64_t idx = rest % out.dim(d);
            rest /= out.dim(d);
            oa += idx * sa[d];
            ob += idx * sb[d];
          }
          product(pa + oa * mat_a, ta ? k : m, ta ? m : k, ta, pb + ob * mat_b, tb ? n : k, tb ? k : n, tb,
                  po + i * m * n, m, n, false);
        }
      };
      parallel_chunks(nbatch, run, std::max<std::int64_t>(1, (1 << 16) / std::max<std::int64_t>(1, m * n * k)));
    }
  });
}

}  // namespace variate::cpu
