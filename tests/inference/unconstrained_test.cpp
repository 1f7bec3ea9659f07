// The unconstrained parameterization: layout, round trips, the log density with its Jacobian terms,
// batches of states, and discrete latent sites.
#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate {
namespace {

void model() {
  auto mu = Normal(0.0, 1.0, "mu");
  auto sigma = HalfNormal(1.0, "sigma");
  auto p = Beta(2.0, 3.0, "p");
  Dirichlet(Tensor::vec({1.0, 2.0, 3.0}), "weights");
  tracing::Condition data({{"y", Tensor::vec({0.5, -0.2})}});
  Normal(expand_dims(mu, -1), expand_dims(sigma * p + 0.1, -1), "y", {});
}

TEST(Unconstrained, LaysOutTheLatentSites) {
  const inference::Unconstrained space(model);
  ASSERT_EQ(space.sites().size(), 4u);  // y is observed
  EXPECT_EQ(space.dimension(), 1 + 1 + 1 + 2);
  EXPECT_EQ(space.sites()[3].name, "weights");
  EXPECT_EQ(space.sites()[3].offset, 3);
  EXPECT_EQ(space.sites()[3].unconstrained_shape, (Shape{2}));
}

TEST(Unconstrained, RoundTripAndSupports) {
  const inference::Unconstrained space(model);
  const Tensor flat = Tensor::vec({0.3, -1.2, 2.0, 0.4, -0.7});
  const tracing::Values values = space.constrain(flat);
  EXPECT_GT(values.at("sigma").item(), 0.0);
  EXPECT_GT(values.at("p").item(), 0.0);
  EXPECT_LT(values.at("p").item(), 1.0);
  EXPECT_NEAR(sum(values.at("weights")).item(), 1.0, 1e-12);
  const Tensor back = space.unconstrain(values);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(back.at(i), flat.at(i), 1e-12);
}

TEST(Unconstrained, LogDensityAddsTheJacobianTerms) {
  const inference::Unconstrained space(model);
  const Tensor flat = Tensor::vec({0.3, -1.2, 2.0, 0.4, -0.7});
  const tracing::Values values = space.constrain(flat);
  const double log_joint = tracing::make_log_joint(model)(values).item();
  // Exp for sigma: log|J| = x; Sigmoid for p: log sigmoid(x) + log sigmoid(-x); StickBreaking:
  // sum of log of the simplex entries (its documented closed form).
  const double x_p = 2.0;
  const double expected = log_joint + (-1.2) + (-std::log1p(std::exp(-x_p)) - std::log1p(std::exp(x_p))) +
                          sum(log(values.at("weights"))).item();
  EXPECT_NEAR(space.log_density(flat).item(), expected, 1e-10);
  testing::expect_ad([&](std::span<const Tensor> v) { return space.log_density(v[0]); }, {flat});
}

TEST(Unconstrained, ABatchOfStatesGivesOneDensityEach) {
  const inference::Unconstrained space(model);
  const Tensor a = Tensor::vec({0.3, -1.2, 2.0, 0.4, -0.7}), b = Tensor::vec({-0.5, 0.2, -1.0, 0.0, 1.5});
  const Tensor both = stack({a, b}, 0);
  const Tensor lp = space.log_density(both);
  ASSERT_EQ(lp.shape(), (Shape{2}));
  EXPECT_NEAR(lp.at(0), space.log_density(a).item(), 1e-10);
  EXPECT_NEAR(lp.at(1), space.log_density(b).item(), 1e-10);
  EXPECT_ERROR(space.log_density(Tensor::vec({1, 2})), "expected a flat vector of shape (5)");
}

TEST(Unconstrained, DiscreteLatentSitesAreNamed) {
  auto discrete = [] { Poisson(3.0, "count"); };
  EXPECT_ERROR(inference::Unconstrained{discrete}, "latent site 'count' (Poisson) is discrete");
}

}  // namespace
}  // namespace variate
