#pragma once
// Predictive checks and pointwise log-likelihoods from a model's draws (NumPyro's Predictive and
// log_likelihood, Stan's generated quantities for y_rep and log_lik).
//
//   tracing::Values prior = inference::predictive(model, {}, random::Key(1));       // every site
//   tracing::Values y_rep = inference::predictive(model, draw, random::Key(2));     // draw: latent values
//   tracing::Values log_lik = inference::log_likelihood(model, draw);  // per observed site, elementwise
//   Tensor z = inference::infer_discrete(model, draw, random::Key(3));  // the enumerated site
#include "variate/tracing/program.hpp"

namespace variate::inference {

/// One run of `program` with the latent sites set to `latent` (all of them, or none for the prior
/// predictive) and the data of its Condition tracers set aside: every other site, the observed ones
/// included, is drawn with `key`. Returns the value of every site. A site with an improper prior
/// and no given value is an error naming it. An enumerated site is drawn from its prior, as for new
/// data (inference::infer_discrete draws it given the data).
tracing::Values predictive(const tracing::Program& program, const tracing::Values& latent, random::Key key);

/// The log density of each observed site at the latent values `latent`, elementwise (the site's
/// batch shape, not summed; a sharded site's elements on this device): the pointwise
/// log-likelihood that LOO and WAIC need. Not supported for a model with an enumerated site.
tracing::Values log_likelihood(const tracing::Program& program, const tracing::Values& latent);

/// A draw of the program's enumerated site (tracing::Enumerate) from its conditional distribution
/// given the latent values `latent` (NumPyro's infer_discrete, sampling): each element of the site
/// independently, with p(z = k | rest) proportional to the joint at z = k. Throws if the program
/// has no enumerated site.
Tensor infer_discrete(const tracing::Program& program, const tracing::Values& latent, random::Key key);

}  // namespace variate::inference
