// One training step of the MNIST VAE (the IWAE paper's networks: encoder 784-200-200 tanh to a
// 50-d Gaussian, decoder 50-200-200-784 Bernoulli logits; batch 100; the ELBO with analytic KL
// through the model and guide programs; Adam), in f64 and f32, and its parts, so that the time of a
// step can be split into the networks' products, the rest of the computation (tanh, the Bernoulli
// log density, sampling) and the bookkeeping (tracing, the tape, Adam). Times are the best of
// repeats, so a loaded machine disturbs them less.
//
//   build/bench/vae_training_step          (OMP_NUM_THREADS sets the threads)
//   perf record -g build/bench/vae_training_step f64     (full steps only, for 10 s)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "timing.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/inference/vi_elbo.hpp"
#include "variate/nn/nn.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace {

using namespace variate;

constexpr std::int64_t kBatch = 100;

nn::Sequential mlp(std::int64_t in, std::int64_t out, random::Key key, DType dtype) {
  nn::Sequential net;
  net.push(nn::Linear(in, 200, random::split_at(key, 0), dtype));
  net.push(nn::Activation(nn::ActivationKind::tanh));
  net.push(nn::Linear(200, 200, random::split_at(key, 1), dtype));
  net.push(nn::Activation(nn::ActivationKind::tanh));
  net.push(nn::Linear(200, out, random::split_at(key, 2), dtype));
  return net;
}

struct Vae : nn::Module {
  explicit Vae(DType dtype)
      : dtype(dtype), encoder(mlp(784, 100, random::Key(1), dtype)), decoder(mlp(50, 784, random::Key(2), dtype)) {}
  DType dtype;
  nn::Sequential encoder, decoder;
  void visit_parameters(const nn::ParameterVisitor& visit) override {
    nn::visit_child("encoder", encoder, visit);
    nn::visit_child("decoder", decoder, visit);
  }
  std::string describe() const override { return "Vae"; }

  Tensor elbo(const Tensor& x, random::Key key) const {
    auto model = [&] {
      auto z = Normal(Tensor::zeros(Shape{kBatch, 50}, dtype), Tensor::scalar(1.0, dtype), "z");
      tracing::Condition data({{"x", x}});
      Bernoulli(Logits{decoder(z)}, "x");
    };
    const Tensor h = encoder(x);
    const Tensor loc = slice(h, 1, 0, 50), scale = exp(slice(h, 1, 50, 100));
    auto guide = [&] { Normal(loc, scale, "z"); };
    return inference::elbo(model, guide, key, {.analytic_kl = true, .batch_ndims = 1}).surrogate;
  }
  // The same computation without programs: the networks, a reparameterized draw, the Bernoulli
  // log density and the Gaussian KL written out.
  Tensor elbo_by_hand(const Tensor& x, random::Key key) const {
    const Tensor h = encoder(x);
    const Tensor loc = slice(h, 1, 0, 50), log_scale = slice(h, 1, 50, 100);
    const Tensor z = loc + exp(log_scale) * random::normal(key, Shape{kBatch, 50}, dtype);
    const Tensor logits = decoder(z);
    const Tensor log_lik = sum(x * logits - softplus(logits));
    const Tensor kl = 0.5 * sum(square(loc) + exp(2.0 * log_scale) - 1.0 - 2.0 * log_scale);
    return log_lik - kl;
  }
};

// Full steps only, for `perf record`: about `seconds` of them.
void steps_only(DType dtype, double seconds) {
  Vae vae(dtype);
  nn::Parameters params(vae);
  nn::Adam adam(params, 1e-3, {.beta2 = 0.999, .eps = 1e-4});
  std::vector<Tensor> grads(params.size());
  const Tensor gray = random::uniform(random::Key(3), Shape{kBatch, 784}, dtype);
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t step = 0; bench::seconds_since(start) < seconds; ++step) {
    const random::Key key = random::fold_in(random::Key(5), step);
    const Tensor xb = cast(lt(random::uniform(random::split_at(key, 0), gray.shape(), dtype), gray), dtype);
    nn::value_and_grad(
        params, [&] { return -vae.elbo(xb, random::split_at(key, 1)) / double(kBatch); }, grads);
    adam.step(grads);
  }
}

void run(DType dtype) {
  Vae vae(dtype);
  nn::Parameters params(vae);
  nn::Adam adam(params, 1e-3, {.beta2 = 0.999, .eps = 1e-4});
  std::vector<Tensor> grads(params.size());
  const Tensor gray = random::uniform(random::Key(3), Shape{kBatch, 784}, dtype);
  const Tensor x = cast(lt(random::uniform(random::Key(4), gray.shape(), dtype), gray), dtype);
  std::uint64_t step = 0;

  const double full = bench::best_seconds([&] {
    const random::Key key = random::fold_in(random::Key(5), step++);
    const Tensor xb = cast(lt(random::uniform(random::split_at(key, 0), gray.shape(), dtype), gray), dtype);
    nn::value_and_grad(
        params, [&] { return -vae.elbo(xb, random::split_at(key, 1)) / double(kBatch); }, grads);
    adam.step(grads);
  });
  const double grad = bench::best_seconds([&] {
    nn::value_and_grad(
        params, [&] { return -vae.elbo(x, random::Key(step++)) / double(kBatch); }, grads);
  });
  const double grad_by_hand = bench::best_seconds([&] {
    nn::value_and_grad(
        params, [&] { return -vae.elbo_by_hand(x, random::Key(step++)) / double(kBatch); }, grads);
  });
  const double forward = bench::best_seconds([&] { vae.elbo(x, random::Key(step++)); });
  const double networks_forward = bench::best_seconds([&] {
    const Tensor h = vae.encoder(x);
    vae.decoder(slice(h, 1, 0, 50));
  });
  const double adam_step = bench::best_seconds([&] { adam.step(grads); });
  // Multiply-adds of the products: forward, weight gradients, and input gradients (all layers but
  // the encoder's first, whose input is data).
  const double macs_forward = 784.0 * 200 + 200 * 200 + 200 * 100 + 50 * 200 + 200 * 200 + 200 * 784;
  const double macs_step = kBatch * (3 * macs_forward - 784.0 * 200);
  const double products = bench::best_seconds([&] {
    const Tensor a = random::uniform(random::Key(6), Shape{kBatch, 784}, dtype);
    const Tensor w = random::uniform(random::Key(7), Shape{200, 784}, dtype);
    prim::matmul(a, w, false, true);
  });
  const double gemm_rate = 2.0 * kBatch * 784 * 200 / products / 1e9;

  std::printf("%s  full step %7.3f ms (%6.0f examples/s)   value_and_grad %7.3f ms   by hand %7.3f ms\n",
              dtype == DType::f32 ? "f32" : "f64", 1e3 * full, kBatch / full, 1e3 * grad, 1e3 * grad_by_hand);
  std::printf("     forward (programs) %7.3f ms   networks' forward %7.3f ms   Adam step %7.3f ms\n", 1e3 * forward,
              1e3 * networks_forward, 1e3 * adam_step);
  std::printf("     products of a step: %.1f MFLOP, %.2f ms at the (100 x 784) x (784 x 200) product's %.1f GFLOP/s\n",
              2 * macs_step / 1e6, 1e3 * 2 * macs_step / (gemm_rate * 1e9), gemm_rate);
}

}  // namespace

int main(int argc, char** argv) {
  // `vae_training_step f64` or `... f32`: only full steps, for 10 s (a profile of one step).
  if (argc > 1) {
    steps_only(std::string(argv[1]) == "f32" ? DType::f32 : DType::f64, 10.0);
    return 0;
  }
  run(DType::f64);
  run(DType::f32);
  return 0;
}
