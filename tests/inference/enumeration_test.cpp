// Discrete latent sites summed out by enumeration, against the same models marginalized by hand,
// and infer_discrete against the exact conditional.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>
#include <string>

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

// "z3": built with += (GCC 12 warns falsely, -Wrestrict, on "z" + std::to_string(t) here).
std::string indexed(const char* prefix, int t) {
  std::string name = prefix;
  name += std::to_string(t);
  return name;
}

double log_normal_density(double x, double mean) {
  return -0.5 * (x - mean) * (x - mean) - 0.5 * std::log(2 * std::numbers::pi);
}

// A hidden Markov model, one enumerated site per step: z_0 ~ Categorical(init), z_t | z_{t-1} ~
// Categorical(A[z_{t-1}]), y_t ~ N(mu[z_t], 1), the means mu a parameter. Its log joint is the
// forward algorithm's log p(y | mu) plus the prior, and its gradient in mu matches finite
// differences (through the sums over the states).
TEST(Enumeration, AHiddenMarkovModelIsTheForwardAlgorithm) {
  constexpr int T = 5, K = 3;
  const double ys[T] = {-1.2, -0.4, 1.9, 2.4, 0.3};
  const double init[K] = {0.5, 0.3, 0.2}, a[K][K] = {{0.8, 0.15, 0.05}, {0.1, 0.7, 0.2}, {0.25, 0.25, 0.5}};
  const Tensor initial = Tensor::vec({init[0], init[1], init[2]});
  const Tensor transition =
      Tensor::from(std::vector<double>{a[0][0], a[0][1], a[0][2], a[1][0], a[1][1], a[1][2], a[2][0], a[2][1], a[2][2]},
                   Shape{K, K});
  std::set<std::string, std::less<>> states;
  tracing::Values data;
  for (int t = 0; t < T; ++t) {
    states.insert(indexed("z", t));
    data.emplace(indexed("y", t), Tensor::scalar(ys[t]));
  }
  auto model = [&] {
    auto mu = Normal(0.0, 3.0, "mu", {K});
    tracing::Enumerate enumerate(states);
    tracing::Condition observed(data);
    Tensor z;
    for (int t = 0; t < T; ++t) {
      z = Categorical(Probs{t == 0 ? initial : take(transition, z, 0)}, indexed("z", t));
      Normal(take(mu, z, -1), 1.0, indexed("y", t));
    }
  };
  const auto log_joint = tracing::make_log_joint(model);
  for (const Tensor& mu : {Tensor::vec({-1.0, 0.5, 2.0}), Tensor::vec({0.3, -2.0, 1.1})}) {
    double alpha[K];
    for (int k = 0; k < K; ++k) alpha[k] = init[k] * std::exp(log_normal_density(ys[0], mu.at(k)));
    for (int t = 1; t < T; ++t) {
      double next[K];
      for (int k = 0; k < K; ++k) {
        next[k] = 0;
        for (int j = 0; j < K; ++j) next[k] += alpha[j] * a[j][k];
        next[k] *= std::exp(log_normal_density(ys[t], mu.at(k)));
      }
      std::copy(next, next + K, alpha);
    }
    double prior = 0;
    for (int k = 0; k < K; ++k) prior += log_normal_density(mu.at(k) / 3.0, 0.0) - std::log(3.0);
    EXPECT_NEAR(log_joint({{"mu", mu}}).item(), std::log(alpha[0] + alpha[1] + alpha[2]) + prior, 1e-12);
    testing::expect_ad([&](std::span<const Tensor> v) { return log_joint({{"mu", v[0]}}); }, {mu});
  }
}

// A Binomial site enumerated element by element, with a total count per element (values beyond
// an element's count have probability 0), and a scalar site that every element also depends on:
// log p = log sum_g p(g) prod_n sum_(z_n) Binomial(z_n | c_n, p) N(y_n | z_n + g, 1).
TEST(Enumeration, BinomialSitesAndASiteSharedByTheElements) {
  const double counts[] = {2, 3, 4}, ys[] = {1.3, 2.9, 0.4}, p = 0.35, q = 0.6;
  auto model = [&] {
    tracing::Enumerate enumerate({"g", "z"});
    auto g = Bernoulli(Probs{q}, "g");
    auto z = Binomial(Tensor::vec({counts[0], counts[1], counts[2]}), Probs{p}, "z");
    tracing::Condition data({{"y", Tensor::vec({ys[0], ys[1], ys[2]})}});
    Normal(z + expand_dims(g, -1), 1.0, "y");
  };
  double total = 0;
  for (int g = 0; g < 2; ++g) {
    double product = g == 1 ? q : 1 - q;
    for (int n = 0; n < 3; ++n) {
      double sum = 0;
      for (int k = 0; k <= int(counts[n]); ++k) {
        const double binomial =
            std::exp(std::lgamma(counts[n] + 1) - std::lgamma(k + 1.0) - std::lgamma(counts[n] - k + 1)) *
            std::pow(p, k) * std::pow(1 - p, counts[n] - k);
        sum += binomial * std::exp(log_normal_density(ys[n], k + g));
      }
      product *= sum;
    }
    total += product;
  }
  EXPECT_NEAR(tracing::make_log_joint(model)({}).item(), std::log(total), 1e-12);
}

TEST(Enumeration, TooManySitesForATensorsRankAreAnError) {
  auto long_chain = [] {
    std::set<std::string, std::less<>> names;
    for (int t = 0; t < 9; ++t) names.insert(indexed("z", t));
    tracing::Enumerate enumerate(names);
    Tensor z;
    for (int t = 0; t < 9; ++t) z = Bernoulli(Probs{t == 0 ? Tensor::scalar(0.5) : 0.2 + 0.6 * z}, indexed("z", t));
  };
  EXPECT_ERROR(tracing::make_log_joint(long_chain)({}),
               "site 'z8' is enumerated site number 9, and its values need 9 dims (one per enumerated site, the "
               "batch's and its own); tensors have at most 8");
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
  EXPECT_ERROR(inference::infer_discrete(two, {}, random::Key(1)), "the program has 2 enumerated sites");
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
