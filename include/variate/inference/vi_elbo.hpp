#pragma once
// Monte Carlo estimates of the evidence lower bound (ELBO) of a model under a guide, the
// variational program q(z) (layer 7). Both are ordinary programs: the guide creates one random
// variable for each latent site of the model, under the same name, with ordinary control flow;
// its parameters are tensors it captures (nn::Parameters), so that nn::value_and_grad over the
// estimate's `surrogate` gives a gradient estimate for them.
//
//   auto guide = [&] { Normal(loc, exp(log_scale), "z"); };
//   inference::ElboEstimate e = inference::elbo(model, guide, key, {.particles = 8});
//   e.value, e.standard_error;                       // the ELBO's Monte Carlo estimate
//   nn::value_and_grad(params, [&] { return -inference::elbo(model, guide, key).surrogate; }, g);
//
// Each particle runs the guide under Seed(fold_in(key, particle)) and the model with the guide's
// values substituted: its log weight is w = log p(x, z) - log q(z). A continuous guide site is drawn
// pathwise (its draw is differentiable in the guide's parameters); a discrete one (Bernoulli,
// Categorical, ...) gets the score-function (REINFORCE) term log q(z) * (w - b), with the
// leave-one-out baseline b, the mean of the other particles' weights (Kool et al. 2019, "Buy 4
// REINFORCE samples, get a baseline for free"), which keeps the gradient unbiased.
#include "variate/tracing/program.hpp"

namespace variate::inference {

/// How the evidence lower bound is estimated: particles, analytic KL terms, batch dimensions.
struct ElboOptions {
  /// Particles averaged over (N); the leave-one-out baseline needs N >= 2 to reduce variance (with
  /// N = 1 the baseline is 0).
  int particles = 1;
  /// Where a guide site and its model site have a closed-form KL (dist::try_kl_divergence, same
  /// shapes, no sample shape), use E_q[log p(x | z)] - KL(q || p) for that site instead of the Monte
  /// Carlo log p(z) - log q(z): the same bound, with lower variance. The model site's distribution
  /// is taken as traced, so a prior whose parameters depend on other latents gets the KL given them.
  bool analytic_kl = false;
  /// The number of leading dims of every site's log density (guide and model) that index
  /// independent data points and the latents local to them: a minibatch of a VAE, x (batch,
  /// pixels) with z (batch, latent). Each particle's log weight then keeps them, so that
  /// iwae_bound takes log (1/K) sum_k exp(w_k) per data point and sums those (with 0 it would
  /// weigh the whole minibatch as one point, a much looser bound). The ELBO's value is the same
  /// either way. A site with fewer dims is an error naming it.
  int batch_ndims = 0;
};

/// One Monte Carlo estimate of the bound, with its standard error.
struct ElboEstimate {
  /// The bound estimate, a scalar double.
  double value = 0.0;
  /// Its Monte Carlo standard error: the particles' sample standard deviation / sqrt(N) for the
  /// ELBO; 0 with one particle.
  double standard_error = 0.0;
  /// A scalar whose value is `value` and whose gradient in the guide's (and model's) parameters is
  /// an unbiased estimate of the bound's gradient (pathwise plus score-function terms).
  Tensor surrogate;
  /// Each particle's log weight log p(x, z) - log q(z), (N), or (N, batch...) with batch_ndims,
  /// without gradient.
  Tensor log_weights;
  /// With batch_ndims > 0, the bound of each data point (batch...), without gradient; they sum to
  /// `value`. Undefined otherwise.
  Tensor pointwise;
};

/// The ELBO E_q[log p(x, z) - log q(z)], averaged over options.particles particles. Every latent
/// site of the model must be a site of the guide (else an error naming it), and every guide site a
/// site of the model; the model's data come from Condition tracers inside `model`.
ElboEstimate elbo(const tracing::Program& model, const tracing::Program& guide, random::Key key,
                  const ElboOptions& options = {});

/// The importance-weighted bound (Burda et al. 2016, IWAE) with K = options.particles:
/// log (1/K) sum_k exp(w_k), which is >= the ELBO in expectation and tends to log p(x) as K grows.
/// `standard_error` is 0 (one estimate); average independent calls for one. The guide must be
/// reparameterizable (no discrete site), else an error naming the site.
ElboEstimate iwae_bound(const tracing::Program& model, const tracing::Program& guide, random::Key key,
                        const ElboOptions& options = {});

}  // namespace variate::inference
