// The unconstrained parameterization: layout, round trips, the log density with its Jacobian terms,
// batches of states, and discrete latent sites.
#include "variate/inference/unconstrained.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/parameters.hpp"
#include "variate/distributions/sample.hpp"
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

double log_sigmoid(double x) { return -std::log1p(std::exp(-x)); }

// b's upper bound is a, another parameter (Stan's <lower=0, upper=a>): the bijector of b must be
// built from a's value at every evaluation, not frozen at the value of the traced draw.
void dependent_bound() {
  auto a = Uniform(0.0, 1.0, "a");
  Uniform(0.0, a, "b");
}

TEST(Unconstrained, ABoundThatDependsOnAParameterFollowsIt) {
  const inference::Unconstrained space(dependent_bound);
  EXPECT_FALSE(space.static_supports());
  for (double x_a : {-2.0, 0.0, 1.5}) {
    const double x_b = 0.7;
    const Tensor flat = Tensor::vec({x_a, x_b});
    const double a = 1 / (1 + std::exp(-x_a)), b = a / (1 + std::exp(-x_b));
    const tracing::Values values = space.constrain(flat);
    EXPECT_NEAR(values.at("a").item(), a, 1e-14);
    EXPECT_NEAR(values.at("b").item(), b, 1e-14);
    // log p(a) + log p(b | a) = 0 - log a; Jacobians: a (1-a) for a, a s (1-s) for b = a s(x_b).
    const double expected =
        -std::log(a) + log_sigmoid(x_a) + log_sigmoid(-x_a) + std::log(a) + log_sigmoid(x_b) + log_sigmoid(-x_b);
    EXPECT_NEAR(space.log_density(flat).item(), expected, 1e-12);
    testing::expect_ad([&](std::span<const Tensor> v) { return space.log_density(v[0]); }, {flat});
    const Tensor back = space.unconstrain(values);
    EXPECT_NEAR(back.at(0), x_a, 1e-10);
    EXPECT_NEAR(back.at(1), x_b, 1e-10);
  }
  // A batch of states: each with its own bound.
  const Tensor both = Tensor::from(std::vector<double>{-2.0, 0.7, 1.5, 0.7}, Shape{2, 2});
  const Tensor lp = space.log_density(both);
  EXPECT_NEAR(lp.at(0), space.log_density(Tensor::vec({-2.0, 0.7})).item(), 1e-12);
  EXPECT_NEAR(lp.at(1), space.log_density(Tensor::vec({1.5, 0.7})).item(), 1e-12);
  EXPECT_NEAR(space.constrain(both).at("b").at(1), space.constrain(Tensor::vec({1.5, 0.7})).at("b").item(), 1e-14);
}

// Far out on the unconstrained line a bounded value rounds onto an end of its open support: in
// doubles sigmoid(40) is 1, a sigmoid(40) is a, 100 + exp(-40) is 100 and 1000 + sigmoid(-40) is
// 1000. The density there is that of a point just inside (here the Jacobian terms alone), as in
// Stan, not -inf: a trajectory that passes there is no divergence.
TEST(Unconstrained, AValueRoundedOntoAnEndOfItsSupportKeepsItsDensity) {
  auto program = [] {
    auto a = Uniform(0.0, 1.0, "a");
    Uniform(0.0, a, "b");
    ImproperUniform(Constraint::greater_than(Tensor::scalar(100.0)), "c");
    ImproperUniform(Constraint::interval(Tensor::scalar(1000.0), Tensor::scalar(1001.0)), "d");
  };
  const inference::Unconstrained space(program);
  const Tensor flat = Tensor::vec({40.0, 40.0, -40.0, -40.0});
  // a: ls(40) + ls(-40); b: -log a + log a + ls(40) + ls(-40); c: -40; d: log 1 + ls(-40) + ls(40).
  const double logit_jacobian = log_sigmoid(40.0) + log_sigmoid(-40.0);
  const auto r = value_and_grad([&](const Tensor& x) { return space.log_density(x); }, flat);
  EXPECT_NEAR(r.value.item(), 3 * logit_jacobian - 40, 1e-12);
  // d/dx [ls(x) + ls(-x)] = 1 - 2 sigmoid(x), within 1e-17 of -1 at 40 and of 1 at -40.
  const std::vector<double> expected{-1.0, -1.0, 1.0, 1.0};
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_NEAR(r.grads[0].at(i), expected[std::size_t(i)], 1e-15) << i;
}

TEST(Unconstrained, ConstantBoundsNeedNoProgramRun) {
  auto constant = [] { Uniform(0.0, 2.0, "b"); };
  EXPECT_TRUE(inference::Unconstrained(constant).static_supports());
  EXPECT_TRUE(inference::Unconstrained(model).static_supports());
}

TEST(Unconstrained, ImproperAndDeterministicSites) {
  auto program = [] {
    auto mu = ImproperUniform(Constraint::real(), "mu");
    auto sigma = ImproperUniform(Constraint::positive(), "sigma");
    Deterministic(mu + sigma, "sum");
  };
  const inference::Unconstrained space(program);
  ASSERT_EQ(space.sites().size(), 2u);  // the deterministic site is no parameter
  ASSERT_EQ(space.generated_sites().size(), 1u);
  EXPECT_EQ(space.generated_sites()[0].name, "sum");
  const Tensor flat = Tensor::vec({0.5, -1.0});
  EXPECT_NEAR(space.log_density(flat).item(), -1.0, 1e-15);  // flat priors; log|J| of exp is x
  EXPECT_NEAR(space.generated_quantities(flat).at("sum").item(), 0.5 + std::exp(-1.0), 1e-15);
  const Tensor batch = Tensor::from(std::vector<double>{0.5, -1.0, 1.0, 0.0}, Shape{2, 2});
  const Tensor sums = space.generated_quantities(batch).at("sum");
  EXPECT_NEAR(sums.at(1), 2.0, 1e-15);
}

TEST(Unconstrained, ASupportThatChangesKindIsAnError) {
  auto switching = [] {
    auto a = Normal(0.0, 1.0, "a");
    if (a.value().item() > 0) {
      HalfNormal(1.0, "b");
    } else {
      Normal(0.0, 1.0, "b");
    }
  };
  const inference::Unconstrained space(switching, random::Key(3));
  const bool traced_positive = space.sites()[1].support == Constraint::Kind::positive;
  const Tensor other = Tensor::vec({traced_positive ? -1.0 : 1.0, 0.0});
  EXPECT_ERROR(space.log_density(other), "the support of site 'b' was");
}

TEST(Unconstrained, ASupportThatChangesShapeIsAnError) {
  auto resizing = [] {
    auto a = Normal(0.0, 1.0, "a");
    Normal(0.0, 1.0, "b", {a.value().item() > 0 ? 2 : 3});
  };
  const inference::Unconstrained space(resizing, random::Key(3));
  const bool traced_two = space.sites()[1].shape == Shape{2};
  const Tensor other = traced_two ? Tensor::vec({-1.0, 0.0, 0.0}) : Tensor::vec({1.0, 0.0, 0.0, 0.0});
  EXPECT_ERROR(space.log_density(other),
               traced_two ? "site 'b' had shape [2] when the program was traced and now has shape [3]"
                          : "site 'b' had shape [3] when the program was traced and now has shape [2]");
}

// Stan's `real<offset=mu, multiplier=tau> theta; theta ~ normal(mu, tau);`: theta's coordinate is
// (theta - mu) / tau with mu and tau at their current values, so the space is not static, and the
// density is the centered model's with log tau added (the Jacobian).
void offset_multiplier() {
  auto mu = Normal(0.0, 5.0, "mu");
  auto tau = HalfNormal(5.0, "tau");
  WithOffsetMultiplier(std::make_shared<dist::Normal>(mu, tau), mu, tau, "theta", {2});
}

TEST(Unconstrained, OffsetMultiplierFollowsTheOtherSites) {
  const inference::Unconstrained space(offset_multiplier);
  EXPECT_FALSE(space.static_supports());
  EXPECT_STREQ(space.sites()[2].bijector->name(), "OffsetMultiplier");
  for (double x_tau : {-1.0, 0.5}) {
    const Tensor flat = Tensor::vec({1.5, x_tau, 0.3, -0.8});
    const double tau = std::exp(x_tau);
    const tracing::Values values = space.constrain(flat);
    EXPECT_NEAR(values.at("theta").at(0), 1.5 + tau * 0.3, 1e-14);
    EXPECT_NEAR(values.at("theta").at(1), 1.5 - tau * 0.8, 1e-14);
    const double expected = tracing::make_log_joint(offset_multiplier)(values).item() + x_tau + 2 * std::log(tau);
    EXPECT_NEAR(space.log_density(flat).item(), expected, 1e-12);
    testing::expect_ad([&](std::span<const Tensor> v) { return space.log_density(v[0]); }, {flat});
    const Tensor back = space.unconstrain(values);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(back.at(i), flat.at(i), 1e-12);
  }
}

// Restricted sites and vector supports: ordered (K -> K coordinates), positive_ordered, unit_vector
// (K coordinates for a K-vector), a Cholesky factor (K(K+1)/2); the sites with no exact sampler
// start where inference starts a chain.
void declared_supports() {
  auto iid = [](DistributionPtr d, Shape shape) { return std::make_shared<dist::Sample>(std::move(d), shape); };
  Restricted(iid(std::make_shared<dist::Normal>(0.0, 5.0), {3}), Constraint::ordered(), "c");
  Restricted(iid(std::make_shared<dist::Exponential>(1.0), {2}), Constraint::positive_ordered(), "t");
  Restricted(iid(std::make_shared<dist::Normal>(0.0, 1.0), {3}), Constraint::unit_vector(), "u");
  Restricted(iid(std::make_shared<dist::Normal>(0.0, 1.0), {2, 2}), Constraint::lower_cholesky(), "L");
  ImproperUniform(Constraint::ordered(), "flat", {2});
}

TEST(Unconstrained, DeclaredSupports) {
  const inference::Unconstrained space(declared_supports);
  EXPECT_TRUE(space.static_supports());
  EXPECT_EQ(space.dimension(), 3 + 2 + 3 + 3 + 2);
  const Tensor flat = Tensor::vec({0.1, -0.5, 0.4, 0.2, -0.3, 0.6, 0.0, -0.8, 0.3, 1.2, -0.4, -1.0, 0.7});
  const tracing::Values values = space.constrain(flat);
  EXPECT_EQ(prim::sum(dist::in_support(Constraint::ordered(), values.at("c"))).item(), 1.0);
  EXPECT_EQ(prim::sum(dist::in_support(Constraint::positive_ordered(), values.at("t"))).item(), 1.0);
  EXPECT_EQ(prim::sum(dist::in_support(Constraint::unit_vector(), values.at("u"))).item(), 1.0);
  EXPECT_EQ(prim::sum(dist::in_support(Constraint::lower_cholesky(), values.at("L"))).item(), 1.0);
  EXPECT_TRUE(std::isfinite(space.log_density(flat).item()));
  testing::expect_ad([&](std::span<const Tensor> v) { return space.log_density(v[0]); }, {flat});
  // Round trips, except the unit vector's coordinates, which come back scaled to norm 1.
  const Tensor back = space.unconstrain(values);
  for (int i : {0, 1, 2, 3, 4, 8, 9, 10, 11, 12}) EXPECT_NEAR(back.at(i), flat.at(i), 1e-12) << i;
  const double norm = std::sqrt(0.6 * 0.6 + 0.0 + 0.8 * 0.8);
  for (int i = 5; i < 8; ++i) EXPECT_NEAR(back.at(i), flat.at(i) / norm, 1e-12) << i;
}

}  // namespace
}  // namespace variate
