// Discrete latent sites summed out by enumeration, against the same models marginalized by hand,
// and infer_discrete against the exact conditional.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/distributions/mixture_same_family.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/inference/predictive.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate {
namespace {

const Tensor kY = Tensor::vec({-1.8, -2.4, 0.3, 2.2, 1.7, 2.9, -2.0});

// A two-component normal mixture with a label per datum, written with the labels.
void mixture_with_labels() {
  auto w = Beta(2.0, 2.0, "w");
  auto mu = Normal(0.0, 5.0, "mu", {2});
  tracing::Enumerate enumerate({"z"});
  auto z = Bernoulli(Probs{expand_dims(w, -1) * Tensor::ones(Shape{7})}, "z");
  const Tensor mu0 = slice(mu, -1, 0, 1), mu1 = slice(mu, -1, 1, 2);
  tracing::Condition data({{"y", kY}});
  Normal(mu0 + z * (mu1 - mu0), 1.0, "y");
}

// The same, marginalized by hand.
void mixture_marginalized() {
  auto w = Beta(2.0, 2.0, "w");
  auto mu = Normal(0.0, 5.0, "mu", {2});
  const Tensor logits = concat({expand_dims(log1p(-w), -1), expand_dims(log(w), -1)}, -1);  // (..., 2)
  auto components = std::make_shared<dist::Normal>(expand_dims(mu, -2), 1.0);               // (..., 1, 2)
  tracing::Condition data({{"y", kY}});
  RandomVariable(std::make_shared<dist::MixtureSameFamily>(expand_dims(logits, -2), components), "y");
}

TEST(Enumeration, AMixtureWithLabelsEqualsItsHandMarginalizedForm) {
  const inference::Unconstrained with_labels(mixture_with_labels), by_hand(mixture_marginalized);
  ASSERT_EQ(with_labels.dimension(), 3);  // w and mu: the labels are no parameters
  ASSERT_EQ(by_hand.dimension(), 3);
  for (const Tensor& flat : {Tensor::vec({0.3, -2.0, 2.1}), Tensor::vec({-1.0, 0.5, -0.7})}) {
    EXPECT_NEAR(with_labels.log_density(flat).item(), by_hand.log_density(flat).item(), 1e-12);
    testing::expect_ad([&](std::span<const Tensor> v) { return with_labels.log_density(v[0]); }, {flat});
  }
  // A batch of states (vectorized chains): each state's own value.
  const Tensor both = stack({Tensor::vec({0.3, -2.0, 2.1}), Tensor::vec({-1.0, 0.5, -0.7})}, 0);
  const Tensor lp = with_labels.log_density(both);
  EXPECT_NEAR(lp.at(0), by_hand.log_density(Tensor::vec({0.3, -2.0, 2.1})).item(), 1e-12);
  EXPECT_NEAR(lp.at(1), by_hand.log_density(Tensor::vec({-1.0, 0.5, -0.7})).item(), 1e-12);
}

// A change point: counts with rate e before tau and l from tau on, tau uniform on 0..T-1.
TEST(Enumeration, AChangePointIsSummedOver) {
  const std::vector<double> counts{4, 5, 4, 3, 1, 0, 1, 2};
  const std::int64_t T = 8;
  auto model = [&] {
    auto early = Exponential(0.5, "early");
    auto late = Exponential(0.5, "late");
    tracing::Enumerate enumerate({"tau"});
    auto tau = Categorical(Probs{Tensor::ones(Shape{T}) / double(T)}, "tau");
    const Tensor before =  // (..., T)
        prim::binary(BinaryOp::lt, Tensor::arange(T, DType::f64), prim::cast(expand_dims(tau, -1), DType::f64));
    tracing::Condition data({{"y", Tensor::from(counts, Shape{T})}});
    Poisson(where(before, expand_dims(early, -1), expand_dims(late, -1)), "y");
  };
  const double e = 3.8, l = 1.2;
  const Tensor lp = tracing::make_log_joint(model)({{"early", e}, {"late", l}});
  // log sum_k (1/T) prod_t Poisson(y_t | t < k ? e : l), plus the Exponential priors.
  double total = -INFINITY;
  for (int k = 0; k < T; ++k) {
    double term = -std::log(double(T));
    for (int t = 0; t < T; ++t) {
      const double rate = t < k ? e : l, y = counts[std::size_t(t)];
      term += y * std::log(rate) - rate - std::lgamma(y + 1);
    }
    total = std::max(total, term) + std::log1p(std::exp(-std::abs(total - term)));
  }
  const double prior = 2 * std::log(0.5) - 0.5 * (e + l);
  EXPECT_NEAR(lp.item(), total + prior, 1e-10);
}

TEST(Enumeration, InferDiscreteDrawsFromTheExactConditional) {
  const double w = 0.4, mu0 = -2.0, mu1 = 2.0;
  const tracing::Values latent{{"w", Tensor::scalar(w)}, {"mu", Tensor::vec({mu0, mu1})}};
  // p(z_n = 1 | y_n) = w N(y_n | mu1, 1) / (w N(y_n | mu1, 1) + (1 - w) N(y_n | mu0, 1)).
  const auto p1 = [&](double y) {
    const double a = w * std::exp(-0.5 * (y - mu1) * (y - mu1)), b = (1 - w) * std::exp(-0.5 * (y - mu0) * (y - mu0));
    return a / (a + b);
  };
  const int n = 4000;
  std::vector<double> ones(7, 0.0);
  for (int i = 0; i < n; ++i) {
    const Tensor z = inference::infer_discrete(mixture_with_labels, latent, random::Key(std::uint64_t(i)));
    ASSERT_EQ(z.shape(), (Shape{7}));
    for (int j = 0; j < 7; ++j) ones[std::size_t(j)] += z.at(j);
  }
  for (int j = 0; j < 7; ++j) {  // binomial frequencies: 5 standard errors
    const double p = p1(kY.at(j));
    EXPECT_NEAR(ones[std::size_t(j)] / n, p, 5 * std::sqrt(p * (1 - p) / n) + 1e-12) << "datum " << j;
  }
}

// The enumerated site is no parameter, but runs that only want the parameters' values (constrain,
// unconstrain) work, vectorized chains pass the batch check, and NUTS samples the model.
TEST(Enumeration, AModelWithAnEnumeratedSiteIsSampled) {
  const inference::Unconstrained space(mixture_with_labels);
  const Tensor flat = Tensor::vec({0.3, -2.0, 2.1});
  const tracing::Values values = space.constrain(flat);
  EXPECT_EQ(values.count("z"), 0u);
  const Tensor back = space.unconstrain(values);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(back.at(i), flat.at(i), 1e-12);
  EXPECT_ERROR(space.generated_quantities(flat), "site 'z' is enumerated");
  EXPECT_ERROR(inference::log_likelihood(mixture_with_labels, values), "site 'z' is enumerated");
  const inference::Target target = inference::make_target(space);
  std::vector<double> q{0.3, -2.0, 2.1, -0.4, 1.0, -1.5}, lp(2), grad(6);
  target.evaluate(q, 2, lp, grad);  // the first batch is checked against its states alone
  EXPECT_NEAR(lp[1], space.log_density(Tensor::vec({-0.4, 1.0, -1.5})).item(), 1e-12);
}

TEST(Enumeration, ATermOfOneElementIsNotElementwise) {
  auto first_only = [] {
    tracing::Enumerate enumerate({"z"});
    auto z = Bernoulli(Probs{Tensor::full(Shape{3}, 0.5)}, "z");
    tracing::Condition data({{"y", Tensor::scalar(1.0)}});
    Normal(slice(z, -1, 0, 1), 1.0, "y");  // depends on z[0] only
  };
  EXPECT_ERROR(tracing::make_log_joint(first_only)({}), "a term must be elementwise in the enumerated site");
}

TEST(Enumeration, UnsupportedUsesAreErrors) {
  auto not_elementwise = [] {
    tracing::Enumerate enumerate({"z"});
    auto z = Bernoulli(Probs{Tensor::full(Shape{3}, 0.5)}, "z");
    tracing::Condition data({{"y", Tensor::scalar(1.0)}});
    Normal(sum(z, std::vector<int>{-1}), 1.0, "y");
  };
  EXPECT_ERROR(tracing::make_log_joint(not_elementwise)({}), "a term must be elementwise in the enumerated site");
  auto two = [] {
    tracing::Enumerate enumerate({"a", "b"});
    Bernoulli(Probs{0.5}, "a");
    Bernoulli(Probs{0.5}, "b");
  };
  EXPECT_ERROR(tracing::make_log_joint(two)({}), "one enumerated site per program");
  auto continuous = [] {
    tracing::Enumerate enumerate({"x"});
    Normal(0.0, 1.0, "x");
  };
  EXPECT_ERROR(tracing::make_log_joint(continuous)({}), "only finite supports");
  auto misspelt = [] {
    tracing::Enumerate enumerate({"zz"});
    Bernoulli(Probs{0.5}, "z");
  };
  EXPECT_ERROR(tracing::make_log_joint(misspelt)({{"z", 1.0}}), "Enumerate 'zz' names no site");
  EXPECT_ERROR(
      inference::infer_discrete(mixture_marginalized, {{"w", 0.5}, {"mu", Tensor::vec({0, 1})}}, random::Key(1)),
      "no enumerated site");
}

}  // namespace
}  // namespace variate
