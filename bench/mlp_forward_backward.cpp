// Forward and backward passes of the VAE encoder's MLP shape (784-200-200-50, tanh, batch 100; the
// IWAE paper's architecture) through nn::value_and_grad, in f64 and f32, on 1 and 2 threads. Prints
// examples/s and the FLOP rate next to this machine's limit measured in the same run: the rate of a
// square product through prim::matmul (the best of three sizes).
//
//   build/bench/mlp_forward_backward
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "timing.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/nn/layers.hpp"
#include "variate/nn/linear.hpp"
#include "variate/nn/sequential.hpp"
#include "variate/random/samplers.hpp"

namespace {

using namespace variate;

constexpr std::int64_t kBatch = 100;
constexpr std::int64_t kWidths[] = {784, 200, 200, 50};

// The best rate of square products of a few sizes: the large one is limited by memory traffic
// between cache levels, the small ones by their edges, so the best of them is the machine's usable
// peak for a product.
double gemm_gflops(DType dtype) {
  double best = 0;
  for (std::int64_t s : {256, 512, 1024}) {
    const Tensor a = random::uniform(random::Key(1), Shape{s, s}, dtype);
    const Tensor b = random::uniform(random::Key(2), Shape{s, s}, dtype);
    best = std::max(best, 2.0 * double(s * s * s) / bench::best_seconds([&] { prim::matmul(a, b); }) / 1e9);
  }
  return best;
}

// Multiply-adds of one example: the forward products, the weight gradients (as many), and the
// input gradients of every layer but the first (whose input is data).
double flops_per_example() {
  double forward = 0, input_grads = 0;
  for (std::size_t l = 0; l + 1 < std::size(kWidths); ++l) {
    forward += 2.0 * double(kWidths[l] * kWidths[l + 1]);
    if (l > 0) input_grads += 2.0 * double(kWidths[l] * kWidths[l + 1]);
  }
  return 2 * forward + input_grads;
}

void run(DType dtype, int threads) {
  omp_set_num_threads(threads);
  const double limit_before = gemm_gflops(dtype);
  nn::Sequential mlp;
  for (std::size_t l = 0; l + 1 < std::size(kWidths); ++l) {
    if (l > 0) mlp.push(nn::Activation(nn::ActivationKind::tanh));
    mlp.push(nn::Linear(kWidths[l], kWidths[l + 1], random::split_at(random::Key(3), l), dtype));
  }
  nn::Parameters params(mlp);
  std::vector<Tensor> grads(params.size());
  const Tensor x = random::uniform(random::Key(4), Shape{kBatch, kWidths[0]}, dtype);
  auto step = [&] {
    nn::value_and_grad(
        params, [&] { return sum(square(mlp(x))); }, grads);
  };
  const double s = bench::best_seconds(step);
  const double forward = bench::best_seconds([&] { mlp(x); });
  // The machine is shared: the limit is the best of a measurement before and one after.
  const double limit = std::max(limit_before, gemm_gflops(dtype));
  const double gflops = flops_per_example() * double(kBatch) / s / 1e9;
  std::printf("%-4s %3d %10.0f %12.3f %12.3f %9.1f %9.1f %6.2f\n", dtype == DType::f32 ? "f32" : "f64", threads,
              double(kBatch) / s, s * 1e3, forward * 1e3, gflops, limit, gflops / limit);
}

}  // namespace

int main() {
  std::printf("MLP 784-200-200-50 tanh, batch %lld, loss sum(y^2); %.0f FLOP per example forward+backward\n",
              static_cast<long long>(kBatch), flops_per_example());
  std::printf("%-4s %3s %10s %12s %12s %9s %9s %6s\n", "type", "thr", "examples/s", "fwd+bwd ms", "fwd ms", "GFLOP/s",
              "gemm lim", "ratio");
  for (DType dtype : {DType::f64, DType::f32})
    for (int threads : {1, 2}) run(dtype, threads);
}
