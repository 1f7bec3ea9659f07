// The matrix products of our regression and factorization models, timed on 1 and 2 threads next
// to this machine's limits measured in the same run: the memory read bandwidth (machine_limits.hpp)
// and the rate of a large square product through prim::matmul (our "gemm rate"). The bound of a
// product is max(bytes it must read / read bandwidth, flops / gemm rate); ratio = time / bound.
//
//   build-mm/bench/matmul_shapes                          # current kernels
//   VARIATE_MATMUL_SKINNY=0 build-mm/bench/matmul_shapes  # the general (Eigen) path, for comparison
//   build-mm/bench/matmul_shapes "X W"                    # only the products whose name contains "X W"
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "machine_limits.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"

namespace {

using namespace variate;

struct Case {
  const char* name;
  std::int64_t a_rows, a_cols, b_rows, b_cols;  // storage shapes
  bool ta, tb;
};

// m, k, n of op(A) op(B).
void dims(const Case& c, std::int64_t& m, std::int64_t& k, std::int64_t& n) {
  m = c.ta ? c.a_cols : c.a_rows;
  k = c.ta ? c.a_rows : c.a_cols;
  n = c.tb ? c.b_rows : c.b_cols;
}

// Best-of wall time in seconds of prim::matmul on `threads` threads; repeats for about a second
// (on a shared machine a short product on 2 threads often waits for a core).
double best_seconds(const Tensor& a, const Tensor& b, bool ta, bool tb, int threads) {
  omp_set_num_threads(threads);
  double best = 1e30, spent = 0;
  for (int r = 0; r < 300 && (r < 3 || spent < 1.0); ++r) {
    const auto start = std::chrono::steady_clock::now();
    const Tensor c = prim::matmul(a, b, ta, tb);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, s);
    spent += s;
  }
  return best;
}

Tensor random_matrix(std::int64_t rows, std::int64_t cols, DType dtype, std::uint64_t seed) {
  return random::uniform(random::Key(seed), Shape{rows, cols}, dtype);
}

// GFLOP/s of a square product, the compute side of the bound.
double gemm_rate(DType dtype, int threads) {
  const std::int64_t s = 1536;
  const Tensor a = random_matrix(s, s, dtype, 1), b = random_matrix(s, s, dtype, 2);
  return 2.0 * double(s * s * s) / best_seconds(a, b, false, false, threads) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string filter = argc > 1 ? argv[1] : "";
  const char* mode = std::getenv("VARIATE_MATMUL_SKINNY");
  const bool general = mode != nullptr && std::string(mode) == "0";
  const int thread_counts[] = {1, 2};
  double read_gbs[2], rate[2][2];  // [threads - 1], rate[dtype f64/f32][threads - 1]
  for (int t : thread_counts) {
    read_gbs[t - 1] = variate::bench::read_bandwidth_gbs(t);
    rate[0][t - 1] = gemm_rate(DType::f64, t);
    rate[1][t - 1] = gemm_rate(DType::f32, t);
  }
  std::printf("kernels: %s\n", general ? "general Eigen path (VARIATE_MATMUL_SKINNY=0)" : "skinny kernels");
  std::printf(
      "read bandwidth GB/s at start: 1 thread %.1f, 2 threads %.1f (the bound uses the best of\n"
      "this and a measurement just before each product)\n",
      read_gbs[0], read_gbs[1]);
  std::printf("1536^3 gemm GFLOP/s: f64 %.1f / %.1f, f32 %.1f / %.1f (1 / 2 threads)\n\n", rate[0][0], rate[0][1],
              rate[1][0], rate[1][1]);
  const Case cases[] = {
      {"X W      mnist", 60000, 784, 784, 10, false, false},
      {"X^T G    mnist", 60000, 784, 60000, 10, true, false},
      {"X w      logreg K=1", 100000, 51, 51, 1, false, false},
      {"X W      logreg K=2", 100000, 51, 51, 2, false, false},
      {"X W      logreg K=4", 100000, 51, 51, 4, false, false},
      {"X W      logreg K=8", 100000, 51, 51, 8, false, false},
      {"X^T g    logreg K=1", 100000, 51, 100000, 1, true, false},
      {"X^T G    logreg K=2", 100000, 51, 100000, 2, true, false},
      {"X^T G    logreg K=4", 100000, 51, 100000, 4, true, false},
      {"X^T G    logreg K=8", 100000, 51, 100000, 8, true, false},
      {"U V^T    ml-100k", 943, 20, 1682, 20, false, true},
      {"U V^T    ml-1m", 6040, 20, 3706, 20, false, true},
  };
  std::printf("%-20s %-4s %3s %9s %8s %8s %9s %6s\n", "product", "type", "thr", "ms", "GFLOP/s", "A GB/s", "bound ms",
              "ratio");
  for (const Case& c : cases) {
    if (std::string(c.name).find(filter) == std::string::npos) continue;
    for (int d = 0; d < 2; ++d) {
      const DType dtype = d == 0 ? DType::f64 : DType::f32;
      const double size = d == 0 ? 8.0 : 4.0;
      const Tensor a = random_matrix(c.a_rows, c.a_cols, dtype, 3), b = random_matrix(c.b_rows, c.b_cols, dtype, 4);
      std::int64_t m, k, n;
      dims(c, m, k, n);
      const double flops = 2.0 * double(m) * double(n) * double(k);
      const double a_bytes = size * double(c.a_rows * c.a_cols);
      // Everything that must cross the memory bus once: A, B and the result (counted at the read
      // rate, which overstates what writes can do; it matters only for U V^T).
      const double bytes = a_bytes + size * double(c.b_rows * c.b_cols + m * n);
      for (int t : thread_counts) {
        // The machine is shared: measure the bandwidth again right before each product, and keep
        // the best seen, so that a busy moment does not make the bound look slower.
        read_gbs[t - 1] = std::max(read_gbs[t - 1], variate::bench::read_bandwidth_gbs(t, std::size_t(256) << 20, 3));
        const double s = best_seconds(a, b, c.ta, c.tb, t);
        const double bound = std::max(bytes / (read_gbs[t - 1] * 1e9), flops / (rate[d][t - 1] * 1e9));
        std::printf("%-20s %-4s %3d %9.2f %8.1f %8.1f %9.2f %6.2f\n", c.name, d == 0 ? "f64" : "f32", t, s * 1e3,
                    flops / s / 1e9, a_bytes / s / 1e9, bound * 1e3, s / bound);
      }
    }
  }
  return 0;
}
