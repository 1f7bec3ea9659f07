// Autodiff overhead: a chain of 100 scalar ops under value_and_grad, reported as time per op
// (forward kernel + tape record + backward rule). Target: under 1 microsecond per op.
//
//   build/bench/autodiff_overhead
#include <benchmark/benchmark.h>

#include <chrono>

#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"

namespace {

using namespace variate;

constexpr int kOps = 100;

// 100 ops alternating multiply, add, sin-free smooth unaries, on a scalar.
Tensor chain(const Tensor& x) {
  Tensor y = x;
  for (int i = 0; i < kOps / 4; ++i) {
    y = y * 0.999;
    y = y + 0.001;
    y = tanh(y);
    y = y * x;
  }
  return y;
}

void report_ns_per_op(benchmark::State& state, std::chrono::steady_clock::time_point start) {
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  state.counters["ns_per_op"] = ns / double(state.iterations()) / kOps;
}

void BM_ScalarChainValueAndGrad(benchmark::State& state) {
  const Tensor x = Tensor::scalar(0.5);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto r = value_and_grad(chain, x);
    benchmark::DoNotOptimize(r.grads[0].raw());
  }
  report_ns_per_op(state, start);
}
BENCHMARK(BM_ScalarChainValueAndGrad);

void BM_ScalarChainForwardOnly(benchmark::State& state) {
  const Tensor x = Tensor::scalar(0.5);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    Tensor y = chain(x);
    benchmark::DoNotOptimize(y.raw());
  }
  report_ns_per_op(state, start);
}
BENCHMARK(BM_ScalarChainForwardOnly);

}  // namespace

BENCHMARK_MAIN();
