// Predictive draws and pointwise log-likelihoods.
#include "variate/inference/predictive.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "support/expect_error.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
#include "variate/distributions/categorical_logit_glm.hpp"
#include "variate/distributions/normal_id_glm.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

const Tensor kData = Tensor::vec({0.8, 1.9, 1.2});

// mu ~ N(0, 1), y_i ~ N(mu, 1) observed.
void model() {
  auto mu = Normal(0.0, 1.0, "mu");
  tracing::Condition data({{"y", kData}});
  Normal(expand_dims(mu, -1) * Tensor::ones(Shape{3}), 1.0, "y");
}

// Mean and variance of element 0 of site `name` over n predictive runs.
std::pair<double, double> moments(const tracing::Values& latent, const std::string& name, int n) {
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double v = predictive(model, latent, random::Key(std::uint64_t(1000 + i))).at(name).at(0);
    sum += v;
    sum_sq += v * v;
  }
  const double mean = sum / n;
  return {mean, sum_sq / n - mean * mean};
}

// Independent draws: the mean is within 5 standard errors, sqrt(var / n), of the truth, and the
// variance within 5 of its own, sqrt(2 var^2 / n) for a normal variable.
void expect_normal_moments(std::pair<double, double> got, double mean, double variance, int n) {
  EXPECT_NEAR(got.first, mean, 5 * std::sqrt(variance / n));
  EXPECT_NEAR(got.second, variance, 5 * variance * std::sqrt(2.0 / n));
}

TEST(Predictive, PriorPredictiveDrawsTheDataAnew) {
  const int n = 4000;
  // y = mu + e with mu ~ N(0, 1): y ~ N(0, 2).
  expect_normal_moments(moments({}, "y", n), 0.0, 2.0, n);
  const tracing::Values one = predictive(model, {}, random::Key(7));
  EXPECT_NE(one.at("y").at(0), kData.at(0));
  EXPECT_EQ(one.at("y").shape(), (Shape{3}));
}

TEST(Predictive, PosteriorPredictiveUsesTheLatentValues) {
  const int n = 4000;
  expect_normal_moments(moments({{"mu", Tensor::scalar(3.0)}}, "y", n), 3.0, 1.0, n);
  EXPECT_DOUBLE_EQ(predictive(model, {{"mu", Tensor::scalar(3.0)}}, random::Key(1)).at("mu").item(), 3.0);
}

TEST(Predictive, LogLikelihoodIsElementwise) {
  const double mu = 0.4;
  const Tensor lp = log_likelihood(model, {{"mu", Tensor::scalar(mu)}}).at("y");
  ASSERT_EQ(lp.shape(), (Shape{3}));
  for (int i = 0; i < 3; ++i) {
    const double z = kData.at(i) - mu;
    EXPECT_NEAR(lp.at(i), -0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi), 1e-14);
  }
  EXPECT_ERROR(log_likelihood(model, {}), "site 'mu' has no value");
}

// A GLM's event is the whole response vector, yet LOO and WAIC need a term per observation: the
// log-likelihood of each GLM site has one per row, and they sum to the site's log density.
TEST(Predictive, GlmLogLikelihoodsHaveATermPerRow) {
  const Tensor x = Tensor::from(std::vector<double>{1.0, 0.5, -0.3, 2.0, 0.7, -1.1, 0.2, 0.4}, {4, 2});
  const Tensor w = Tensor::vec({0.4, -0.6});
  const Tensor classes_w = Tensor::from(std::vector<double>{0.3, -0.2, 0.5, 0.1, 0.4, -0.7}, {2, 3});
  const Tensor labels = Tensor::vec({1, 0, 1, 1}), classes = Tensor::vec({0, 2, 1, 2});
  const Tensor response = Tensor::vec({0.3, -1.2, 2.0, 0.1});
  const auto program = [&] {
    auto weights = Normal(0.0, 1.0, "w", {2});
    tracing::Condition observed({{"labels", labels}, {"classes", classes}, {"response", response}});
    BernoulliLogitGLM(x, weights, Tensor::scalar(0.1), "labels");
    CategoricalLogitGLM(x, classes_w, Tensor::vec({0.0, 0.2, -0.1}), "classes");
    NormalIdGLM(x, weights, Tensor::scalar(0.1), Tensor::scalar(1.5), "response");
  };
  const tracing::Values terms = log_likelihood(program, {{"w", w}});
  const double whole[] = {
      dist::BernoulliLogitGLM(x, w, Tensor::scalar(0.1)).log_prob(labels).item(),
      dist::CategoricalLogitGLM(x, classes_w, Tensor::vec({0.0, 0.2, -0.1})).log_prob(classes).item(),
      dist::NormalIdGLM(x, w, Tensor::scalar(0.1), Tensor::scalar(1.5)).log_prob(response).item()};
  int site = 0;
  for (const char* name : {"labels", "classes", "response"}) {
    const Tensor lp = terms.at(name);
    ASSERT_EQ(lp.shape(), (Shape{4})) << name;
    EXPECT_NEAR(sum(lp).item(), whole[site++], 1e-12) << name;
  }
  const double z = 0.3 - (1.0 * 0.4 + 0.5 * -0.6 + 0.1);
  EXPECT_NEAR(terms.at("response").at(0), -0.5 * z * z / 2.25 - std::log(1.5) - 0.5 * std::log(2 * std::numbers::pi),
              1e-14);
}

TEST(Predictive, AnImproperPriorHasNoPriorPredictive) {
  auto flat = [] {
    auto mu = ImproperUniform(Constraint::real(), "mu");
    Normal(mu, 1.0, "y");
  };
  EXPECT_ERROR(predictive(flat, {}, random::Key(1)), "site 'mu': ImproperUniform");
  EXPECT_NO_THROW(predictive(flat, {{"mu", Tensor::scalar(0.0)}}, random::Key(1)));
}

}  // namespace
}  // namespace variate::inference
