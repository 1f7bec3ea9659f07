// Every random-variable constructor creates a site of its family, drawn under Seed, with the value's
// log density available; arithmetic on random variables is arithmetic on their values.
#include "variate/tracing/random_variables.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/tracing/handlers.hpp"

namespace variate {
namespace {

TEST(RandomVariables, EveryFamilyMakesASite) {
  tracing::Trace trace;
  tracing::Seed seed(random::Key(11));
  const Tensor probs = Tensor::vec({0.2, 0.3, 0.5});
  const Tensor eye = Tensor::vec({1, 0, 0, 1}).view(Shape{2, 2});
  const std::vector<RandomVariable> rvs = {
      Normal(0.0, 1.0, "normal"),
      HalfNormal(1.0, "half_normal"),
      LogNormal(0.0, 1.0, "log_normal"),
      StudentT(3.0, 0.0, 1.0, "student_t"),
      Cauchy(0.0, 1.0, "cauchy"),
      HalfCauchy(0.0, 1.0, "half_cauchy"),
      Laplace(0.0, 1.0, "laplace"),
      Logistic(0.0, 1.0, "logistic"),
      Exponential(2.0, "exponential"),
      Gamma(2.0, 1.0, "gamma"),
      InverseGamma(3.0, 1.0, "inverse_gamma"),
      Beta(2.0, 3.0, "beta"),
      Uniform(-1.0, 1.0, "uniform"),
      Chi2(4.0, "chi2"),
      Weibull(1.5, 1.0, "weibull"),
      Bernoulli(Probs{0.3}, "bernoulli_p"),
      Bernoulli(Logits{-2.0}, "bernoulli_l"),
      Binomial(10.0, Probs{0.3}, "binomial_p"),
      Binomial(10.0, Logits{0.5}, "binomial_l"),
      Categorical(Probs{probs}, "categorical_p"),
      Categorical(Logits{probs}, "categorical_l"),
      Poisson(3.0, "poisson"),
      NegativeBinomial(5.0, Probs{0.4}, "negative_binomial_p"),
      NegativeBinomial(5.0, Logits{0.4}, "negative_binomial_l"),
      Geometric(Probs{0.3}, "geometric_p"),
      Geometric(Logits{0.3}, "geometric_l"),
      Dirichlet(probs, "dirichlet"),
      Multinomial(7.0, Probs{probs}, "multinomial_p"),
      Multinomial(7.0, Logits{probs}, "multinomial_l"),
      MultivariateNormalTriL(Tensor::vec({0, 1}), eye, "mvn_tril"),
      MultivariateNormalFullCovariance(Tensor::vec({0, 1}), eye, "mvn_full"),
      MultivariateNormalDiag(Tensor::vec({0, 1}), Tensor::vec({1, 2}), "mvn_diag"),
      LKJCholesky(3, 2.0, "lkj"),
      Deterministic(4.0, "deterministic"),
  };
  ASSERT_EQ(trace.sites().size(), rvs.size());
  for (std::size_t i = 0; i < rvs.size(); ++i) {
    EXPECT_EQ(trace.sites()[i].name, rvs[i].name());
    const double lp = rvs[i].log_prob().item();
    EXPECT_TRUE(std::isfinite(lp)) << rvs[i].name() << " (" << rvs[i].distribution().name() << ") lp " << lp;
  }
  EXPECT_EQ(std::string(rvs[3].distribution().name()), "StudentT");
  EXPECT_EQ(rvs[29].value().shape(), (Shape{2}));
  EXPECT_EQ(rvs[32].value().shape(), (Shape{3, 3}));
}

// Matrices and Gaussian processes (issue 20): each factory makes a site with a draw in its support.
TEST(RandomVariables, MatrixFamiliesAndGaussianProcesses) {
  tracing::Seed seed(random::Key(3));
  tracing::Trace trace;
  const Tensor scale = Tensor::from(std::vector<double>{1.5, 0.3, 0.3, 0.9}, Shape{2, 2});
  const Tensor x = Tensor::vec({0.0, 0.5, 1.0});
  const std::vector<RandomVariable> rvs = {
      LKJ(3, 2.0, "lkj_corr"),
      Wishart(4.0, scale, "wishart"),
      WishartCholesky(4.0, cholesky(scale), "wishart_cholesky"),
      InverseWishart(4.0, scale, "inverse_wishart"),
      InverseWishartCholesky(4.0, cholesky(scale), "inverse_wishart_cholesky"),
      GaussianProcess(dist::ExponentiatedQuadratic(1.0, 0.5), x, 0.1, {}, "gp", {2}),
  };
  ASSERT_EQ(trace.sites().size(), rvs.size());
  for (const RandomVariable& rv : rvs) {
    const double lp = prim::sum(rv.log_prob()).item();
    EXPECT_TRUE(std::isfinite(lp)) << rv.name() << " (" << rv.distribution().name() << ") lp " << lp;
  }
  EXPECT_EQ(rvs[0].value().shape(), (Shape{3, 3}));
  EXPECT_EQ(rvs[5].value().shape(), (Shape{2, 3}));
  EXPECT_ERROR(Wishart(0.5, scale, "bad_wishart"), "bad_wishart");
}

TEST(RandomVariables, ArithmeticWorksOnValues) {
  tracing::Seed seed(random::Key(2));
  auto a = Normal(0.0, 1.0, "a");
  auto b = Normal(0.0, 1.0, "b", {3});
  const Tensor c = a + b * 2.0 - exp(a);
  for (int i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(c.at(i), a.value().item() + 2.0 * b.value().at(i) - std::exp(a.value().item()));
}

TEST(RandomVariables, ElementsIndexLikeNumPyAndCarryGradients) {
  const Tensor beta0 = Tensor::from(std::vector<double>{0.5, -1.0, 2.0, 0.25, 3.0, -2.0});
  EXPECT_EQ(beta0.shape(), (Shape{6}));
  auto log_joint = [](const Tensor& b) {
    tracing::Substitute values({{"beta", b}});
    tracing::Seed seed{random::Key(0)};
    auto beta = Normal(0.0, 1.0, "beta", {2, 3});
    EXPECT_EQ(beta(1).shape(), (Shape{3}));
    EXPECT_EQ(beta(-1, 2).item(), beta(1, 2).item());
    return beta(1, 2) * 2.0 + beta(0, 0);
  };
  const Tensor g = grad([&](const Tensor& b) { return log_joint(reshape(b, Shape{2, 3}.dims())); }, beta0);
  EXPECT_EQ(g.at(5), 2.0);
  EXPECT_EQ(g.at(0), 1.0);
  EXPECT_EQ(g.at(1), 0.0);
  tracing::Seed seed{random::Key(0)};
  auto x = Normal(0.0, 1.0, "x", {2});
  EXPECT_THROW(x(2), Error);
  EXPECT_THROW(x(0, 0), Error);
}

// The transform constructors: a site with the base's draws (sorted for an iid restriction to
// ordered vectors), and errors that name the site and the wrapper.
TEST(RandomVariables, TransformsMakeSites) {
  tracing::Trace trace;
  tracing::Seed seed(random::Key(5));
  auto mu = Normal(1.0, 1.0, "mu");
  auto theta = WithOffsetMultiplier(std::make_shared<dist::Normal>(mu, 2.0), mu, 2.0, "theta", {8});
  EXPECT_EQ(theta.value().shape(), Shape({8}));
  EXPECT_STREQ(theta.distribution().name(), "Reparameterized");
  auto sigma = Reparameterized(std::make_shared<dist::Exponential>(1.0), std::make_shared<dist::Softplus>(), "sigma");
  EXPECT_GT(sigma.value().item(), 0.0);
  auto c = Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(0.0, 5.0), Shape{4}),
                      Constraint::ordered(), "c", {2});
  ASSERT_EQ(c.value().shape(), Shape({2, 4}));
  for (std::int64_t r = 0; r < 2; ++r)
    for (std::int64_t k = 1; k < 4; ++k) EXPECT_LT(c.value().at(r * 4 + k - 1), c.value().at(r * 4 + k));
  EXPECT_TRUE(std::isfinite(c.log_prob().item()));
  EXPECT_EQ(trace.sites().size(), 4u);

  const auto normal = std::make_shared<dist::Normal>(0.0, 1.0);
  EXPECT_ERROR(WithOffsetMultiplier(normal, 0.0, -1.0, "theta2"),
               "site 'theta2': OffsetMultiplier: multiplier must be positive and finite, got -1");
  EXPECT_ERROR(Reparameterized(normal, std::make_shared<dist::Exp>(), "r"),
               "site 'r': Reparameterized: bijector Exp must map the real line onto the real support");
  EXPECT_ERROR(Restricted(normal, Constraint::ordered(), "o"), "site 'o': Restricted: the ordered support spans");
  // Draws that cannot be made exactly are refused, naming the site.
  EXPECT_ERROR(Restricted(std::make_shared<dist::Sample>(normal, Shape{3}), Constraint::unit_vector(), "u"),
               "Restricted::sample: no exact sampler");
}

}  // namespace
}  // namespace variate
