#pragma once
// The VAE as two programs, in Edward2's style: the model draws z and the pixels given z, with the
// pixels conditioned on a minibatch; the guide (networks.hpp, Posterior::guide) draws z given the
// pixels. Training maximizes a bound on log p(x) over both networks' parameters.
#include "networks.hpp"
#include "variate/inference/vi_elbo.hpp"

namespace variate::cli::vae {

/// The generative model for the minibatch x (batch, pixels) of 0/1 pixels:
///   z ~ Normal(0, I) (batch, latent),  x ~ Bernoulli(logits = decoder(z)), x observed.
tracing::Program model_program(const Decoder& decoder, const Tensor& x);

enum class BoundKind { elbo, iwae };

struct Bound {
  BoundKind kind = BoundKind::elbo;
  /// Particles averaged over (the ELBO) or importance-weighted (IWAE's K).
  int particles = 1;
};

/// The bound of the minibatch x, per image (ElboEstimate::pointwise) and summed (surrogate, value):
/// the ELBO with the KL of a Gaussian posterior to the prior in closed form (the same bound,
/// lower variance), or the importance-weighted bound with K particles per image.
inference::ElboEstimate minibatch_bound(const Vae& vae, const Tensor& x, const Bound& bound, random::Key key);

}  // namespace variate::cli::vae
