// Predictive draws and pointwise log-likelihoods.
#include "variate/inference/predictive.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "support/expect_error.hpp"
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
