#pragma once
// Iteration over a contiguous output while K inputs are read with broadcast strides. Adjacent
// dimensions that are contiguous for every operand are merged first, so the common cases (same
// shapes, scalar operands, row/column broadcasts) run as long inner loops.
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "tensor/cpu/cpu_backend.hpp"
#include "variate/core/error.hpp"

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

/// Splits [0, n) into one contiguous chunk per thread when n is large.
template <class Fn>
void parallel_chunks(std::int64_t n, Fn&& fn, std::int64_t grain = kParallelGrain) {
  const int threads = n >= 2 * grain ? std::min<int>(omp_get_max_threads(), int(n / grain)) : 1;
  if (threads <= 1) {
    fn(std::int64_t(0), n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    fn(n * t / nt, n * (t + 1) / nt);
  }
}

/// Calls fn(begin, end) for the blocks [k * block, (k + 1) * block) of [0, n), in parallel. Block
/// boundaries depend only on n and block, never on the thread count, so a kernel whose blocks are
/// computed independently gives the same bits on any number of threads, whichever thread runs a
/// block.
///
/// Each thread starts on its own contiguous share of the blocks, front to back, so that a share's
/// data stays in its core's caches from one call to the next. A thread that has finished its share
/// takes blocks from the back of the others' until none is left: on a shared machine one core is
/// often slowed by neighbours, and with fixed shares the other would wait for it at the end.
template <class Fn>
void parallel_blocks(std::int64_t n, std::int64_t block, Fn&& fn) {
  const std::int64_t blocks = (n + block - 1) / block;
  const int threads = int(std::min<std::int64_t>(omp_get_max_threads(), blocks));
  auto run = [&](std::int64_t k) { fn(k * block, std::min(n, (k + 1) * block)); };
  if (threads <= 1) {
    for (std::int64_t k = 0; k < blocks; ++k) run(k);
    return;
  }
  // A share's blocks still to run, [next, end), packed into one word so that the owner (taking
  // `next`) and a thief (taking `end - 1`) claim blocks with one compare-and-swap each.
  VARIATE_CHECK(blocks < (std::int64_t(1) << 32), "parallel_blocks", "at most 2^32 blocks, got ", blocks, " (n = ", n,
                ", block = ", block, ")");
  struct alignas(64) Share {
    std::atomic<std::uint64_t> range;
  };
  const auto pack = [](std::int64_t next, std::int64_t end) { return std::uint64_t(next) << 32 | std::uint64_t(end); };
  std::vector<Share> shares(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t)
    shares[std::size_t(t)].range.store(pack(blocks * t / threads, blocks * (t + 1) / threads),
                                       std::memory_order_relaxed);
  // Claims one block of share t, from its front or its back; -1 when the share is empty.
  const auto claim = [&](int t, bool front) -> std::int64_t {
    std::atomic<std::uint64_t>& range = shares[std::size_t(t)].range;
    std::uint64_t r = range.load(std::memory_order_relaxed);
    for (;;) {
      const auto next = std::int64_t(r >> 32), end = std::int64_t(r & 0xffffffffu);
      if (next >= end) return -1;
      const std::uint64_t claimed = front ? pack(next + 1, end) : pack(next, end - 1);
      if (range.compare_exchange_weak(r, claimed, std::memory_order_relaxed)) return front ? next : end - 1;
    }
  };
  // Inside another parallel region the team may have fewer threads than shares: the shares
  // without an owner are then taken from the back like any other.
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    for (std::int64_t k; (k = claim(t, true)) >= 0;) run(k);
    for (int other = 1; other < threads; ++other)
      for (std::int64_t k; (k = claim((t + other) % threads, false)) >= 0;) run(k);
  }
}

}  // namespace variate::cpu
