#pragma once
// Iteration over a contiguous output while K inputs are read with broadcast strides. Adjacent
// dimensions that are contiguous for every operand are merged first, so the common cases (same
// shapes, scalar operands, row/column broadcasts) run as long inner loops.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "tensor/cpu/cpu_backend.hpp"
#include "tensor/cpu/parallel_tasks.hpp"

namespace variate::cpu {

template <int K>
struct StridedPlan {
  int rank = 0;
  std::array<std::int64_t, kMaxRank> dims{};
  std::array<std::array<std::int64_t, kMaxRank>, K> strides{};  // in elements, per operand
};

/// Strides of `in` (in elements) when broadcast to `out` (right-aligned, 0 on broadcast dims).
inline std::array<std::int64_t, kMaxRank> broadcast_strides(const Shape& in, const Shape& out) {
  std::array<std::int64_t, kMaxRank> s{};
  const auto rm = row_major_strides(in);
  const int shift = out.rank() - in.rank();
  for (int i = 0; i < in.rank(); ++i) s[i + shift] = in[i] == 1 && out[i + shift] != 1 ? 0 : rm[i];
  return s;
}

template <int K>
StridedPlan<K> make_plan(const Shape& out, const std::array<const Shape*, K>& ins) {
  StridedPlan<K> plan;
  std::array<std::array<std::int64_t, kMaxRank>, K> full;
  for (int k = 0; k < K; ++k) full[k] = broadcast_strides(*ins[k], out);
  for (int i = 0; i < out.rank(); ++i) {
    if (out[i] == 1) continue;
    const int r = plan.rank;
    bool merge = r > 0;
    for (int k = 0; k < K && merge; ++k) merge = plan.strides[k][r - 1] == full[k][i] * out[i];
    if (merge) {
      plan.dims[r - 1] *= out[i];
      for (int k = 0; k < K; ++k) plan.strides[k][r - 1] = full[k][i];
    } else {
      plan.dims[r] = out[i];
      for (int k = 0; k < K; ++k) plan.strides[k][r] = full[k][i];
      ++plan.rank;
    }
  }
  return plan;
}

/// Calls fn(out_offset, offsets, n, inner_strides) for runs of the flat output range [begin, end).
template <int K, class Fn>
void strided_range(const StridedPlan<K>& plan, std::int64_t begin, std::int64_t end, Fn&& fn) {
  if (begin >= end) return;
  std::array<std::int64_t, K> inner;
  if (plan.rank == 0) {
    inner.fill(0);
    std::array<std::int64_t, K> offsets{};
    fn(begin, offsets, end - begin, inner);
    return;
  }
  const int last = plan.rank - 1;
  for (int k = 0; k < K; ++k) inner[k] = plan.strides[k][last];
  std::array<std::int64_t, kMaxRank> index{};
  std::int64_t rest = begin;
  for (int d = last; d >= 0; --d) {
    index[d] = rest % plan.dims[d];
    rest /= plan.dims[d];
  }
  std::int64_t pos = begin;
  while (pos < end) {
    std::array<std::int64_t, K> offsets{};
    for (int k = 0; k < K; ++k)
      for (int d = 0; d <= last; ++d) offsets[k] += index[d] * plan.strides[k][d];
    const std::int64_t n = std::min(plan.dims[last] - index[last], end - pos);
    fn(pos, offsets, n, inner);
    pos += n;
    index[last] += n;
    for (int d = last; d > 0 && index[d] == plan.dims[d]; --d) {
      index[d] = 0;
      ++index[d - 1];
    }
  }
}

/// Calls fn(begin, end) for contiguous chunks covering [0, n) once, in parallel when n is large:
/// a few chunks of at least `grain` elements per thread, so that a thread that is held up (on a
/// shared machine, often for a whole time slice) leaves its chunks to the others. The chunk bounds
/// depend on the thread count, so fn must compute each element the same way whichever chunk holds
/// it.
template <class Fn>
void parallel_chunks(std::int64_t n, Fn&& fn, std::int64_t grain = kParallelGrain) {
  constexpr int kChunksPerThread = 4;
  const int threads = omp_get_max_threads();
  const std::int64_t chunks =
      threads > 1 && n >= 2 * grain ? std::min<std::int64_t>(std::int64_t(threads) * kChunksPerThread, n / grain) : 1;
  if (chunks <= 1) {
    fn(std::int64_t(0), n);
    return;
  }
  parallel_tasks(chunks, threads, [&](std::int64_t k) { fn(n * k / chunks, n * (k + 1) / chunks); });
}

/// Calls fn(begin, end) for the blocks [k * block, (k + 1) * block) of [0, n), in parallel
/// (parallel_tasks: each thread starts on its own contiguous share of the blocks, so that a share's
/// data stays in one core's caches from one call to the next, and then takes blocks from the back
/// of the others'). Block boundaries depend only on n and block, never on the thread count, so a
/// kernel whose blocks are computed independently gives the same bits on any number of threads,
/// whichever thread runs a block.
template <class Fn>
void parallel_blocks(std::int64_t n, std::int64_t block, Fn&& fn) {
  const std::int64_t blocks = (n + block - 1) / block;
  parallel_tasks(blocks, omp_get_max_threads(), [&](std::int64_t k) { fn(k * block, std::min(n, (k + 1) * block)); });
}

}  // namespace variate::cpu
