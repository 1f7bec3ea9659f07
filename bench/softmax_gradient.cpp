// The gradient of the softmax-regression log likelihood at MNIST's shape (N = 60000, D = 784, K = 10,
// f64 and one state unless named, random data) on 1 and 2 threads: the composite model Categorical(logits = X W + b),
// which reads X twice (X W, X^T G) and makes many element-wise passes, against the fused CategoricalLogitGLM, which
// reads X once. The floor is one read of X at the read bandwidth measured in the same run with the same number of
// threads. The fused GLM runs again on a design with MNIST's share of zeros (81%; each element zero with that
// probability), where it reads the nonzeros alone (cpu/sparse_rows.hpp): its floor is one read of their values and
// column indices.
//
//   build/bench/softmax_gradient [--benchmark_min_time=2]
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "machine_limits.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/distributions/categorical_logit_glm.hpp"
#include "variate/random/samplers.hpp"

namespace {

using namespace variate;

constexpr std::int64_t kN = 60000, kD = 784, kK = 10;
double read_gbs[3] = {};  // by thread count, measured in main before the benchmarks

constexpr double kMnistZeroShare = 0.81;

struct Problem {
  Tensor x, y, w, b;
  Tensor mostly_zero_x;          // x with a share kMnistZeroShare of its elements zero
  double mostly_zero_bytes = 0;  // its nonzeros' values and column indices (f64 and i32)
  // Single precision, and four states as in a 4-chain vectorized f32 run: w (4, D, K), b (4, K).
  Tensor x32, mostly_zero_x32, w4, b4;
};

const Problem& problem() {
  static const Problem p = [] {
    const random::Key key(20261201);
    Problem p;
    p.x = random::normal(random::fold_in(key, 1), Shape{kN, kD});
    const Tensor true_w = prim::binary(BinaryOp::mul, random::normal(random::fold_in(key, 2), Shape{kD, kK}), 0.05);
    p.y = random::categorical(random::fold_in(key, 3), prim::matmul(p.x, true_w), Shape{kN});
    p.w = prim::binary(BinaryOp::mul, random::normal(random::fold_in(key, 4), Shape{kD, kK}), 0.01);
    p.b = Tensor::zeros(Shape{kK});
    const Tensor keep = prim::cast(
        random::bernoulli(random::fold_in(key, 5), Tensor::scalar(1 - kMnistZeroShare), Shape{kN, kD}), DType::f64);
    p.mostly_zero_x = prim::binary(BinaryOp::mul, p.x, keep);
    const std::vector<double> kept = keep.to_vector<double>();
    p.mostly_zero_bytes = 12.0 * std::count(kept.begin(), kept.end(), 1.0);
    p.x32 = prim::cast(p.x, DType::f32);
    p.mostly_zero_x32 = prim::cast(p.mostly_zero_x, DType::f32);
    p.w4 = prim::cast(prim::binary(BinaryOp::mul, random::normal(random::fold_in(key, 6), Shape{4, kD, kK}), 0.01),
                      DType::f32);
    p.b4 = Tensor::zeros(Shape{4, kK}, DType::f32);
    return p;
  }();
  return p;
}

// Counters: ms per gradient, and time / floor (one read of X at the bandwidth measured in main on
// the same number of threads).
template <class LogLikelihood>
void run(benchmark::State& state, double floor_bytes, const Tensor& w, const Tensor& b,
         LogLikelihood&& log_likelihood) {
  const int threads = int(state.range(0)), saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto result = value_and_grad(log_likelihood, w, b);
    benchmark::DoNotOptimize(result.grads[0].raw());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  omp_set_num_threads(saved);
  const double per_grad = seconds / double(state.iterations());
  const double floor = floor_bytes / (read_gbs[threads] * 1e9);
  state.counters["ms_per_grad"] = per_grad * 1e3;
  state.counters["floor_ms"] = floor * 1e3;
  state.counters["time_over_floor"] = per_grad / floor;
}

// The model written with generic differentiable ops.
void BM_Composite(benchmark::State& state) {
  const Problem& p = problem();
  run(state, double(p.x.nbytes()), p.w, p.b, [&](const Tensor& w, const Tensor& b) {
    return sum(dist::Categorical::from_logits(matmul(p.x, w) + b).log_prob(p.y));
  });
}

// The fused GLM density: one pass over X.
void BM_FusedGLM(benchmark::State& state) {
  const Problem& p = problem();
  run(state, double(p.x.nbytes()), p.w, p.b,
      [&](const Tensor& w, const Tensor& b) { return dist::CategoricalLogitGLM(p.x, w, b).log_prob(p.y); });
}

// The same on the design with MNIST's share of zeros.
void BM_FusedGLMMostlyZeros(benchmark::State& state) {
  const Problem& p = problem();
  run(state, p.mostly_zero_bytes, p.w, p.b,
      [&](const Tensor& w, const Tensor& b) { return dist::CategoricalLogitGLM(p.mostly_zero_x, w, b).log_prob(p.y); });
}

// Both designs in f32 with four states (f32 values: 8 bytes per nonzero with its column).
void BM_FusedGLMFourStatesF32(benchmark::State& state) {
  const Problem& p = problem();
  run(state, double(p.x32.nbytes()), p.w4, p.b4,
      [&](const Tensor& w, const Tensor& b) { return sum(dist::CategoricalLogitGLM(p.x32, w, b).log_prob(p.y)); });
}

void BM_FusedGLMMostlyZerosFourStatesF32(benchmark::State& state) {
  const Problem& p = problem();
  run(state, p.mostly_zero_bytes * 8 / 12, p.w4, p.b4, [&](const Tensor& w, const Tensor& b) {
    return sum(dist::CategoricalLogitGLM(p.mostly_zero_x32, w, b).log_prob(p.y));
  });
}

BENCHMARK(BM_Composite)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FusedGLM)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FusedGLMMostlyZeros)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FusedGLMFourStatesF32)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FusedGLMMostlyZerosFourStatesF32)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("threads")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  read_gbs[1] = variate::bench::read_bandwidth_gbs(1);
  read_gbs[2] = variate::bench::read_bandwidth_gbs(2);
  const double x_bytes = double(kN * kD * 8);
  std::printf("MNIST shape N = %ld, D = %ld, K = %ld, f64: X is %.0f MB\n", long(kN), long(kD), long(kK),
              x_bytes / 1e6);
  for (int t : {1, 2})
    std::printf("memory read %.1f GB/s on %d thread(s): one read of X takes %.1f ms\n", read_gbs[t], t,
                x_bytes / (read_gbs[t] * 1e9) * 1e3);
  std::printf("time_over_floor: time per gradient divided by that read time\n\n");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
