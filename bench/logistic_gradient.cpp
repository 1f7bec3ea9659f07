// The gradient of the logistic-regression log likelihood sum(y z - softplus(z)), z = X w, at
// N = 100000, D = 51, in f64 and f32, next to the machine's read bandwidth measured in the same run.
// The floor is one read of X per gradient on all threads, at the rate a buffer of X's size is
// re-read (from cache where it fits, as X does).
//
//   build/bench/logistic_gradient [--benchmark_min_time=2]
#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cstdio>

#include "machine_limits.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
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

// Counters: ms per gradient, GB/s of X read per gradient, and time / floor (the floor is one read
// of X at the read bandwidth measured in main).
void report(benchmark::State& state, const Problem& p, double seconds) {
  const double per_grad = seconds / double(state.iterations());
  const double floor = double(p.x.nbytes()) / (read_gbs * 1e9);
  state.counters["ms_per_grad"] = per_grad * 1e3;
  state.counters["X_GB_per_s"] = double(p.x.nbytes()) / per_grad / 1e9;
  state.counters["floor_ms"] = floor * 1e3;
  state.counters["time_over_floor"] = per_grad / floor;
}

template <class LogLikelihood>
void run(benchmark::State& state, const Problem& p, LogLikelihood&& log_likelihood) {
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto result = value_and_grad(log_likelihood, p.w);
    benchmark::DoNotOptimize(result.grads[0].raw());
  }
  report(state, p, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// The model written with generic differentiable ops: two passes over X (x w, then x^T g).
void BM_Composite(benchmark::State& state, DType dtype) {
  const Problem p = make_problem(dtype);
  run(state, p, [&](const Tensor& w) {
    const Tensor z = matmul(p.x, w);
    return sum(p.y * z - softplus(z));
  });
}

// The fused GLM density: one pass over X.
void BM_FusedGLM(benchmark::State& state, DType dtype) {
  const Problem p = make_problem(dtype);
  const Tensor alpha = Tensor::scalar(0.0, dtype);
  run(state, p, [&](const Tensor& w) { return dist::BernoulliLogitGLM(p.x, w, alpha).log_prob(p.y); });
}

// Four chains' states in one pass over X (vectorized chains): w is (4, D).
void BM_FusedGLM4Chains(benchmark::State& state, DType dtype) {
  const Problem p = make_problem(dtype);
  const Tensor alpha = Tensor::zeros(Shape{4}, dtype);
  const Tensor w4 = prim::cast(random::normal(random::Key(5), Shape{4, kD}), dtype);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto result =
        value_and_grad([&](const Tensor& w) { return sum(dist::BernoulliLogitGLM(p.x, w, alpha).log_prob(p.y)); }, w4);
    benchmark::DoNotOptimize(result.grads[0].raw());
  }
  report(state, p, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

BENCHMARK_CAPTURE(BM_Composite, f64, DType::f64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Composite, f32, DType::f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_FusedGLM, f64, DType::f64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_FusedGLM, f32, DType::f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_FusedGLM4Chains, f64, DType::f64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_FusedGLM4Chains, f32, DType::f32)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  const int threads = omp_get_max_threads();
  const double memory_gbs = variate::bench::read_bandwidth_gbs(threads);
  const double triad = variate::bench::triad_bandwidth_gbs(threads);
  // The floor is a read of a buffer of X's size (f64), which stays in cache between gradients as X does.
  read_gbs = variate::bench::read_bandwidth_gbs(threads, std::size_t(kN * kD * 8), 15);
  std::printf(
      "machine: %d threads; memory read %.1f GB/s, triad %.1f GB/s; re-read of a %.1f MB buffer (X's size) "
      "%.1f GB/s\n",
      threads, memory_gbs, triad, double(kN * kD * 8) / 1e6, read_gbs);
  std::printf("floor per gradient (one read of X at %.1f GB/s): f64 %.3f ms, f32 %.3f ms\n", read_gbs,
              double(kN * kD * 8) / (read_gbs * 1e9) * 1e3, double(kN * kD * 4) / (read_gbs * 1e9) * 1e3);
  std::printf("time_over_floor: time per gradient divided by that floor (target <= 2 in f64)\n\n");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
