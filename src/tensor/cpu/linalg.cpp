// Cholesky factors and triangular solves through Eigen maps over our row-major buffers, batched
// over the leading dims. Both work in place in the output, so no per-matrix temporaries are made.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <atomic>
#include <cmath>

#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Parallel grain (in work units) for units of about `cost` flops each.
std::int64_t units_per_grain(std::int64_t cost) {
  return std::max<std::int64_t>(1, kParallelGrain / std::max<std::int64_t>(1, cost));
}

template <class T>
bool cholesky_batch(const T* x, T* out, std::int64_t batch, std::int64_t n) {
  std::atomic<bool> all_ok{true};
  parallel_chunks(
      batch,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          Eigen::Map<RowMajor<T>> l(out + i * n * n, n, n);
          l = Eigen::Map<const RowMajor<T>>(x + i * n * n, n, n);
          Eigen::LLT<Eigen::Ref<RowMajor<T>>> llt(l);  // factors l's lower triangle in place
          // LLT lets NaN pivots through; a finite positive diagonal is what makes the factor valid.
          bool ok = llt.info() == Eigen::Success;
          for (std::int64_t k = 0; k < n && ok; ++k) ok = l(k, k) > 0 && std::isfinite(l(k, k));
          if (!ok) all_ok.store(false, std::memory_order_relaxed);
          l.template triangularView<Eigen::StrictlyUpper>().setZero();
        }
      },
      units_per_grain(n * n * n));
  return all_ok.load();
}

// Solves op(A) X = B in place in X, for columns [c0, c1) of X.
template <class T>
void solve_in_place(const T* a, T* x, std::int64_t n, std::int64_t k, std::int64_t c0, std::int64_t c1, bool lower,
                    bool transpose_a) {
  Eigen::Map<const RowMajor<T>> A(a, n, n);
  auto X = Eigen::Map<RowMajor<T>>(x, n, k).middleCols(c0, c1 - c0);
  // The transpose of a lower-triangular matrix is upper triangular, and vice versa.
  if (!transpose_a) {
    if (lower)
      A.template triangularView<Eigen::Lower>().solveInPlace(X);
    else
      A.template triangularView<Eigen::Upper>().solveInPlace(X);
  } else {
    if (lower)
      A.transpose().template triangularView<Eigen::Upper>().solveInPlace(X);
    else
      A.transpose().template triangularView<Eigen::Lower>().solveInPlace(X);
  }
}

}  // namespace

bool CpuBackend::cholesky(const Tensor& x, Tensor& out) {
  const std::int64_t n = x.dim(-1), batch = n == 0 ? 0 : x.numel() / (n * n);
  return dispatch_dtype(x.dtype(), [&](auto zero) -> bool {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      return cholesky_batch(x.data<T>(), out.data<T>(), batch, n);
    } else {
      detail::fail("cholesky: expected f32 or f64, got ", x.dtype());
    }
  });
}

void CpuBackend::triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a, Tensor& out) {
  const std::int64_t n = out.dim(-2), k = out.dim(-1);
  const int batch_rank = out.rank() - 2;
  const Shape batch(std::span(out.shape().begin(), std::size_t(batch_rank)));
  const Shape batch_a(std::span(a.shape().begin(), std::size_t(a.rank() - 2)));
  const Shape batch_b(std::span(b.shape().begin(), std::size_t(b.rank() - 2)));
  // Strides in matrices of each operand's batch dims when broadcast to out's batch dims.
  const auto sa = broadcast_strides(batch_a, batch), sb = broadcast_strides(batch_b, batch);
  const std::int64_t nbatch = batch.numel();
  dispatch_dtype(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* po = out.data<T>();
      // Work units are (matrix, block of right-hand-side columns). Blocks have a fixed width, so
      // each column is computed the same way whatever the thread count.
      constexpr std::int64_t block = 64;
      const std::int64_t blocks = (k + block - 1) / block;
      parallel_chunks(
          nbatch * blocks,
          [&](std::int64_t s, std::int64_t e) {
            for (std::int64_t unit = s; unit < e; ++unit) {
              const std::int64_t i = unit / blocks, c0 = unit % blocks * block, c1 = std::min(k, c0 + block);
              std::int64_t rest = i, oa = 0, ob = 0;
              for (int d = batch_rank - 1; d >= 0; --d) {
                const std::int64_t idx = rest % batch[d];
                rest /= batch[d];
                oa += idx * sa[d];
                ob += idx * sb[d];
              }
              T* x = po + i * n * k;
              const T* rhs = pb + ob * n * k;
              for (std::int64_t r = 0; r < n; ++r) std::copy(rhs + r * k + c0, rhs + r * k + c1, x + r * k + c0);
              solve_in_place(pa + oa * n * n, x, n, k, c0, c1, lower, transpose_a);
            }
          },
          units_per_grain(n * n * std::min(k, block)));
    } else {
      detail::fail("triangular_solve: expected f32 or f64, got ", out.dtype());
    }
  });
}

}  // namespace variate::cpu
