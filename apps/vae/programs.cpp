#include "programs.hpp"

#include "variate/tracing/random_variables.hpp"

namespace variate::cli::vae {

tracing::Program model_program(const Decoder& decoder, const Tensor& x) {
  return [&decoder, x] {
    const Shape shape{x.dim(0), decoder.latent()};
    auto z = Normal(Tensor::zeros(shape, x.dtype()), Tensor::scalar(1.0, x.dtype()), "z");
    tracing::Condition data({{"x", x}});
    Bernoulli(Logits{decoder.logits(z)}, "x");
  };
}

inference::ElboEstimate minibatch_bound(const Vae& vae, const Tensor& x, const Bound& bound, random::Key key) {
  const tracing::Program model = model_program(vae.decoder, x);
  const tracing::Program guide = vae.encoder->guide(x);
  if (bound.kind == BoundKind::iwae)
    return inference::iwae_bound(model, guide, key, {.particles = bound.particles, .batch_ndims = 1});
  return inference::elbo(model, guide, key, {.particles = bound.particles, .analytic_kl = true, .batch_ndims = 1});
}

}  // namespace variate::cli::vae
