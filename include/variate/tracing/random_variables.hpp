#pragma once
// Random-variable constructors for every family, read like Edward2: each creates a distribution
// and a site in one call.
//
//   auto mu = variate::Normal(0.0, 10.0, "mu");
//   auto y = variate::Bernoulli(Logits{matmul(x, w)}, "y");
//   auto counts = variate::Poisson(3.0, "counts", {100});   // 100 draws
//
// Families parameterized by probabilities or logits take Probs{...} or Logits{...}, so the call
// says which one it is. `name` may be empty (a name is generated); `sample_shape` draws that many
// independent copies of the distribution.
#include <optional>
#include <string>

#include "variate/distributions/bijector.hpp"
#include "variate/distributions/kernels.hpp"
#include "variate/tracing/random_variable.hpp"

namespace variate {

/// Marks a tensor as probabilities where a family takes probabilities or logits: Bernoulli(Probs{p}).
struct Probs {
  Tensor value;
};
/// Marks a tensor as logits where a family takes probabilities or logits: Bernoulli(Logits{eta}).
struct Logits {
  Tensor value;
};

// Continuous.
RandomVariable Normal(Tensor loc, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable HalfNormal(Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable LogNormal(Tensor loc, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable StudentT(Tensor df, Tensor loc, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable Cauchy(Tensor loc, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable HalfCauchy(Tensor loc, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable Laplace(Tensor loc, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable Logistic(Tensor loc, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable Exponential(Tensor rate, std::string name = "", Shape sample_shape = {});
RandomVariable Gamma(Tensor concentration, Tensor rate, std::string name = "", Shape sample_shape = {});
RandomVariable InverseGamma(Tensor concentration, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable Beta(Tensor concentration1, Tensor concentration0, std::string name = "", Shape sample_shape = {});
RandomVariable Uniform(Tensor low, Tensor high, std::string name = "", Shape sample_shape = {});
RandomVariable Chi2(Tensor df, std::string name = "", Shape sample_shape = {});
RandomVariable Weibull(Tensor concentration, Tensor scale, std::string name = "", Shape sample_shape = {});

// Discrete.
RandomVariable Bernoulli(Probs probs, std::string name = "", Shape sample_shape = {});
RandomVariable Bernoulli(Logits logits, std::string name = "", Shape sample_shape = {});
RandomVariable Binomial(Tensor total_count, Probs probs, std::string name = "", Shape sample_shape = {});
RandomVariable Binomial(Tensor total_count, Logits logits, std::string name = "", Shape sample_shape = {});
RandomVariable Categorical(Probs probs, std::string name = "", Shape sample_shape = {});
RandomVariable Categorical(Logits logits, std::string name = "", Shape sample_shape = {});
RandomVariable Poisson(Tensor rate, std::string name = "", Shape sample_shape = {});
RandomVariable NegativeBinomial(Tensor total_count, Probs probs, std::string name = "", Shape sample_shape = {});
RandomVariable NegativeBinomial(Tensor total_count, Logits logits, std::string name = "", Shape sample_shape = {});
RandomVariable Geometric(Probs probs, std::string name = "", Shape sample_shape = {});
RandomVariable Geometric(Logits logits, std::string name = "", Shape sample_shape = {});
/// Labels y (N) of logistic regression, y_i ~ Bernoulli(logits = x_i . w + alpha), in one fused pass
/// over the data x (N, D); w may be (D) or (chains, D) with alpha () or (chains).
RandomVariable BernoulliLogitGLM(Tensor x, Tensor w, Tensor alpha, std::string name = "");
/// Labels y (N) of softmax regression, y_i ~ Categorical(logits = x_i w + b), in one fused pass over
/// the data x (N, D); w may be (D, K) or (chains, D, K) with b (K) or (chains, K).
RandomVariable CategoricalLogitGLM(Tensor x, Tensor w, Tensor b, std::string name = "");
/// Responses y (N) of linear regression, y_i ~ Normal(x_i . w + alpha, sigma), in one fused pass over
/// the data x (N, D); w may be (D) or (chains, D) with alpha and sigma () or (chains).
RandomVariable NormalIdGLM(Tensor x, Tensor w, Tensor alpha, Tensor sigma, std::string name = "");

// Multivariate.
RandomVariable Dirichlet(Tensor concentration, std::string name = "", Shape sample_shape = {});
RandomVariable Multinomial(Tensor total_count, Probs probs, std::string name = "", Shape sample_shape = {});
RandomVariable Multinomial(Tensor total_count, Logits logits, std::string name = "", Shape sample_shape = {});
/// MultivariateNormal with a lower-triangular scale (Cholesky factor of the covariance); see
/// dist::MultivariateNormal for the covariance and diagonal forms.
RandomVariable MultivariateNormalTriL(Tensor loc, Tensor scale_tril, std::string name = "", Shape sample_shape = {});
RandomVariable MultivariateNormalFullCovariance(Tensor loc, Tensor covariance_matrix, std::string name = "",
                                                Shape sample_shape = {});
RandomVariable MultivariateNormalDiag(Tensor loc, Tensor scale_diag, std::string name = "", Shape sample_shape = {});
RandomVariable LKJCholesky(std::int64_t dimension, Tensor concentration, std::string name = "",
                           Shape sample_shape = {});

// Issue 20: more families (see each dist:: class for its density and conventions).
RandomVariable Gumbel(Tensor loc, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable VonMises(Tensor loc, Tensor concentration, std::string name = "", Shape sample_shape = {});
RandomVariable Pareto(Tensor concentration, Tensor scale, std::string name = "", Shape sample_shape = {});
RandomVariable BetaBinomial(Tensor total_count, Tensor concentration1, Tensor concentration0, std::string name = "",
                            Shape sample_shape = {});
/// 0 with probability `gate`, else a Poisson(rate) (or NegativeBinomial) count: dist::ZeroInflated.
RandomVariable ZeroInflatedPoisson(Tensor rate, Probs gate, std::string name = "", Shape sample_shape = {});
RandomVariable ZeroInflatedPoisson(Tensor rate, Logits gate, std::string name = "", Shape sample_shape = {});
RandomVariable ZeroInflatedNegativeBinomial(Tensor total_count, Probs probs, Probs gate, std::string name = "",
                                            Shape sample_shape = {});
RandomVariable ZeroInflatedNegativeBinomial(Tensor total_count, Probs probs, Logits gate, std::string name = "",
                                            Shape sample_shape = {});
RandomVariable ZeroInflatedNegativeBinomial(Tensor total_count, Logits logits, Probs gate, std::string name = "",
                                            Shape sample_shape = {});
RandomVariable ZeroInflatedNegativeBinomial(Tensor total_count, Logits logits, Logits gate, std::string name = "",
                                            Shape sample_shape = {});
/// Categories 0..K-1 from K - 1 increasing cutpoints (Stan's ordered_logistic / ordered_probit,
/// whose categories are 1..K).
RandomVariable OrderedLogistic(Tensor predictor, Tensor cutpoints, std::string name = "", Shape sample_shape = {});
RandomVariable OrderedProbit(Tensor predictor, Tensor cutpoints, std::string name = "", Shape sample_shape = {});
/// A path of `num_steps` values (NumPyro's GaussianRandomWalk: x_1 ~ Normal(0, scale)).
RandomVariable GaussianRandomWalk(Tensor scale, std::int64_t num_steps, std::string name = "", Shape sample_shape = {});
/// `base` (continuous, scalar events) restricted to (low, high); pass std::nullopt for a missing
/// bound: Truncated(std::make_shared<dist::Normal>(mu, 1.0), Tensor(0.0), std::nullopt, "y").
RandomVariable Truncated(DistributionPtr base, std::optional<Tensor> low, std::optional<Tensor> high,
                         std::string name = "", Shape sample_shape = {});
// Matrices and Gaussian processes (issue 20).
/// LKJ over d x d correlation matrices (latent: the CorrMatrix bijector, Stan's corr_matrix).
RandomVariable LKJ(std::int64_t dimension, Tensor concentration, std::string name = "", Shape sample_shape = {});
/// Wishart and inverse Wishart over positive-definite matrices (latent: Stan's cov_matrix
/// transform), and their Cholesky forms over lower Cholesky factors, given the scale's factor
/// (Stan's wishart_cholesky and inv_wishart_cholesky).
RandomVariable Wishart(Tensor df, Tensor scale_matrix, std::string name = "", Shape sample_shape = {});
RandomVariable WishartCholesky(Tensor df, Tensor scale_tril, std::string name = "", Shape sample_shape = {});
RandomVariable InverseWishart(Tensor df, Tensor scale_matrix, std::string name = "", Shape sample_shape = {});
RandomVariable InverseWishartCholesky(Tensor df, Tensor scale_tril, std::string name = "", Shape sample_shape = {});
/// The values of a Gaussian process at index_points (N) or (..., N, F): MultivariateNormal(mean,
/// K(X, X) + (observation_noise_variance + jitter) I), jitter 1e-6; `mean` undefined ({}) is zero.
///   auto f = variate::GaussianProcess(dist::ExponentiatedQuadratic(amplitude, length_scale), x, noise, {}, "f");
RandomVariable GaussianProcess(const dist::Kernel& kernel, Tensor index_points, Tensor observation_noise_variance,
                               Tensor mean, std::string name = "", Shape sample_shape = {});

// Wrappers.
/// A quantity the program computes, recorded as a site (Stan's generated quantities, NumPyro's
/// deterministic): it has no density term and is not a parameter; samplers report its value per
/// draw. Returns the value.
RandomVariable Deterministic(Tensor value, std::string name = "");

/// Adds `log_weight` to the model's log density as it is (Stan's `target += log_weight`, NumPyro's
/// factor), as an observed site named `name`.
void factor(std::string name, Tensor log_weight);

/// A parameter with a flat, improper prior on a continuous `support` (see dist::ImproperUniform): Stan's parameter
/// declared without a sampling statement. `shape` is the value's shape, the support's event axes last.
///   auto mu = variate::ImproperUniform(Constraint::real(), "mu");
///   auto sigma = variate::ImproperUniform(Constraint::positive(), "sigma", {3});
///   auto c = variate::ImproperUniform(Constraint::ordered(), "c", {4});       // ordered[4] c;
///   auto u = variate::ImproperUniform(Constraint::unit_vector(), "u", {3});   // uniform on the sphere
RandomVariable ImproperUniform(Constraint support, std::string name = "", Shape shape = {}, DType dtype = DType::f64);

// Transforms: which coordinates inference samples a site in. Any distribution makes a site with
// RandomVariable(distribution, name, sample_shape) (Edward2's ed.RandomVariable); these wrap it.

/// A site with `base`'s density and draws, sampled through `bijector` (which must map R^n onto the
/// base's support) instead of its support's default bijector; see dist::Reparameterized.
///   auto sigma = variate::Reparameterized(std::make_shared<dist::HalfNormal>(1.0),
///                                         std::make_shared<dist::Softplus>(), "sigma");
RandomVariable Reparameterized(DistributionPtr base, BijectorPtr bijector, std::string name = "",
                               Shape sample_shape = {});

/// Stan's `real<offset=offset, multiplier=multiplier> theta; theta ~ base;`: the site has `base`'s
/// density and draws, and inference samples (theta - offset) / multiplier (dist::OffsetMultiplier),
/// the non-centered parameterization, while the model stays centered. Eight schools:
///   auto mu = variate::Normal(0.0, 5.0, "mu");
///   auto tau = variate::HalfCauchy(0.0, 5.0, "tau");
///   auto theta = variate::WithOffsetMultiplier(std::make_shared<dist::Normal>(mu, tau), mu, tau, "theta", {8});
///   variate::Normal(theta, sigma, "y");   // observed
RandomVariable WithOffsetMultiplier(DistributionPtr base, Tensor offset, Tensor multiplier, std::string name = "",
                                    Shape sample_shape = {});

/// `base` restricted to `support` (dist::Restricted): Stan's `ordered[K] c; c ~ normal(0, 5);`
///   auto c = variate::Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(0.0, 5.0), Shape{4}),
///                                Constraint::ordered(), "c");
RandomVariable Restricted(DistributionPtr base, Constraint support, std::string name = "", Shape sample_shape = {});

}  // namespace variate
