// One line per family: build the distribution, then the site.
#include "variate/tracing/random_variables.hpp"

#include <memory>

#include "variate/autodiff/tape.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
#include "variate/distributions/beta.hpp"
#include "variate/distributions/beta_binomial.hpp"
#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/binomial.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/distributions/categorical_logit_glm.hpp"
#include "variate/distributions/cauchy.hpp"
#include "variate/distributions/chi2.hpp"
#include "variate/distributions/deterministic.hpp"
#include "variate/distributions/dirichlet.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/factor.hpp"
#include "variate/distributions/gamma.hpp"
#include "variate/distributions/gaussian_process.hpp"
#include "variate/distributions/gaussian_random_walk.hpp"
#include "variate/distributions/geometric.hpp"
#include "variate/distributions/gumbel.hpp"
#include "variate/distributions/half_cauchy.hpp"
#include "variate/distributions/half_normal.hpp"
#include "variate/distributions/improper_uniform.hpp"
#include "variate/distributions/inverse_gamma.hpp"
#include "variate/distributions/inverse_wishart.hpp"
#include "variate/distributions/laplace.hpp"
#include "variate/distributions/lkj.hpp"
#include "variate/distributions/lkj_cholesky.hpp"
#include "variate/distributions/log_normal.hpp"
#include "variate/distributions/logistic.hpp"
#include "variate/distributions/multinomial.hpp"
#include "variate/distributions/multivariate_normal.hpp"
#include "variate/distributions/negative_binomial.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/normal_id_glm.hpp"
#include "variate/distributions/ordered_logistic.hpp"
#include "variate/distributions/ordered_probit.hpp"
#include "variate/distributions/pareto.hpp"
#include "variate/distributions/poisson.hpp"
#include "variate/distributions/reparameterized.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/distributions/student_t.hpp"
#include "variate/distributions/truncated.hpp"
#include "variate/distributions/uniform.hpp"
#include "variate/distributions/von_mises.hpp"
#include "variate/distributions/weibull.hpp"
#include "variate/distributions/wishart.hpp"
#include "variate/distributions/zero_inflated.hpp"

namespace variate {
namespace {

// The distribution is made inside, so that an invalid parameter names the site.
template <class Make>
RandomVariable site(std::string name, Shape sample_shape, Make make) {
  DistributionPtr distribution;
  try {
    auto d = make();
    distribution = std::make_shared<decltype(d)>(std::move(d));
  } catch (const Error& e) {
    tracing::rethrow_naming_site(name.empty() ? std::string_view("(unnamed)") : std::string_view(name), e);
  }
  return RandomVariable(std::move(distribution), std::move(name), sample_shape);
}

}  // namespace

RandomVariable Normal(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Normal(std::move(loc), std::move(scale)); });
}
RandomVariable HalfNormal(Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::HalfNormal(std::move(scale)); });
}
RandomVariable LogNormal(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::LogNormal(std::move(loc), std::move(scale)); });
}
RandomVariable StudentT(Tensor df, Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::StudentT(std::move(df), std::move(loc), std::move(scale)); });
}
RandomVariable Cauchy(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Cauchy(std::move(loc), std::move(scale)); });
}
RandomVariable HalfCauchy(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::HalfCauchy(std::move(loc), std::move(scale)); });
}
RandomVariable Laplace(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Laplace(std::move(loc), std::move(scale)); });
}
RandomVariable Logistic(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Logistic(std::move(loc), std::move(scale)); });
}
RandomVariable Exponential(Tensor rate, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Exponential(std::move(rate)); });
}
RandomVariable Gamma(Tensor concentration, Tensor rate, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Gamma(std::move(concentration), std::move(rate)); });
}
RandomVariable InverseGamma(Tensor concentration, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::InverseGamma(std::move(concentration), std::move(scale)); });
}
RandomVariable Beta(Tensor concentration1, Tensor concentration0, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::Beta(std::move(concentration1), std::move(concentration0)); });
}
RandomVariable Uniform(Tensor low, Tensor high, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Uniform(std::move(low), std::move(high)); });
}
RandomVariable Chi2(Tensor df, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Chi2(std::move(df)); });
}
RandomVariable Weibull(Tensor concentration, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Weibull(std::move(concentration), std::move(scale)); });
}
RandomVariable Poisson(Tensor rate, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Poisson(std::move(rate)); });
}
RandomVariable Dirichlet(Tensor concentration, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Dirichlet(std::move(concentration)); });
}
RandomVariable Bernoulli(Probs probs, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Bernoulli::from_probs(std::move(probs.value)); });
}
RandomVariable Bernoulli(Logits logits, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Bernoulli::from_logits(std::move(logits.value)); });
}
RandomVariable BernoulliLogitGLM(Tensor x, Tensor w, Tensor alpha, std::string name) {
  return site(std::move(name), {},
              [&] { return dist::BernoulliLogitGLM(std::move(x), std::move(w), std::move(alpha)); });
}
RandomVariable CategoricalLogitGLM(Tensor x, Tensor w, Tensor b, std::string name) {
  return site(std::move(name), {}, [&] { return dist::CategoricalLogitGLM(std::move(x), std::move(w), std::move(b)); });
}
RandomVariable NormalIdGLM(Tensor x, Tensor w, Tensor alpha, Tensor sigma, std::string name) {
  return site(std::move(name), {},
              [&] { return dist::NormalIdGLM(std::move(x), std::move(w), std::move(alpha), std::move(sigma)); });
}
RandomVariable Binomial(Tensor total_count, Probs probs, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::Binomial::from_probs(std::move(total_count), std::move(probs.value)); });
}
RandomVariable Binomial(Tensor total_count, Logits logits, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::Binomial::from_logits(std::move(total_count), std::move(logits.value)); });
}
RandomVariable Categorical(Probs probs, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Categorical::from_probs(std::move(probs.value)); });
}
RandomVariable Categorical(Logits logits, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Categorical::from_logits(std::move(logits.value)); });
}
RandomVariable NegativeBinomial(Tensor total_count, Probs probs, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::NegativeBinomial::from_probs(std::move(total_count), std::move(probs.value)); });
}
RandomVariable NegativeBinomial(Tensor total_count, Logits logits, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::NegativeBinomial::from_logits(std::move(total_count), std::move(logits.value)); });
}
RandomVariable Geometric(Probs probs, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Geometric::from_probs(std::move(probs.value)); });
}
RandomVariable Geometric(Logits logits, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Geometric::from_logits(std::move(logits.value)); });
}
RandomVariable Multinomial(Tensor total_count, Probs probs, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::Multinomial::from_probs(std::move(total_count), std::move(probs.value)); });
}
RandomVariable Multinomial(Tensor total_count, Logits logits, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::Multinomial::from_logits(std::move(total_count), std::move(logits.value)); });
}
RandomVariable MultivariateNormalTriL(Tensor loc, Tensor scale_tril, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::MultivariateNormal::from_scale_tril(std::move(loc), std::move(scale_tril)); });
}
RandomVariable MultivariateNormalFullCovariance(Tensor loc, Tensor covariance_matrix, std::string name,
                                                Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::MultivariateNormal::from_covariance(std::move(loc), std::move(covariance_matrix)); });
}
RandomVariable MultivariateNormalDiag(Tensor loc, Tensor scale_diag, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::MultivariateNormal::from_scale_diag(std::move(loc), std::move(scale_diag)); });
}
RandomVariable LKJCholesky(std::int64_t dimension, Tensor concentration, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::LKJCholesky(dimension, std::move(concentration)); });
}
// Issue 20: more families.
RandomVariable VonMises(Tensor loc, Tensor concentration, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::VonMises(std::move(loc), std::move(concentration)); });
}

RandomVariable Gumbel(Tensor loc, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Gumbel(std::move(loc), std::move(scale)); });
}
RandomVariable Pareto(Tensor concentration, Tensor scale, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Pareto(std::move(concentration), std::move(scale)); });
}
RandomVariable BetaBinomial(Tensor total_count, Tensor concentration1, Tensor concentration0, std::string name,
                            Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] {
    return dist::BetaBinomial(std::move(total_count), std::move(concentration1), std::move(concentration0));
  });
}

namespace {

dist::ZeroInflated zero_inflated(DistributionPtr base, const Probs& gate) {
  return dist::ZeroInflated::from_probs(std::move(base), gate.value);
}
dist::ZeroInflated zero_inflated(DistributionPtr base, const Logits& gate) {
  return dist::ZeroInflated::from_logits(std::move(base), gate.value);
}
DistributionPtr negative_binomial(const Tensor& total_count, const Probs& p) {
  return std::make_shared<dist::NegativeBinomial>(dist::NegativeBinomial::from_probs(total_count, p.value));
}
DistributionPtr negative_binomial(const Tensor& total_count, const Logits& l) {
  return std::make_shared<dist::NegativeBinomial>(dist::NegativeBinomial::from_logits(total_count, l.value));
}

}  // namespace

RandomVariable ZeroInflatedPoisson(Tensor rate, Probs gate, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return zero_inflated(std::make_shared<dist::Poisson>(std::move(rate)), gate); });
}
RandomVariable ZeroInflatedPoisson(Tensor rate, Logits gate, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return zero_inflated(std::make_shared<dist::Poisson>(std::move(rate)), gate); });
}
RandomVariable ZeroInflatedNegativeBinomial(Tensor total_count, Probs probs, Probs gate, std::string name,
                                            Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return zero_inflated(negative_binomial(total_count, probs), gate); });
}
RandomVariable ZeroInflatedNegativeBinomial(Tensor total_count, Probs probs, Logits gate, std::string name,
                                            Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return zero_inflated(negative_binomial(total_count, probs), gate); });
}
RandomVariable ZeroInflatedNegativeBinomial(Tensor total_count, Logits logits, Probs gate, std::string name,
                                            Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return zero_inflated(negative_binomial(total_count, logits), gate); });
}
RandomVariable ZeroInflatedNegativeBinomial(Tensor total_count, Logits logits, Logits gate, std::string name,
                                            Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return zero_inflated(negative_binomial(total_count, logits), gate); });
}
RandomVariable OrderedLogistic(Tensor predictor, Tensor cutpoints, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::OrderedLogistic(std::move(predictor), std::move(cutpoints)); });
}
RandomVariable OrderedProbit(Tensor predictor, Tensor cutpoints, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::OrderedProbit(std::move(predictor), std::move(cutpoints)); });
}
RandomVariable GaussianRandomWalk(Tensor scale, std::int64_t num_steps, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::GaussianRandomWalk(std::move(scale), num_steps); });
}
RandomVariable Truncated(DistributionPtr base, std::optional<Tensor> low, std::optional<Tensor> high, std::string name,
                         Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::Truncated(std::move(base), std::move(low), std::move(high)); });
}

// Matrices and Gaussian processes (issue 20).
RandomVariable LKJ(std::int64_t dimension, Tensor concentration, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::LKJ(dimension, std::move(concentration)); });
}
RandomVariable Wishart(Tensor df, Tensor scale_matrix, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Wishart(std::move(df), std::move(scale_matrix)); });
}
RandomVariable WishartCholesky(Tensor df, Tensor scale_tril, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::WishartCholesky(std::move(df), std::move(scale_tril)); });
}
RandomVariable InverseWishart(Tensor df, Tensor scale_matrix, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::InverseWishart(std::move(df), std::move(scale_matrix)); });
}
RandomVariable InverseWishartCholesky(Tensor df, Tensor scale_tril, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::InverseWishartCholesky(std::move(df), std::move(scale_tril)); });
}
RandomVariable GaussianProcess(const dist::Kernel& kernel, Tensor index_points, Tensor observation_noise_variance,
                               Tensor mean, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] {
    return dist::GaussianProcess(kernel, std::move(index_points), std::move(observation_noise_variance),
                                 std::move(mean));
  });
}
RandomVariable Deterministic(Tensor value, std::string name) {
  DistributionPtr d =
      std::make_shared<dist::Deterministic>(autodiff::stop_gradient(value), dist::Deterministic::Unchecked{});
  return RandomVariable(std::move(d), std::move(name), std::move(value), GivenValue::deterministic);
}

void factor(std::string name, Tensor log_weight) {
  DistributionPtr d;
  try {
    d = std::make_shared<dist::Factor>(log_weight);
  } catch (const Error& e) {
    tracing::rethrow_naming_site(name, e);
  }
  RandomVariable(std::move(d), std::move(name), autodiff::stop_gradient(log_weight), GivenValue::observed);
}

RandomVariable ImproperUniform(Constraint support, std::string name, Shape shape, DType dtype) {
  return site(std::move(name), {}, [&] { return dist::ImproperUniform(std::move(support), shape, dtype); });
}

RandomVariable Reparameterized(DistributionPtr base, BijectorPtr bijector, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape,
              [&] { return dist::Reparameterized(std::move(base), std::move(bijector)); });
}
RandomVariable WithOffsetMultiplier(DistributionPtr base, Tensor offset, Tensor multiplier, std::string name,
                                    Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] {
    return dist::Reparameterized(std::move(base),
                                 std::make_shared<dist::OffsetMultiplier>(std::move(offset), std::move(multiplier)));
  });
}
RandomVariable Restricted(DistributionPtr base, Constraint support, std::string name, Shape sample_shape) {
  return site(std::move(name), sample_shape, [&] { return dist::Restricted(std::move(base), std::move(support)); });
}

}  // namespace variate
