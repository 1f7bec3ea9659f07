// The gradient of the logistic-regression log likelihood sum(y z - softplus(z)), z = X w, at
// N = 100000, D = 51, in f64 and f32, next to the machine's memory read bandwidth measured in the
// same run. The floor is one read of X per gradient at that bandwidth on all threads.
//
//   build/bench/logistic_gradient [--benchmark_min_time=2]
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdio>

#include "machine_limits.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/random/samplers.hpp"

namespace {

using namespace variate;

constexpr std::int64_t kN = 100000, kD = 51;
double read_gbs = 0;  // all threads, measured in main before the benchmarks

struct Problem {
  Tensor x, y, w;
};

Problem make_problem(DType dtype) {
  const random::Key key(20261129);
  Problem p;
  const Tensor x = random::normal(random::fold_in(key, 1), Shape{kN, kD});
  const Tensor true_w = prim::binary(BinaryOp::mul, random::normal(random::fold_in(key, 2), Shape{kD}), 0.3);
  const Tensor probs = prim::unary(UnaryOp::sigmoid, prim::matmul(x, true_w));
  const Tensor y = prim::binary(BinaryOp::lt, random::uniform(random::fold_in(key, 3), Shape{kN}), probs);
  p.x = prim::cast(x, dtype);
  p.y = prim::cast(y, dtype);
  p.w = prim::cast(prim::binary(BinaryOp::mul, random::normal(random::fold_in(key, 4), Shape{kD}), 0.1), dtype);
  return p;
}

void BM_LogisticGradient(benchmark::State& state, DType dtype) {
  const Problem p = make_problem(dtype);
  auto log_likelihood = [&](const Tensor& w) {
    const Tensor z = matmul(p.x, w);
    return sum(p.y * z - softplus(z));
  };
  for (auto _ : state) {
    auto result = value_and_grad(log_likelihood, p.w);
    benchmark::DoNotOptimize(result.grads[0].raw());
  }
  const double x_bytes = double(p.x.nbytes());
  state.counters["ms_per_grad"] = benchmark::Counter(1e-3, benchmark::Counter::kIsIterationInvariantRate |
                                                               benchmark::Counter::kInvert);
  state.counters["X_GB/s"] = benchmark::Counter(x_bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["floor_ms"] = x_bytes / (read_gbs * 1e9) * 1e3;
  state.counters["time/floor"] =
      benchmark::Counter(x_bytes / (read_gbs * 1e9), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK_CAPTURE(BM_LogisticGradient, f64, DType::f64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_LogisticGradient, f32, DType::f32)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  const int threads = omp_get_max_threads();
  read_gbs = variate::bench::read_bandwidth_gbs(threads);
  const double read1 = variate::bench::read_bandwidth_gbs(1);
  const double triad = variate::bench::triad_bandwidth_gbs(threads);
  std::printf("machine: %d threads; memory read %.1f GB/s (1 thread %.1f); triad %.1f GB/s\n", threads, read_gbs,
              read1, triad);
  std::printf("floor per gradient (one read of X at %.1f GB/s): f64 %.3f ms, f32 %.3f ms\n", read_gbs,
              double(kN * kD * 8) / (read_gbs * 1e9) * 1e3, double(kN * kD * 4) / (read_gbs * 1e9) * 1e3);
  std::printf("time/floor: achieved time per gradient divided by that floor (target <= 2 in f64)\n\n");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
