// A variational autoencoder on MNIST, dynamically binarized (Kingma & Welling 2014; the networks of
// Burda et al. 2016): the model and the guide are ordinary programs of random variables, and Adam
// maximizes the ELBO over both networks' parameters.
//
//   model:  z ~ Normal(0, I) (batch, 50),  x ~ Bernoulli(logits = decoder(z)), x observed
//   guide:  z ~ Normal(loc(x), scale(x)), loc and log scale from the encoder
//
// Usage: example_vae_mnist [MNIST_DIR [EPOCHS [TRAIN_IMAGES]]] (defaults ../shared/data/mnist, 2,
// all 60000). Exits 77 (skipped) without the data, 1 if training did not raise the test bound.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "variate/data/idx.hpp"
#include "variate/inference/vi_elbo.hpp"
#include "variate/nn/nn.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tracing/random_variables.hpp"

using namespace variate;

// Two tanh layers of 200 and a linear head: in -> 200 -> 200 -> out.
nn::Sequential mlp(std::int64_t in, std::int64_t out, random::Key key) {
  nn::Sequential net;
  net.push(nn::Linear(in, 200, random::split_at(key, 0)));
  net.push(nn::Activation(nn::ActivationKind::tanh));
  net.push(nn::Linear(200, 200, random::split_at(key, 1)));
  net.push(nn::Activation(nn::ActivationKind::tanh));
  net.push(nn::Linear(200, out, random::split_at(key, 2)));
  return net;
}

struct Vae : nn::Module {
  nn::Sequential encoder = mlp(784, 2 * 50, random::Key(1));  // loc and log scale of q(z | x)
  nn::Sequential decoder = mlp(50, 784, random::Key(2));      // Bernoulli logits of p(x | z)

  void visit_parameters(const nn::ParameterVisitor& visit) override {
    nn::visit_child("encoder", encoder, visit);
    nn::visit_child("decoder", decoder, visit);
  }
  std::string describe() const override { return "Vae"; }

  // The ELBO of a minibatch of 0/1 images x (batch, 784), summed over the images.
  inference::ElboEstimate elbo(const Tensor& x, random::Key key) const {
    auto model = [&] {
      auto z = Normal(Tensor::zeros(Shape{x.dim(0), 50}), 1.0, "z");
      tracing::Condition data({{"x", x}});
      Bernoulli(Logits{decoder(z)}, "x");
    };
    const Tensor h = encoder(x);
    const Tensor loc = slice(h, 1, 0, 50), scale = exp(slice(h, 1, 50, 100));
    auto guide = [&] { Normal(loc, scale, "z"); };
    return inference::elbo(model, guide, key, {.analytic_kl = true, .batch_ndims = 1});
  }
};

// Each pixel on with probability its gray level: a fresh draw per key.
Tensor binarize(const Tensor& gray, random::Key key) {
  return cast(lt(random::uniform(key, gray.shape()), gray), DType::f64);
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "../shared/data/mnist";
  const std::int64_t epochs = argc > 2 ? std::stoll(argv[2]) : 2, limit = argc > 3 ? std::stoll(argv[3]) : -1;
  if (!std::filesystem::is_directory(dir)) {
    std::printf("MNIST not found in %s: skipped\n", dir.c_str());
    return 77;
  }
  const Tensor train = data::load_mnist(dir, "train", DType::f64, limit).images;
  const Tensor test = binarize(data::load_mnist(dir, "t10k", DType::f64, 1000).images, random::Key(3));

  Vae vae;
  nn::Parameters params(vae);
  nn::Adam adam(params, 1e-3, {.beta2 = 0.999, .eps = 1e-4});
  const double before = vae.elbo(test, random::Key(4)).value / double(test.dim(0));

  nn::TrainOptions options;
  options.epochs = epochs;
  options.batch_size = 100;
  options.progress = &std::cerr;
  nn::train(
      adam, train.dim(0), random::Key(5),
      [&](std::span<const std::int64_t> batch) {
        const random::Key step = random::fold_in(random::Key(6), std::uint64_t(adam.steps_taken()));
        const Tensor rows = Tensor::from(batch, Shape{std::int64_t(batch.size())});
        const Tensor x = binarize(take(train, rows), random::split_at(step, 0));
        return -vae.elbo(x, random::split_at(step, 1)).surrogate / double(batch.size());  // minus the ELBO per image
      },
      options);

  const double after = vae.elbo(test, random::Key(4)).value / double(test.dim(0));
  std::printf("VAE on MNIST, %lld epochs: test ELBO %.2f -> %.2f nats per image\n", static_cast<long long>(epochs),
              before, after);
  return after > before + 10.0 ? 0 : 1;
}
