// The posterior mode by L-BFGS: closed-form modes with and without the Jacobian term, and the
// errors for a discrete latent site, no finite start and a density without a maximum.
#include "variate/inference/optimize.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/expect_error.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

// theta ~ Beta(1, 1), 2 successes in 10 trials: p(theta | y) is Beta(3, 9), whose mode is
// 2 / 10. With the logit's Jacobian theta (1 - theta) the density of logit(theta) is proportional
// to theta^3 (1 - theta)^9, whose maximum is at 3 / 12.
void beta_bernoulli() {
  auto theta = Beta(1.0, 1.0, "theta");
  tracing::Condition data({{"y", Tensor::vec({0, 1, 0, 0, 0, 0, 0, 0, 0, 1})}});
  Bernoulli(Probs{theta}, "y", {10});
}

TEST(Optimize, FindsTheModeWithoutTheJacobian) {
  const OptimizeResult r = optimize(beta_bernoulli);
  EXPECT_TRUE(r.converged) << r.message;
  EXPECT_NEAR(r.mode.at("theta").item(), 0.2, 1e-6) << r.message;
  EXPECT_NEAR(r.log_density, 2 * std::log(0.2) + 8 * std::log(0.8), 1e-10);
  EXPECT_NEAR(r.point.at(0), std::log(0.2 / 0.8), 1e-5);
  EXPECT_GE(r.evaluations, r.iterations);
}

TEST(Optimize, WithTheJacobianFindsTheUnconstrainedDensitysMode) {
  const OptimizeResult r = optimize(beta_bernoulli, {.jacobian = Jacobian::included});
  EXPECT_TRUE(r.converged) << r.message;
  EXPECT_NEAR(r.mode.at("theta").item(), 0.25, 1e-6) << r.message;
  EXPECT_NEAR(r.log_density, 3 * std::log(0.25) + 9 * std::log(0.75), 1e-10);
}

TEST(Optimize, StartsAtZeroWithRadiusZeroAndStopsAtTheIterationLimit) {
  const OptimizeResult r = optimize(beta_bernoulli, {.iterations = 1, .init_radius = 0});
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 1);
  EXPECT_NE(r.message.find("stopped after 1 iterations"), std::string::npos) << r.message;
}

TEST(Optimize, ADiscreteLatentSiteIsNamed) {
  auto model = [] {
    auto z = Bernoulli(Probs{Tensor::scalar(0.3)}, "z");
    tracing::Condition data({{"y", Tensor::scalar(1.0)}});
    Normal(z, 1.0, "y");
  };
  EXPECT_ERROR(optimize(model), "latent site 'z' (Bernoulli) is discrete");
}

TEST(Optimize, NoFiniteStartIsAnError) {
  // y = 10 lies outside (mu - 1/2, mu + 1/2) for every start mu in (-2, 2): log p = -inf.
  auto model = [] {
    auto mu = Normal(0.0, 1.0, "mu");
    tracing::Condition data({{"y", Tensor::scalar(10.0)}});
    Uniform(mu - 0.5, mu + 0.5, "y");
  };
  EXPECT_ERROR(optimize(model), "no starting point with a finite log density and gradient after 100 attempts");
}

TEST(Optimize, ADensityWithoutAMaximumFailsNamingTheLineSearch) {
  // y = 0 exactly under Normal(0, sigma): log p grows without bound as sigma goes to 0.
  auto model = [] {
    auto sigma = HalfNormal(1.0, "sigma");
    tracing::Condition data({{"y", Tensor::scalar(0.0)}});
    Normal(0.0, sigma, "y");
  };
  EXPECT_ERROR(optimize(model), "optimize: L-BFGS failed: log p could not be evaluated at a point the search tried");
}

}  // namespace
}  // namespace variate::inference
