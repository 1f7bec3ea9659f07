// A small VAE, written as a model program and a guide program over nn layers, trained with Adam on
// the ELBO (per data point, analytic KL) for a few hundred steps on the embedded 8 x 8 digits,
// dynamically binarized: its bound on held-out images rises by far more than its Monte Carlo error.
// The check is on the paired per-image differences (after - before) on the same 0/1 images; its
// z-score threshold of 4 has a false-failure rate below 1e-4.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "support/test_seed.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/data/digits.hpp"
#include "variate/inference/vi_elbo.hpp"
#include "variate/nn/nn.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

constexpr std::int64_t kHidden = 64, kLatent = 8;

struct SmallVae : nn::Module {
  nn::Linear enc{64, kHidden, random::Key(1)}, loc{kHidden, kLatent, random::Key(2)},
      log_scale{kHidden, kLatent, random::Key(3)}, dec{kLatent, kHidden, random::Key(4)},
      out{kHidden, 64, random::Key(5)};

  void visit_parameters(const nn::ParameterVisitor& visit) override {
    nn::visit_child("enc", enc, visit);
    nn::visit_child("loc", loc, visit);
    nn::visit_child("log_scale", log_scale, visit);
    nn::visit_child("dec", dec, visit);
    nn::visit_child("out", out, visit);
  }
  std::string describe() const override { return "SmallVae"; }

  ElboEstimate bound(const Tensor& x, random::Key key, int particles) const {
    auto model = [&] {
      auto z = Normal(Tensor::zeros(Shape{x.dim(0), kLatent}), 1.0, "z");
      tracing::Condition data({{"x", x}});
      Bernoulli(Logits{out(tanh(dec(z)))}, "x");
    };
    const Tensor h = tanh(enc(x));
    const Tensor q_loc = loc(h), q_scale = exp(log_scale(h));
    auto guide = [&] { Normal(q_loc, q_scale, "z"); };
    return elbo(model, guide, key, {.particles = particles, .analytic_kl = true, .batch_ndims = 1});
  }
};

Tensor binarize(const Tensor& gray, random::Key key) {
  return cast(lt(random::uniform(key, gray.shape()), gray), DType::f64);
}

TEST(VaeTraining, AFewHundredAdamStepsRaiseTheHeldOutBound) {
  const Tensor pixels = data::digits().features / 16.0;
  const Tensor train = slice(pixels, 0, 0, 1500);
  const Tensor held_out = binarize(slice(pixels, 0, 1500, pixels.dim(0)), random::Key(10));
  SmallVae vae;
  nn::Parameters params(vae);
  nn::Adam adam(params, 3e-3);
  std::vector<Tensor> grads(params.size());

  const random::Key eval_key(11);
  const Tensor before = vae.bound(held_out, eval_key, 20).pointwise;
  const std::int64_t batch = 50;
  for (std::int64_t step = 0; step < 300; ++step) {
    const std::int64_t first = (step * batch) % 1500;
    const Tensor x = binarize(slice(train, 0, first, first + batch),
                              random::fold_in(random::Key(variate::testing::test_seed(12)), step));
    nn::value_and_grad(
        params,
        [&] {
          return -vae.bound(x, random::fold_in(random::Key(variate::testing::test_seed(13)), step), 1).surrogate /
                 double(batch);
        },
        grads);
    adam.step(grads);
  }
  const Tensor after = vae.bound(held_out, eval_key, 20).pointwise;

  const std::vector<double> gain = (after - before).to_vector<double>();
  double total = 0, squares = 0;
  for (double g : gain) total += g;
  const double n = double(gain.size()), mean = total / n;
  for (double g : gain) squares += (g - mean) * (g - mean);
  const double error = std::sqrt(squares / (n - 1) / n);
  std::printf("held-out bound %.2f -> %.2f nats per image (gain %.2f +- %.2f)\n", sum(before).item() / n,
              sum(after).item() / n, mean, error);
  EXPECT_GT(mean, 4.0 * error) << "held-out bound " << sum(before).item() / n << " -> " << sum(after).item() / n
                               << " nats per image; gain " << mean << " +- " << error;
  // Far from a coin per pixel (64 log 2 = 44.4 nats) after training.
  EXPECT_GT(sum(after).item() / n, -40.0);
}

}  // namespace
}  // namespace variate::inference
