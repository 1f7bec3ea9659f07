// One line per family: build the distribution, then the site.
#include "variate/tracing/random_variables.hpp"

#include <memory>

#include "variate/distributions/normal.hpp"
#include "variate/distributions/half_normal.hpp"
#include "variate/distributions/log_normal.hpp"
#include "variate/distributions/student_t.hpp"
#include "variate/distributions/cauchy.hpp"
#include "variate/distributions/half_cauchy.hpp"
#include "variate/distributions/laplace.hpp"
#include "variate/distributions/logistic.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/gamma.hpp"
#include "variate/distributions/inverse_gamma.hpp"
#include "variate/distributions/beta.hpp"
#include "variate/distributions/uniform.hpp"
#include "variate/distributions/chi2.hpp"
#include "variate/distributions/weibull.hpp"
#include "variate/distributions/poisson.hpp"
#include "variate/distributions/dirichlet.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
#include "variate/distributions/binomial.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/distributions/categorical_logit_glm.hpp"
#include "variate/distributions/negative_binomial.hpp"
#include "variate/distributions/geometric.hpp"
#include "variate/distributions/multinomial.hpp"
#include "variate/distributions/multivariate_normal.hpp"
#include "variate/distributions/lkj_cholesky.hpp"
#include "variate/distributions/deterministic.hpp"

namespace variate {
namespace {

template <class D>
RandomVariable site(D&& d, std::string name, Shape sample_shape) {
  return RandomVariable(std::make_shared<std::decay_t<D>>(std::forward<D>(d)), std::move(name), sample_shape);
}

}  // namespace

RandomVariable Normal(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::Normal(std::move(loc), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable HalfNormal(Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::HalfNormal(std::move(scale)), std::move(name), sample_shape);
}
RandomVariable LogNormal(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::LogNormal(std::move(loc), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable StudentT(Tensor df, Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::StudentT(std::move(df), std::move(loc), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable Cauchy(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::Cauchy(std::move(loc), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable HalfCauchy(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::HalfCauchy(std::move(loc), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable Laplace(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::Laplace(std::move(loc), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable Logistic(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::Logistic(std::move(loc), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable Exponential(Tensor rate, std::string name, Shape sample_shape) {
  return site(dist::Exponential(std::move(rate)), std::move(name), sample_shape);
}
RandomVariable Gamma(Tensor concentration, Tensor rate, std::string name, Shape sample_shape) {
  return site(dist::Gamma(std::move(concentration), std::move(rate)), std::move(name), sample_shape);
}
RandomVariable InverseGamma(Tensor concentration, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::InverseGamma(std::move(concentration), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable Beta(Tensor concentration1, Tensor concentration0, std::string name, Shape sample_shape) {
  return site(dist::Beta(std::move(concentration1), std::move(concentration0)), std::move(name), sample_shape);
}
RandomVariable Uniform(Tensor low, Tensor high, std::string name, Shape sample_shape) {
  return site(dist::Uniform(std::move(low), std::move(high)), std::move(name), sample_shape);
}
RandomVariable Chi2(Tensor df, std::string name, Shape sample_shape) {
  return site(dist::Chi2(std::move(df)), std::move(name), sample_shape);
}
RandomVariable Weibull(Tensor concentration, Tensor scale, std::string name, Shape sample_shape) {
  return site(dist::Weibull(std::move(concentration), std::move(scale)), std::move(name), sample_shape);
}
RandomVariable Poisson(Tensor rate, std::string name, Shape sample_shape) {
  return site(dist::Poisson(std::move(rate)), std::move(name), sample_shape);
}
RandomVariable Dirichlet(Tensor concentration, std::string name, Shape sample_shape) {
  return site(dist::Dirichlet(std::move(concentration)), std::move(name), sample_shape);
}
RandomVariable Bernoulli(Probs probs, std::string name, Shape sample_shape) {
  return site(dist::Bernoulli::from_probs(std::move(probs.value)), std::move(name), sample_shape);
}
RandomVariable Bernoulli(Logits logits, std::string name, Shape sample_shape) {
  return site(dist::Bernoulli::from_logits(std::move(logits.value)), std::move(name), sample_shape);
}
RandomVariable BernoulliLogitGLM(Tensor x, Tensor w, Tensor alpha, std::string name) {
  return site(dist::BernoulliLogitGLM(std::move(x), std::move(w), std::move(alpha)), std::move(name), {});
}
RandomVariable CategoricalLogitGLM(Tensor x, Tensor w, Tensor b, std::string name) {
  return site(dist::CategoricalLogitGLM(std::move(x), std::move(w), std::move(b)), std::move(name), {});
}
RandomVariable Binomial(Tensor total_count, Probs probs, std::string name, Shape sample_shape) {
  return site(dist::Binomial::from_probs(std::move(total_count), std::move(probs.value)), std::move(name), sample_shape);
}
RandomVariable Binomial(Tensor total_count, Logits logits, std::string name, Shape sample_shape) {
  return site(dist::Binomial::from_logits(std::move(total_count), std::move(logits.value)), std::move(name), sample_shape);
}
RandomVariable Categorical(Probs probs, std::string name, Shape sample_shape) {
  return site(dist::Categorical::from_probs(std::move(probs.value)), std::move(name), sample_shape);
}
RandomVariable Categorical(Logits logits, std::string name, Shape sample_shape) {
  return site(dist::Categorical::from_logits(std::move(logits.value)), std::move(name), sample_shape);
}
RandomVariable NegativeBinomial(Tensor total_count, Probs probs, std::string name, Shape sample_shape) {
  return site(dist::NegativeBinomial::from_probs(std::move(total_count), std::move(probs.value)), std::move(name), sample_shape);
}
RandomVariable NegativeBinomial(Tensor total_count, Logits logits, std::string name, Shape sample_shape) {
  return site(dist::NegativeBinomial::from_logits(std::move(total_count), std::move(logits.value)), std::move(name), sample_shape);
}
RandomVariable Geometric(Probs probs, std::string name, Shape sample_shape) {
  return site(dist::Geometric::from_probs(std::move(probs.value)), std::move(name), sample_shape);
}
RandomVariable Geometric(Logits logits, std::string name, Shape sample_shape) {
  return site(dist::Geometric::from_logits(std::move(logits.value)), std::move(name), sample_shape);
}
RandomVariable Multinomial(Tensor total_count, Probs probs, std::string name, Shape sample_shape) {
  return site(dist::Multinomial::from_probs(std::move(total_count), std::move(probs.value)), std::move(name), sample_shape);
}
RandomVariable Multinomial(Tensor total_count, Logits logits, std::string name, Shape sample_shape) {
  return site(dist::Multinomial::from_logits(std::move(total_count), std::move(logits.value)), std::move(name), sample_shape);
}
RandomVariable MultivariateNormalTriL(Tensor loc, Tensor scale_tril, std::string name, Shape sample_shape) {
  return site(dist::MultivariateNormal::from_scale_tril(std::move(loc), std::move(scale_tril)), std::move(name),
              sample_shape);
}
RandomVariable MultivariateNormalFullCovariance(Tensor loc, Tensor covariance_matrix, std::string name,
                                                Shape sample_shape) {
  return site(dist::MultivariateNormal::from_covariance(std::move(loc), std::move(covariance_matrix)), std::move(name),
              sample_shape);
}
RandomVariable MultivariateNormalDiag(Tensor loc, Tensor scale_diag, std::string name, Shape sample_shape) {
  return site(dist::MultivariateNormal::from_scale_diag(std::move(loc), std::move(scale_diag)), std::move(name),
              sample_shape);
}
RandomVariable LKJCholesky(std::int64_t dimension, Tensor concentration, std::string name, Shape sample_shape) {
  return site(dist::LKJCholesky(dimension, std::move(concentration)), std::move(name), sample_shape);
}
RandomVariable Deterministic(Tensor loc, std::string name) {
  return site(dist::Deterministic(std::move(loc)), std::move(name), {});
}

}  // namespace variate
