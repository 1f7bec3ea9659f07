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

// Below this order the Cholesky factor is computed a column at a time from dot products of
// contiguous rows (Cholesky-Crout): the entries of a column are independent of each other, so their
// dot products overlap, and on a matrix this small that beats Eigen's column updates.
constexpr std::int64_t kSmallCholeskyOrder = 32;

// sum over i < m of u[i su] v[i sv], in four interleaved partial sums so that the additions overlap.
template <class T>
T dot(const T* u, std::int64_t su, const T* v, std::int64_t sv, std::int64_t m) {
  T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::int64_t i = 0;
  for (; i + 4 <= m; i += 4) {
    s0 += u[i * su] * v[i * sv];
    s1 += u[(i + 1) * su] * v[(i + 1) * sv];
    s2 += u[(i + 2) * su] * v[(i + 2) * sv];
    s3 += u[(i + 3) * su] * v[(i + 3) * sv];
  }
  for (; i < m; ++i) s0 += u[i * su] * v[i * sv];
  return (s0 + s1) + (s2 + s3);
}

// L from A's lower triangle into `l`, its strict upper triangle zero; false at a pivot that is not
// finite and positive.
template <class T>
bool small_cholesky(const T* a, T* l, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    T* row_j = l + j * n;
    const T pivot = a[j * n + j] - dot(row_j, 1, row_j, 1, j);
    if (!(pivot > 0 && std::isfinite(pivot))) return false;
    const T l_jj = row_j[j] = std::sqrt(pivot);
    std::fill(row_j + j + 1, row_j + n, T(0));
    for (std::int64_t i = j + 1; i < n; ++i) l[i * n + j] = (a[i * n + j] - dot(l + i * n, 1, row_j, 1, j)) / l_jj;
  }
  return true;
}

template <class T>
bool cholesky_batch(const T* x, T* out, std::int64_t batch, std::int64_t n) {
  std::atomic<bool> all_ok{true};
  parallel_chunks(
      batch,
      [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          if (n <= kSmallCholeskyOrder) {
            if (!small_cholesky(x + i * n * n, out + i * n * n, n)) all_ok.store(false, std::memory_order_relaxed);
            continue;
          }
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

// Below this order, substitution row by row beats Eigen's blocked solve, whose packing costs more
// than the arithmetic of a small matrix (a GP on a few dozen points).
constexpr std::int64_t kSmallSolveOrder = 32;

// Below this many right-hand sides, each column is solved with its sum in a register; above, rows
// are updated a vector at a time (a sum carried through memory would stall on each update).
constexpr std::int64_t kColumnwiseSolveWidth = 4;

// Substitution for op(A) X = B in place in X's columns [c0, c1): each row of X, in the order the
// triangle allows, minus its solved predecessors.
template <class T>
void substitute_in_place(const T* a, T* x, std::int64_t n, std::int64_t k, std::int64_t c0, std::int64_t c1, bool lower,
                         bool transpose_a) {
  // op(A) is lower triangular (solved first row first) for a lower A as it is, or an upper A transposed.
  const bool forward = lower != transpose_a;
  const auto op_a = [&](std::int64_t r, std::int64_t j) { return transpose_a ? a[j * n + r] : a[r * n + j]; };
  if (c1 - c0 < kColumnwiseSolveWidth) {
    for (std::int64_t c = c0; c < c1; ++c)
      for (std::int64_t step = 0; step < n; ++step) {
        const std::int64_t r = forward ? step : n - 1 - step;
        const std::int64_t j0 = forward ? 0 : r + 1, j1 = forward ? r : n;
        T s = x[r * k + c];
        for (std::int64_t j = j0; j < j1; ++j) s -= op_a(r, j) * x[j * k + c];
        x[r * k + c] = s / op_a(r, r);
      }
    return;
  }
  for (std::int64_t step = 0; step < n; ++step) {
    const std::int64_t r = forward ? step : n - 1 - step;
    T* row = x + r * k;
    const std::int64_t j0 = forward ? 0 : r + 1, j1 = forward ? r : n;
    for (std::int64_t j = j0; j < j1; ++j) {
      const T f = op_a(r, j);
      const T* solved = x + j * k;
      for (std::int64_t c = c0; c < c1; ++c) row[c] -= f * solved[c];
    }
    const T pivot = op_a(r, r);
    for (std::int64_t c = c0; c < c1; ++c) row[c] /= pivot;
  }
}

// Solves op(A) X = B in place in X, for columns [c0, c1) of X.
template <class T>
void solve_in_place(const T* a, T* x, std::int64_t n, std::int64_t k, std::int64_t c0, std::int64_t c1, bool lower,
                    bool transpose_a) {
  if (n <= kSmallSolveOrder) return substitute_in_place(a, x, n, k, c0, c1, lower, transpose_a);
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

// Up to this order the unblocked algorithm's n^3 / 3 flops in contiguous row updates win; above it,
// the matrix formula's solves and products run blocked, at the cache's rate.
constexpr std::int64_t kUnblockedCholeskyBackwardOrder = 128;

// Murray (2016), "Differentiation of the Cholesky decomposition", the unblocked reverse-mode
// algorithm (section 4.1): `a` holds L_bar's lower triangle on entry and the cotangent of A's lower
// triangle on exit, A's upper triangle being its mirror. The pivots' reciprocals are taken first,
// which keeps divisions off the chain from one column to the next (20% of the time at order 11).
template <class T>
void cholesky_backward_unblocked(const T* __restrict l, T* __restrict a, std::int64_t n) {
  T reciprocal[kUnblockedCholeskyBackwardOrder];
  for (std::int64_t j = 0; j < n; ++j) reciprocal[j] = T(1) / l[j * n + j];
  for (std::int64_t j = n - 1; j >= 0; --j) {
    // column j of L below the diagonal against that of the cotangent
    const T below = dot(l + (j + 1) * n + j, n, a + (j + 1) * n + j, n, n - j - 1);
    a[j * n + j] -= below * reciprocal[j];
    for (std::int64_t i = j; i < n; ++i) a[i * n + j] *= reciprocal[j];
    // Row j's update sums n - j rows of L; four at a time, so that its chain through memory is short.
    T* row_j = a + j * n;
    std::int64_t r = j;
    for (; r + 4 <= n; r += 4) {
      const T f0 = a[r * n + j], f1 = a[(r + 1) * n + j], f2 = a[(r + 2) * n + j], f3 = a[(r + 3) * n + j];
      const T *l0 = l + r * n, *l1 = l0 + n, *l2 = l1 + n, *l3 = l2 + n;
      for (std::int64_t k = 0; k < j; ++k) row_j[k] -= (f0 * l0[k] + f1 * l1[k]) + (f2 * l2[k] + f3 * l3[k]);
    }
    for (; r < n; ++r) {
      const T f = a[r * n + j];
      const T* l_row = l + r * n;
      for (std::int64_t k = 0; k < j; ++k) row_j[k] -= f * l_row[k];
    }
    const T* l_row_j = l + j * n;
    for (std::int64_t i = j + 1; i < n; ++i) {
      const T f = a[i * n + j];
      T* row_i = a + i * n;
      for (std::int64_t k = 0; k < j; ++k) row_i[k] -= f * l_row_j[k];
    }
    a[j * n + j] *= T(0.5);
  }
}

// The same cotangent by the matrix formula (Murray 2016, eq. 10): A_bar = sym(L^-T Phi(L^T L_bar) L^-1),
// with sym(S) = (S + S^T) / 2 and Phi keeping the lower triangle with its diagonal halved. Both
// solves are with L^T: S^T = L^-T (L^-T Phi)^T. `work` holds n x n.
template <class T>
void cholesky_backward_blocked(const T* l, const T* l_bar, T* out, T* work, std::int64_t n) {
  Eigen::Map<const RowMajor<T>> L(l, n, n), L_bar(l_bar, n, n);
  Eigen::Map<RowMajor<T>> P(out, n, n);
  P.noalias() = L.transpose().template triangularView<Eigen::Upper>() * L_bar;
  P.template triangularView<Eigen::StrictlyUpper>().setZero();
  P.diagonal() *= T(0.5);
  solve_in_place(l, out, n, n, 0, n, /*lower=*/true, /*transpose_a=*/true);
  Eigen::Map<RowMajor<T>>(work, n, n) = P.transpose();
  solve_in_place(l, work, n, n, 0, n, /*lower=*/true, /*transpose_a=*/true);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j <= i; ++j)
      out[i * n + j] = out[j * n + i] = T(0.5) * (work[i * n + j] + work[j * n + i]);
}

// The symmetric cotangent of A: each off-diagonal entry of the lower triangle's cotangent is shared
// by A_ij and A_ji.
template <class T>
void cholesky_backward_one(const T* l, const T* l_bar, T* out, T* work, std::int64_t n) {
  if (n > kUnblockedCholeskyBackwardOrder) return cholesky_backward_blocked(l, l_bar, out, work, n);
  std::copy(l_bar, l_bar + n * n, out);
  cholesky_backward_unblocked(l, out, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < i; ++j) out[j * n + i] = out[i * n + j] *= T(0.5);
}

}  // namespace

void CpuBackend::cholesky_backward(const Tensor& l, const Tensor& l_grad, Tensor& out) {
  const std::int64_t n = l.dim(-1), batch = n == 0 ? 0 : l.numel() / (n * n);
  dispatch_dtype(l.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      const bool blocked = n > kUnblockedCholeskyBackwardOrder;
      Tensor work = blocked ? Tensor::empty(l.shape(), l.dtype()) : Tensor();
      const T *pl = l.data<T>(), *pg = l_grad.data<T>();
      T *po = out.data<T>(), *pw = blocked ? work.data<T>() : nullptr;
      parallel_chunks(
          batch,
          [&](std::int64_t s, std::int64_t e) {
            for (std::int64_t i = s; i < e; ++i)
              cholesky_backward_one(pl + i * n * n, pg + i * n * n, po + i * n * n, blocked ? pw + i * n * n : nullptr,
                                    n);
          },
          units_per_grain(n * n * n));
    } else {
      detail::fail("cholesky_backward: expected f32 or f64, got ", l.dtype());
    }
  });
}

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
