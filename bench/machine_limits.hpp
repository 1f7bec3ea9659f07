#pragma once
// Measures this machine's limits in the same run as the benchmarks that are compared to them
// (the machines are shared and noisy, so only same-run ratios mean anything).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace variate::bench {

/// Best-of-`repeats` read bandwidth in GB/s over a buffer of `bytes`, summed by `threads` threads
/// (each reads its own contiguous part, as our kernels do). The default is much larger than the
/// caches: memory. A data set's own size gives the rate at which a kernel re-reads it, which is
/// higher where it stays in the last-level cache between calls (these machines' L3 holds 300 MB:
/// a 40 MB design matrix reads about twice as fast as memory).
inline double read_bandwidth_gbs(int threads, std::size_t bytes = std::size_t(512) << 20, int repeats = 7) {
  const std::size_t n = bytes / sizeof(double);
  std::vector<double> data(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) data[i] = double(i % 7);
  double best = 0, sink = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    double total = 0;
    // Sixteen independent partial sums per thread keep the adds off the critical path, so the loop
    // is limited by memory.
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const std::size_t begin = n / 16 * std::size_t(t) / std::size_t(nt) * 16;
      const std::size_t end = n / 16 * std::size_t(t + 1) / std::size_t(nt) * 16;
      double part[16] = {};
      for (std::size_t i = begin; i < end; i += 16)
        for (int k = 0; k < 16; ++k) part[k] += data[i + std::size_t(k)];
      for (double p : part) total += p;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sink += total;
    best = std::max(best, double(bytes) / s / 1e9);
  }
  if (sink < 0) return 0;  // keeps the reads from being optimized away
  return best;
}

/// STREAM-style triad a = b + s c, GB/s counting the three arrays once each.
inline double triad_bandwidth_gbs(int threads, std::size_t bytes_per_array = std::size_t(128) << 20, int repeats = 7) {
  const std::size_t n = bytes_per_array / sizeof(double);
  std::vector<double> a(n), b(n), c(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) a[i] = 0, b[i] = 1, c[i] = 2;
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, 3.0 * double(bytes_per_array) / s / 1e9);
  }
  return a[n / 2] == 7.0 ? best : 0;
}

}  // namespace variate::bench
