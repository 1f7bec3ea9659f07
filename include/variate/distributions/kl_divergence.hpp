#pragma once
#include <optional>

#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// KL(p || q) = E_p[log p(X) - log q(X)] in closed form, batch-shaped (p's and q's batch shapes
/// broadcast), differentiable in both distributions' parameters (TFP's tfd.kl_divergence). Known
/// pairs (each family with itself): Normal, MultivariateNormal, Bernoulli, Categorical, Gamma, Beta,
/// Dirichlet, Exponential, Poisson, Uniform. Any other pair throws naming both families. Where q
/// does not cover p's support (Uniform with p's interval outside q's) the divergence is +inf.
Tensor kl_divergence(const Distribution& p, const Distribution& q);

/// kl_divergence(p, q) where the pair is known, nullopt otherwise (e.g. the analytic-KL ELBO, which
/// falls back to Monte Carlo for the other pairs).
std::optional<Tensor> try_kl_divergence(const Distribution& p, const Distribution& q);

}  // namespace variate::dist
